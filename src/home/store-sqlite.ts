/**
 * The home store in SQLite (`node:sqlite` `DatabaseSync`, as rc.8's own
 * `@deepseek-ai/dsh-session-query-sqlite@0.1.0-rc.8` lib/index.js opens its
 * database): WAL, `busy_timeout`, and every transition of the port one
 * `BEGIN IMMEDIATE` transaction, so the write lock is taken before the first
 * read and two processes never decide on the same rows at once.
 *
 * Opening (`home/store-open.ts`) creates the file 0600 in a 0700 directory.
 *
 * @module dsh-cross-session/home/store-sqlite
 */

import type { DatabaseSync } from 'node:sqlite'
import { statSync } from 'node:fs'
import type { ProcessTag } from './paths.js'
import type { Board, HoldOutcome, HomeStore, LetGo, NewMessage, PostOutcome, StoredMessage } from './store.js'
import { holderOf, holderTag, lastLetGo, messageOf, sameTag, type HolderRow, type MessageRow } from './store-schema.js'

/** Most messages waiting (pending or claimed) for one target; a post beyond it is refused, not dropped. */
export const MAX_WAITING_PER_TARGET = 256

type Alive = (tag: ProcessTag) => boolean

/** The SQLite home store of one process. */
export class SqliteHomeStore implements HomeStore {
  readonly self: ProcessTag
  private readonly db: DatabaseSync
  private readonly path: string
  private readonly alive: Alive
  private readonly now: () => number
  private dataVersion = -1

  /**
   * @param db - an open database with the schema applied (`openHomeStore`).
   * @param self - this process.
   * @param alive - liveness of another process, judged inside each transition.
   */
  constructor(db: DatabaseSync, path: string, self: ProcessTag, alive: Alive, now: () => number = Date.now) {
    this.db = db
    this.path = path
    this.self = self
    this.alive = tag => sameTag(tag, self) || alive(tag)
    this.now = now
  }

  private tx<T>(work: () => T): T {
    this.db.exec('BEGIN IMMEDIATE')
    try {
      const result = work()
      this.db.exec('COMMIT')
      return result
    } catch (error: unknown) {
      try {
        this.db.exec('ROLLBACK')
      } catch {
        // Already rolled back by SQLite (e.g. SQLITE_FULL): nothing to undo.
      }
      throw error
    }
  }

  private row(sessionId: string): HolderRow | undefined {
    return this.db.prepare('SELECT * FROM holders WHERE session_id = ?').get(sessionId) as HolderRow | undefined
  }

  private livingHolder(row: HolderRow | undefined): ProcessTag | undefined {
    const tag = holderTag(row)
    return tag !== undefined && this.alive(tag) ? tag : undefined
  }

  /** Claims of dead processes on `sessionId` go back to pending (inside a transaction). */
  private revertDeadClaims(sessionId: string): void {
    const claimed = this.db.prepare('SELECT n, claimer_pid AS pid, claimer_start AS start FROM messages WHERE target = ? AND state = \'claimed\'').all(sessionId) as Array<{ n: number, pid: number, start: number }>
    for (const claim of claimed) {
      if (!this.alive(claim)) this.db.prepare('UPDATE messages SET state = \'pending\', claimer_pid = NULL, claimer_start = NULL, updated_at = ? WHERE n = ?').run(this.now(), claim.n)
    }
  }

  join(longLived: boolean): void {
    this.tx(() => {
      this.db.prepare('INSERT OR REPLACE INTO processes (pid, start, long_lived, joined_at) VALUES (?, ?, ?, ?)').run(this.self.pid, this.self.start, longLived ? 1 : 0, this.now())
    })
  }

  leave(how: LetGo): void {
    this.tx(() => {
      const { pid, start } = this.self
      this.db.prepare('UPDATE messages SET state = \'pending\', claimer_pid = NULL, claimer_start = NULL, updated_at = ? WHERE state = \'claimed\' AND claimer_pid = ? AND claimer_start = ?').run(this.now(), pid, start)
      this.db.prepare('UPDATE holders SET pid = NULL, start = NULL, state = \'free\', woke = 0, let_go = ?, let_go_pid = ?, let_go_at = ? WHERE pid = ? AND start = ?').run(how, pid, this.now(), pid, start)
      this.db.prepare('DELETE FROM processes WHERE pid = ? AND start = ?').run(pid, start)
    })
  }

