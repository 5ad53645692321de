/**
 * Other machines' sessions as this process last read them from the shared
 * store's directory (`home/pg/pg-directory.ts`, docs/architecture.md §8
 * "Several machines"), so that a list, a lookup and a read of the same
 * session cost one round trip between them, not one each.
 *
 * A reading is used until another process's change is heard (a
 * publication sends `NOTIFY`, `home/pg/pg-tx.ts`) or it is
 * {@link DIRECTORY_FRESH_MS} old: whether a machine is reachable turns on
 * leases running out, which no process announces. Concurrent readers share
 * one read. A read that failed is thrown to every caller waiting on it
 * (a store fault, `home/store-fault.ts`), and the next call reads again.
 *
 * @module dsh-cross-session/home/pg/directory-cache
 */

import type { RemoteSession } from './directory-rows.js'

/** How long a reading of the directory is used without a change heard, ms (a lease is 15 s: `home/pg/lease.ts`). */
export const DIRECTORY_FRESH_MS = 2_000

/** One reading: other machines' sessions, newest first, and by id. */
export interface DirectoryReading {
  readonly sessions: readonly RemoteSession[]
  readonly byId: ReadonlyMap<string, RemoteSession>
}

/** Reads of the directory, shared while fresh. */
export class DirectoryCache {
  private readonly read: () => Promise<RemoteSession[]>
  private readonly now: () => number
  private last: { reading: DirectoryReading, at: number } | undefined
  /** The reading made last, kept whatever was heard since (for {@link known}). */
  private latest: DirectoryReading | undefined
  private inFlight: Promise<DirectoryReading> | undefined
  /** Bumped by each change heard: a read that started before one is not kept as fresh. */
  private generation = 0

  /**
   * @param read - the directory now (`PgDirectory.directory`, off the event loop).
   * @param onChange - hears another process's change; the cache drops its reading then.
   */
  constructor(read: () => Promise<RemoteSession[]>, onChange: (listener: () => void) => unknown, now: () => number = Date.now) {
    this.read = read
    this.now = now
    onChange(() => {
      this.generation++
      this.last = undefined
    })
  }

  /**
   * The reading made last, whatever its age and whatever was heard since (`undefined` before the first): for the
   * questions asked right after a list, lookup or read of the same sessions (is it live, which machine).
   */
  known(): DirectoryReading | undefined {
    return this.latest
  }

  /** A fresh reading. @throws what the read threw (a store fault while the store cannot be reached). */
  async get(): Promise<DirectoryReading> {
    const last = this.last
    if (last !== undefined && this.now() - last.at < DIRECTORY_FRESH_MS) return last.reading
    this.inFlight ??= this.fetch().finally(() => {
      this.inFlight = undefined
    })
    return await this.inFlight
  }

  private async fetch(): Promise<DirectoryReading> {
    const generation = this.generation
    const at = this.now()
    const sessions = await this.read()
    const reading = { sessions, byId: new Map(sessions.map(session => [session.header.id, session])) }
    this.latest = reading
    if (generation === this.generation) this.last = { reading, at }
    return reading
  }
}
