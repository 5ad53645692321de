/**
 * One process's connection to the home store: the prepared-statement cache,
 * the `BEGIN IMMEDIATE` transaction every transition runs in, the liveness
 * probe, and the reads both halves of the store share
 * (`home/store-messages.ts`, `home/store-sqlite.ts`).
 *
 * @module dsh-cross-session/home/store-connection
 */

import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { statSync } from 'node:fs'
import type { ProcessTag } from '../harness/dsh-home.js'
import { holderTag, sameTag, type HolderRow } from './store-rows.js'
import { BUSY_TIMEOUT_MS, lockWaitMs } from './lock-patience.js'
import { judgeChoices, STORE_USER_PREFIX, storeUserKey } from './store-users.js'
import { isBusy } from './store-fault.js'

type Alive = (tag: ProcessTag) => boolean

/** A connection's transactions since it opened: how many began, and the longest wait for the write lock and `COMMIT`, ms. */
export interface TransactionTimes {
  readonly transactions: number
  readonly longestBeginMs: number
  readonly longestCommitMs: number
}

/** The connection and the helpers every transition uses. */
export class StoreConnection {
  readonly self: ProcessTag
  protected readonly db: DatabaseSync
  protected readonly path: string
  protected readonly alive: Alive
  protected readonly now: () => number
  private dataVersion = -1
  private transactions = 0
  private longestBeginMs = 0
  private longestCommitMs = 0
  private readonly statements = new Map<string, StatementSync>()

  /**
   * @param db - an open database with the schema applied (`openHomeStore`).
   * @param path - the database file (for {@link bytes}).
   * @param self - this process.
   * @param alive - liveness of another process, judged inside each transition.
   * @param now - clock, ms.
   */
  constructor(db: DatabaseSync, path: string, self: ProcessTag, alive: Alive, now: () => number = Date.now) {
    this.db = db
    this.path = path
    this.self = self
    this.alive = tag => sameTag(tag, self) || alive(tag)
    this.now = now
  }

  /** One prepared statement per SQL text, kept for the connection's life (a handful of texts). */
  protected sql(text: string): StatementSync {
    let statement = this.statements.get(text)
    if (statement === undefined) this.statements.set(text, statement = this.db.prepare(text))
    return statement
  }

  protected tx<T>(work: () => T): T {
    // A retried step waits for the lock with the event loop free (`home/lock-patience.ts`); reads outside a
    // transaction keep the usual wait.
    const wait = lockWaitMs()
    if (wait !== BUSY_TIMEOUT_MS) this.db.exec(`PRAGMA busy_timeout = ${wait}`)
    try {
      const begin = performance.now()
      this.db.exec('BEGIN IMMEDIATE')
      this.transactions++
      const began = performance.now()
      this.longestBeginMs = Math.max(this.longestBeginMs, began - begin)
      try {
        const result = work()
        const commit = performance.now()
        this.db.exec('COMMIT')
        this.longestCommitMs = Math.max(this.longestCommitMs, performance.now() - commit)
        return result
      } catch (error: unknown) {
        try {
          this.db.exec('ROLLBACK')
        } catch {
          // Already rolled back by SQLite (e.g. SQLITE_FULL): nothing to undo.
        }
        throw error
      }
    } finally {
      if (wait !== BUSY_TIMEOUT_MS) this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    }
  }

  /**
   * Record that this process coordinates on `choice` (`home/store-users.ts`); the rows of dead processes go. Judged
   * first on a read (no lock: a store another process holds locked still opens, as before); recorded in one
   * transaction, which a lock held past the wait leaves to the next opening.
   * @returns another living process's other choice (then nothing is recorded), or `undefined`.
   */
  useStore(choice: string): string | undefined {
    const judge = (): ReturnType<typeof judgeChoices> => judgeChoices(this.sql(`SELECT key, value FROM meta
      WHERE key LIKE '${STORE_USER_PREFIX}%'`).all() as Array<{ key: string, value: string }>, choice, this.self, this.alive)
    const seen = judge()
    if (seen.other !== undefined) return seen.other
    try {
      return this.tx(() => {
        const judged = judge()
        for (const key of judged.dead) this.sql('DELETE FROM meta WHERE key = ?').run(key)
        if (judged.other !== undefined) return judged.other
        this.sql('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(storeUserKey(this.self), choice)
        return undefined
      })
    } catch (error: unknown) {
      if (isBusy(error)) return undefined
      throw error
    }
  }

  /** Drop this process's choice ({@link useStore}); a process that dies without it is dropped by the next that records one. */
  leaveStoreUsers(): void {
    this.sql('DELETE FROM meta WHERE key = ?').run(storeUserKey(this.self))
  }

  protected row(sessionId: string): HolderRow | undefined {
    return this.sql('SELECT * FROM holders WHERE session_id = ?').get(sessionId) as HolderRow | undefined
  }

  protected livingHolder(row: HolderRow | undefined): ProcessTag | undefined {
    const tag = holderTag(row)
    return tag !== undefined && this.alive(tag) ? tag : undefined
  }

  /** Claims of dead processes on `sessionId` go back to pending (inside a transaction). */
  protected revertDeadClaims(sessionId: string): void {
    const claimed = this.sql('SELECT n, claimer_pid AS pid, claimer_start AS start FROM messages WHERE target = ? AND state = \'claimed\'')
      .all(sessionId) as Array<{ n: number, pid: number, start: number }>
    for (const claim of claimed) {
      if (!this.alive(claim))
        this.sql('UPDATE messages SET state = \'pending\', claimer_pid = NULL, claimer_start = NULL, updated_at = ? WHERE n = ?')
          .run(this.now(), claim.n)
    }
  }

  changed(): boolean {
    const { data_version: version } = this.sql('PRAGMA data_version').get() as { data_version: number }
    const changed = version !== this.dataVersion
    this.dataVersion = version
    return changed
  }

  bytes(): number {
    let total = 0
    for (const suffix of ['', '-wal']) {
      try {
        total += statSync(`${this.path}${suffix}`).size
      } catch {
        // No WAL file right after a checkpoint.
      }
    }
    return total
  }

  /** This connection's transactions so far (the bench prints them; a `BEGIN` that met a lock and threw is not counted). */
  times(): TransactionTimes {
    return { transactions: this.transactions, longestBeginMs: this.longestBeginMs, longestCommitMs: this.longestCommitMs }
  }

  close(): void {
    try {
      this.db.close()
    } catch {
      // Already closed.
    }
  }
}