  private hold(sessionId: string, state: 'waking' | 'live'): HoldOutcome {
    return this.tx(() => {
      const row = this.row(sessionId)
      const living = this.livingHolder(row)
      if (living !== undefined && !sameTag(living, this.self)) return { ok: false, holder: holderOf(row!, living) }
      const already = living !== undefined
      const previous = already ? undefined : lastLetGo(row, this.alive)
      // A dead holder is replaced here, in the transaction that installs this one; its claims return to pending.
      if (!already) this.revertDeadClaims(sessionId)
      const woke = state === 'waking' || (already && row!.woke === 1) ? 1 : 0
      const next = already && row!.state === 'live' ? 'live' : state
      this.db.prepare(`INSERT INTO holders (session_id, pid, start, state, woke, since, let_go, let_go_pid, let_go_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (session_id) DO UPDATE SET pid = excluded.pid, start = excluded.start, state = excluded.state, woke = excluded.woke, since = excluded.since,
          let_go = excluded.let_go, let_go_pid = excluded.let_go_pid, let_go_at = excluded.let_go_at`)
        .run(sessionId, this.self.pid, this.self.start, next, woke, this.now(), previous?.how ?? null, previous?.pid ?? null, previous?.at ?? null)
      return previous === undefined ? { ok: true, already } : { ok: true, already, previous }
    })
  }

  acquire(sessionId: string): HoldOutcome {
    return this.hold(sessionId, 'waking')
  }

  markLive(sessionId: string): HoldOutcome {
    return this.hold(sessionId, 'live')
  }

  release(sessionId: string, how: LetGo): void {
    this.tx(() => {
      const { pid, start } = this.self
      // A wake that failed wrote nothing to the log: the row keeps what it knew of the holder before.
      const changed = how === 'wake-failed'
        ? this.db.prepare('UPDATE holders SET pid = NULL, start = NULL, state = \'free\', woke = 0 WHERE session_id = ? AND pid = ? AND start = ?').run(sessionId, pid, start)
        : this.db.prepare('UPDATE holders SET pid = NULL, start = NULL, state = \'free\', woke = 0, let_go = ?, let_go_pid = ?, let_go_at = ? WHERE session_id = ? AND pid = ? AND start = ?').run(how, pid, this.now(), sessionId, pid, start)
      if (Number(changed.changes) === 0) return
      this.db.prepare('UPDATE messages SET state = \'pending\', claimer_pid = NULL, claimer_start = NULL, updated_at = ? WHERE target = ? AND state = \'claimed\' AND claimer_pid = ? AND claimer_start = ?').run(this.now(), sessionId, pid, start)
    })
  }

  view(sessionId: string) {
    const row = this.row(sessionId)
    const living = this.livingHolder(row)
    if (living !== undefined) return { holder: holderOf(row!, living) }
    const letGo = lastLetGo(row, this.alive)
    return letGo === undefined ? {} : { lastLetGo: letGo }
  }

  board(): Board {
    const elsewhere = new Map<string, ReturnType<typeof holderOf>>()
    const letGo = new Map<string, NonNullable<ReturnType<typeof lastLetGo>>>()
    const verdicts = new Map<string, boolean>()
    const alive = (tag: ProcessTag): boolean => {
      const key = `${tag.pid}.${tag.start}`
      let verdict = verdicts.get(key)
      if (verdict === undefined) verdicts.set(key, verdict = this.alive(tag))
      return verdict
    }
    for (const row of this.db.prepare('SELECT * FROM holders WHERE pid IS NOT NULL OR let_go IS NOT NULL').all() as unknown as HolderRow[]) {
      const tag = holderTag(row)
      if (tag !== undefined && alive(tag)) {
        if (!sameTag(tag, this.self)) elsewhere.set(row.session_id, holderOf(row, tag))
        continue
      }
      const gone = lastLetGo(row, alive)
      if (gone !== undefined) letGo.set(row.session_id, gone)
    }
    return { elsewhere, letGo }
  }

  longLivedHost(): ProcessTag | undefined {
    const rows = this.db.prepare('SELECT pid, start FROM processes WHERE long_lived = 1 ORDER BY joined_at').all() as Array<{ pid: number, start: number }>
    return rows.map(row => ({ pid: row.pid, start: row.start })).find(tag => !sameTag(tag, this.self) && this.alive(tag))
  }

  post(message: NewMessage): PostOutcome {
    return this.tx(() => {
      const existing = this.db.prepare('SELECT * FROM messages WHERE message_id = ?').get(message.messageId) as MessageRow | undefined
      if (existing !== undefined) return { ok: true, message: messageOf(existing), duplicate: true }
      const waiting = this.db.prepare('SELECT COUNT(*) AS count FROM messages WHERE target = ? AND state IN (\'pending\', \'claimed\')').get(message.target) as { count: number }
      if (waiting.count >= MAX_WAITING_PER_TARGET) return { ok: false, reason: 'full' }
      const now = this.now()
      this.db.prepare('INSERT INTO messages (message_id, target, sender, hop, mode, text, may_wake, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, \'pending\', ?, ?)')
        .run(message.messageId, message.target, message.sender, message.hop, message.mode, message.text, message.mayWake ? 1 : 0, now, now)
      const stored = this.db.prepare('SELECT * FROM messages WHERE message_id = ?').get(message.messageId) as unknown as MessageRow
      return { ok: true, message: messageOf(stored), duplicate: false }
    })
  }

