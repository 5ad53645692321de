/**
 * Open the home store of one `DSH_HOME`: `$DSH_HOME/cross-session/store.sqlite`.
 *
 * - The directory is created 0700 and must be a real directory; the
 *   database file is created 0600 before SQLite opens it (SQLite gives its
 *   `-wal` and `-shm` files the database file's mode) and must not be a
 *   symlink.
 * - `journal_mode = WAL` (readers never block the writer), a short
 *   `busy_timeout` ({@link BUSY_TIMEOUT_MS}, then `SQLITE_BUSY`: a store fault
 *   its caller retries asynchronously), `synchronous = FULL` (a committed
 *   transition survives a power loss). A current store opens without a write lock.
 * - A store of an earlier schema version is migrated in place
 *   (`home/store-migrate.ts`): every choice, held and pending message is
 *   kept. A store of a newer version (a newer release of this package on
 *   the same home) is left as it is and this process does without it until
 *   it can use it (`home/store-supervisor.ts`): two releases never move
 *   each other's store aside.
 * - Only a file SQLite cannot read at all (not a database, corrupt) is moved
 *   aside (`store.sqlite.broken-<ms>`) and a new one made; the move is noted
 *   in the new store's `meta` (`rebuilt`), so every process and the web UI
 *   can say so, and logged once, by the process that moved it.
 *
 * `node:sqlite` is loaded here, on first open (`harness/sqlite-module.ts`:
 * its experimental warning on one line), so a process that never opens the
 * store never loads it.
 *
 * @module dsh-cross-session/home/store-open
 */

import { renameSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import type { DatabaseSync } from 'node:sqlite'
import type { ProcessTag } from '../harness/dsh-home.js'
import { loadSqlite } from '../harness/sqlite-module.js'
import { SCHEMA, STORE_VERSION } from './store-schema.js'
import { SqliteHomeStore } from './store-sqlite.js'
import { storeFault } from './store-fault.js'
import { createOwnerOnly, fileIdentity, plainDirectory, storePaths } from './store-files.js'
import { isCurrent, migrateInPlace, readsCurrent, SCHEMA_HASH } from './store-migrate.js'
import { BUSY_TIMEOUT_MS } from './lock-patience.js'

/** The `meta` table alone (as in the schema, idempotent): read for the version before the schema runs. */
const META_SCHEMA = 'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;'

export { BUSY_TIMEOUT_MS } from './lock-patience.js'

export { fileIdentity, setAsideStaleWal, storePaths } from './store-files.js'

/** Pure: what a stored schema version means to this release. */
export function versionVerdict(stored: string | undefined): 'new' | 'same' | 'older' | 'newer' | 'foreign' {
  if (stored === undefined) return 'new'
  if (stored === STORE_VERSION) return 'same'
  const version = Number(stored)
  if (!Number.isSafeInteger(version) || version < 1) return 'foreign'
  return version < Number(STORE_VERSION) ? 'older' : 'newer'
}

/** Opening waits `busyMs` for a lock (a first open, a migration); every transition after it {@link BUSY_TIMEOUT_MS}. */
function settled(db: DatabaseSync): DatabaseSync {
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  return db
}

/** Every connection's pragmas (the worker's too, `home/store-worker.ts`). */
function pragmas(db: DatabaseSync, busyMs: number): void {
  db.exec(`PRAGMA busy_timeout = ${busyMs}`)
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = FULL')
  // A checkpoint truncates the WAL back to this size (bytes), so a large sweep does not leave it grown.
  db.exec('PRAGMA journal_size_limit = 1048576')
}

function connect(file: string, busyMs: number, log: (message: string) => void): DatabaseSync {
  const db = new (loadSqlite().DatabaseSync)(file)
  try {
    pragmas(db, busyMs)
    // Most opens (every process start on a home in use): nothing to write, so no write lock to wait for.
    if (isCurrent(db)) return settled(db)
    db.exec('BEGIN IMMEDIATE')
    // The version is read before the schema runs: this version's indexes name
    // columns an older store lacks, and running them first would fail with
    // "no such column" instead of migrating the store.
    db.exec(META_SCHEMA)
    const version = (db.prepare('SELECT value FROM meta WHERE key = \'version\'').get() as { value: string } | undefined)?.value
    const verdict = versionVerdict(version)
    if (verdict === 'newer' || verdict === 'foreign') {
      db.exec('ROLLBACK')
      throw storeFault(`store schema ${String(version)}, this release writes ${STORE_VERSION}`,
        `it was written by ${verdict === 'newer'
          ? 'a newer' : 'another'} release of dsh-cross-session (schema ${String(version)}); this one writes schema ${STORE_VERSION}`)
    }
    const migrated = verdict === 'older' ? migrateInPlace(db) : []
    db.exec(SCHEMA)
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (\'version\', ?), (\'schema\', ?)').run(STORE_VERSION, SCHEMA_HASH)
    db.exec('COMMIT')
    settled(db)
    if (verdict === 'older') {
      const how = migrated.length === 0 ? '' : ` (${migrated.join('; ')})`
      log(`the cross-session store was migrated in place from schema ${String(version)} to ${STORE_VERSION}${how}; `
        + 'every choice and message was kept')
    }
    return db
  } catch (error: unknown) {
    try {
      db.close()
    } catch {
      // Closing a half-open database is best effort.
    }
    throw error
  }
}

/** Whether an open error means SQLite cannot read the file at all (then, only then, it is moved aside). */
function isBroken(error: unknown): boolean {
  const { errcode } = error as { errcode?: unknown }
  // SQLITE_CORRUPT (11), SQLITE_NOTADB (26), extended codes included.
  return typeof errcode === 'number' && ((errcode & 0xff) === 11 || (errcode & 0xff) === 26)
}

/**
 * Open (creating if needed) the store of `home`.
 * @param self - this process.
 * @param alive - liveness of another process (pid + start time).
 * @param log - where a rebuilt store is reported.
 * @param now - clock, ms (tests inject one).
 * @param busyMs - how long opening waits for another process's write lock, ms (transitions wait {@link BUSY_TIMEOUT_MS}).
 * @throws when the directory or file is unsafe (a symlink, not a directory), the store is of a newer
 *   release, or SQLite cannot open it (locked past the wait, full, an I/O error): `home/store-fault.ts` names each.
 */
export function openHomeStore(home: string, self: ProcessTag, alive: (tag: ProcessTag) => boolean,
  log: (message: string) => void = () => undefined, now: () => number = Date.now, busyMs: number = BUSY_TIMEOUT_MS): SqliteHomeStore {
  const { dir, file } = storePaths(home)
  plainDirectory(dir)
  createOwnerOnly(file)
  const found = fileIdentity(file)
  let db: DatabaseSync
  try {
    db = connect(file, busyMs, log)
  } catch (error: unknown) {
    if (!isBroken(error)) throw error
    // Another process may have moved it aside and made a new one meanwhile: that one is used, never moved.
    if (fileIdentity(file) !== found) return openHomeStore(home, self, alive, log, now, busyMs)
    const aside = `${file}.broken-${Date.now()}`
    // The WAL and shared-memory files belong to the broken database: never replayed into the new one.
    for (const suffix of ['', '-wal', '-shm']) {
      try {
        renameSync(`${file}${suffix}`, `${aside}${suffix}`)
      } catch {
        // Absent (no WAL yet).
      }
    }
    log(`the cross-session store ${file} could not be read at all (${String(error)}); moved to ${aside} and started a new one: the `
      + `inbound choices, held and waiting messages it kept are lost (they stay in ${aside})`)
    createOwnerOnly(file)
    db = connect(file, busyMs, log)
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (\'rebuilt\', ?)').run(JSON.stringify({ at: Date.now(), aside }))
  }
  return new SqliteHomeStore(db, file, self, alive, now)
}

/** Why {@link openExisting} opened nothing, as its worker says it in the log. */
export const NOT_OPENED = {
  replaced: 'the file at the path is no longer the one its process opened',
  schema: 'the file is not of this release\'s schema: another release changed it',
} as const

/**
 * A second connection to the store file a process opened (its worker thread's, `home/store-worker.ts`): that very
 * file (`identity`, `dev:ino`), already of this release's schema; nothing is created, migrated or moved aside.
 * @returns the store; or why nothing was opened ({@link NOT_OPENED}): `replaced` when the file at `file` is another
 *   one now (or none), `schema` when it reads well and is not of this release's schema.
 * @throws what SQLite throws opening or reading it (locked past the wait, a damaged file, an I/O error, a file with no
 *   `meta` table); a file deleted between the two identity checks may throw SQLite's "unable to open".
 */
export function openExisting(file: string, identity: string, self: ProcessTag,
  alive: (tag: ProcessTag) => boolean): SqliteHomeStore | keyof typeof NOT_OPENED {
  if (fileIdentity(file) !== identity) return 'replaced'
  // `mode=rw` (sqlite.org/uri.html): a file gone meanwhile is not made again here, with another mode than 0600.
  const uri = pathToFileURL(file)
  uri.searchParams.set('mode', 'rw')
  const db = new (loadSqlite().DatabaseSync)(uri)
  let why: keyof typeof NOT_OPENED
  try {
    // Checked again once open, before anything is written to it: a file made at the path in between is not the process's.
    if (fileIdentity(file) !== identity) why = 'replaced'
    else {
      pragmas(db, BUSY_TIMEOUT_MS)
      // A fault reading it (a damaged file, a lock, an I/O error) is thrown as itself; only a file that reads well and
      // is of another schema is `schema`.
      if (!readsCurrent(db)) why = 'schema'
      else return new SqliteHomeStore(db, file, self, alive)
    }
  } catch (error: unknown) {
    db.close()
    throw error
  }
  db.close()
  return why
}
