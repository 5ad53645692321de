/**
 * Where a process's home store lives, as the store supervisor
 * (`home/store-supervisor.ts`) sees it: how to open it, whether the store
 * open now is still the one there, and what to do after one that no
 * longer is was closed (docs/architecture.md §8, "When the store fails").
 *
 * - **SQLite** ({@link sqliteSite}): the file of this `DSH_HOME`; a store is
 *   still there while the path's dev and inode are the opened file's.
 * - **PostgreSQL** (`home/pg/pg-site.ts`): a server several machines reach;
 *   a store is still there while its worker thread runs.
 *
 * @module dsh-cross-session/home/store-site
 */

import type { HomeStore } from './store.js'
import type { SqliteHomeStore } from './store-sqlite.js'
import { fileIdentity, setAsideStaleWal } from './store-files.js'

/** An unreadable store moved aside before a new one was made: when (ms), and where it is now. */
export interface Rebuilt {
  readonly at: number
  readonly aside: string
}

/** A store a site opens: the port, and whether an unreadable store was moved aside before this one was made. */
export type SiteStore = HomeStore & { rebuilt?(): Rebuilt | undefined }

/** One place a home store lives. */
export interface StoreSite<S extends SiteStore = SiteStore> {
  /** What the log names when the process moved to another store there (a path, or a URL without its password). */
  readonly where: string
  /** Open the store, waiting at most `busyMs` for another process's lock. @throws a store fault (`home/store-fault.ts`). */
  open(busyMs: number): S
  /** Whether `store` (the last one {@link open} gave) is still the store at this site; checked before every call, so cheap. */
  holds(store: S): boolean
  /** After a store that {@link holds} no longer was closed, before the next is opened. */
  left?(): void
}

/**
 * The SQLite file of this home: opened by `open` (`home/store-open.ts` `openHomeStore`); a file deleted or replaced
 * under the process is left for the one now at the path, and the stale write-ahead log of the old one set aside.
 * @param file - the store's path (`home/store-files.ts` `storePaths`).
 */
export function sqliteSite(open: (busyMs: number) => SqliteHomeStore, file: string): StoreSite<SqliteHomeStore> {
  let identity: string | undefined
  /** The identity of the `-wal` file while the store was open (to tell it from a new file's). */
  let wal: string | undefined
  return {
    where: file,
    open(busyMs) {
      const store = open(busyMs)
      identity = fileIdentity(file)
      wal = fileIdentity(`${file}-wal`)
      return store
    },
    // One `stat`, a few µs; the store watch calls `changed()` every second (`home/store-watch.ts`).
    holds: () => fileIdentity(file) === identity,
    left: () => setAsideStaleWal(file, wal),
  }
}