  claim(sessionId: string): StoredMessage[] {
    return this.tx(() => {
      const row = this.row(sessionId)
      if (row?.state !== 'live' || !sameTag(holderTag(row), this.self)) return []
      const rows = this.db.prepare('SELECT * FROM messages WHERE target = ? AND state IN (\'pending\', \'claimed\') ORDER BY n').all(sessionId) as unknown as MessageRow[]
      // Never this process's own claims: those are in flight here (admitted, awaiting their record).
      const mine = rows.filter(message => message.state === 'pending' || !this.alive({ pid: message.claimer_pid ?? 0, start: message.claimer_start ?? 0 }))
      const update = this.db.prepare('UPDATE messages SET state = \'claimed\', claimer_pid = ?, claimer_start = ?, updated_at = ? WHERE n = ?')
      for (const message of mine) update.run(this.self.pid, this.self.start, this.now(), message.n)
      return mine.map(message => messageOf({ ...message, state: 'claimed', claimer_pid: this.self.pid, claimer_start: this.self.start }))
    })
  }

  private mine(messageId: string, sql: string, ...params: Array<string | number | null>): boolean {
    return this.tx(() => Number(this.db.prepare(`UPDATE messages SET ${sql}, updated_at = ? WHERE message_id = ? AND state = 'claimed' AND claimer_pid = ? AND claimer_start = ?`)
      .run(...params, this.now(), messageId, this.self.pid, this.self.start).changes) === 1)
  }

  record(messageId: string, seq: number, running: boolean): boolean {
    return this.mine(messageId, 'state = \'recorded\', seq = ?, running = ?', seq, running ? 1 : 0)
  }

  unclaimAll(): void {
    this.tx(() => this.db.prepare('UPDATE messages SET state = \'pending\', claimer_pid = NULL, claimer_start = NULL, updated_at = ? WHERE state = \'claimed\' AND claimer_pid = ? AND claimer_start = ?').run(this.now(), this.self.pid, this.self.start))
  }

  unclaim(messageId: string): void {
    this.mine(messageId, 'state = \'pending\', claimer_pid = NULL, claimer_start = NULL')
  }

  refuse(messageId: string, reason: string): void {
    this.mine(messageId, 'state = \'refused\', reason = ?', reason)
  }

  answered(sessionId: string, turnEndSeq: number): void {
    this.tx(() => this.db.prepare('UPDATE messages SET answered_seq = ?, updated_at = ? WHERE target = ? AND state = \'recorded\' AND answered_seq IS NULL AND seq < ?').run(turnEndSeq, this.now(), sessionId, turnEndSeq))
  }

  takeUnanswered(sessionId: string): StoredMessage[] {
    return this.tx(() => {
      const rows = this.db.prepare('SELECT * FROM messages WHERE target = ? AND state = \'recorded\' AND answered_seq IS NULL AND reoffered = 0 ORDER BY n').all(sessionId) as unknown as MessageRow[]
      for (const row of rows) this.db.prepare('UPDATE messages SET reoffered = 1, updated_at = ? WHERE n = ?').run(this.now(), row.n)
      return rows.map(messageOf)
    })
  }

  waiting(): Set<string> {
    const rows = this.db.prepare('SELECT DISTINCT target FROM messages WHERE state IN (\'pending\', \'claimed\')').all() as Array<{ target: string }>
    return new Set(rows.map(row => row.target))
  }

  heldHere(): string[] {
    const rows = this.db.prepare('SELECT session_id FROM holders WHERE pid = ? AND start = ?').all(this.self.pid, this.self.start) as Array<{ session_id: string }>
    return rows.map(row => row.session_id)
  }

  message(messageId: string): StoredMessage | undefined {
    const row = this.db.prepare('SELECT * FROM messages WHERE message_id = ?').get(messageId) as MessageRow | undefined
    return row === undefined ? undefined : messageOf(row)
  }

  adoptable(): string[] {
    const rows = this.db.prepare(`SELECT DISTINCT m.target AS target, h.pid AS pid, h.start AS start FROM messages m LEFT JOIN holders h ON h.session_id = m.target
      WHERE m.state IN ('pending', 'claimed') AND m.may_wake = 1`).all() as Array<{ target: string, pid: number | null, start: number | null }>
    return rows.filter(row => this.livingHolder(row as unknown as HolderRow) === undefined).map(row => row.target)
  }

  sweep(now: number, retainMs: number): number {
    return this.tx(() => {
      const dropped = this.db.prepare('DELETE FROM messages WHERE state IN (\'recorded\', \'refused\') AND updated_at < ?').run(now - retainMs)
      for (const row of this.db.prepare('SELECT pid, start FROM processes').all() as Array<{ pid: number, start: number }>) {
        if (!this.alive(row)) this.db.prepare('DELETE FROM processes WHERE pid = ? AND start = ?').run(row.pid, row.start)
      }
      return Number(dropped.changes)
    })
  }

  changed(): boolean {
    const { data_version: version } = this.db.prepare('PRAGMA data_version').get() as { data_version: number }
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

  close(): void {
    try {
      this.db.close()
    } catch {
      // Already closed.
    }
  }
}
