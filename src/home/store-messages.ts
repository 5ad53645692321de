/**
 * The message half of the home store: post, claim, record, and what follows
 * a message until it is swept. Each method is one transaction
 * (`home/store-connection.ts`); claims are only ever the live holder's, in
 * posting order.
 *
 * @module dsh-cross-session/home/store-messages
 */

import type { HolderRefusal } from '../ports.js'
import type { LogPlace, NewMessage, PostOutcome, StoredMessage } from './store.js'
import { StoreConnection } from './store-connection.js'
import { holderTag, messageOf, sameTag, type HolderRow, type MessageRow } from './store-rows.js'

/** Most messages waiting (pending or claimed) for one target; a post beyond it is refused, not dropped. */
export const MAX_WAITING_PER_TARGET = 256
/** How long a session nobody holds keeps its row (what its last holder left), ms: 30 days. */
const FREE_HOLDER_RETAIN_MS = 30 * 24 * 60 * 60_000

/** Message transitions over one connection. */
export class StoreMessages extends StoreConnection {
  post(message: NewMessage): PostOutcome {
    return this.tx(() => this.insert(message))
  }

  postClaimed(message: NewMessage, behind: 'wait' | 'jump'): PostOutcome | { readonly ok: false, readonly reason: 'behind' } {
    return this.tx(() => {
      const earlier = behind === 'wait' && this.sql('SELECT 1 FROM messages WHERE target = ? AND message_id <> ? AND (state = \'pending\' '
        + 'OR (state = \'claimed\' AND NOT (claimer_pid = ? AND claimer_start = ?))) LIMIT 1')
        .get(message.target, message.messageId, this.self.pid, this.self.start) !== undefined
      if (earlier) return { ok: false, reason: 'behind' } as const
      const posted = this.insert(message)
      if (!posted.ok || posted.duplicate) return posted
      this.sql('UPDATE messages SET state = \'claimed\', claimed = 1, claimer_pid = ?, claimer_start = ? WHERE message_id = ?')
        .run(this.self.pid, this.self.start, message.messageId)
      return { ...posted, message: { ...posted.message, state: 'claimed', claimer: this.self } }
    })
  }

  unpost(messageId: string): void {
    this.tx(() => this.sql('DELETE FROM messages WHERE message_id = ? AND state = \'claimed\' AND claimer_pid = ? AND claimer_start = ?')
      .run(messageId, this.self.pid, this.self.start))
  }

  /** The insertion of {@link post}, inside the caller's transaction. */
  private insert(message: NewMessage): PostOutcome {
    const existing = this.sql('SELECT * FROM messages WHERE message_id = ?').get(message.messageId) as MessageRow | undefined
    if (existing !== undefined) return { ok: true, message: messageOf(existing), duplicate: true }
    const waiting = this.sql('SELECT COUNT(*) AS count FROM messages WHERE target = ? AND state IN (\'pending\', \'claimed\')')
      .get(message.target) as { count: number }
    if (waiting.count >= MAX_WAITING_PER_TARGET) return { ok: false, reason: 'full' }
    const now = this.now()
    this.sql('INSERT INTO messages (message_id, target, sender, hop, mode, text, may_wake, state, created_at, updated_at) '
      + 'VALUES (?, ?, ?, ?, ?, ?, ?, \'pending\', ?, ?)')
      .run(message.messageId, message.target, message.sender, message.hop, message.mode, message.text, message.mayWake ? 1 : 0, now, now)
    const stored = this.sql('SELECT * FROM messages WHERE message_id = ?').get(message.messageId) as unknown as MessageRow
    return { ok: true, message: messageOf(stored), duplicate: false }
  }

  claim(sessionId: string): StoredMessage[] {
    return this.tx(() => {
      const row = this.row(sessionId)
      if (row?.state !== 'live' || !sameTag(holderTag(row), this.self)) return []
      // A notice past its expiry is never delivered (docs/architecture.md §8, "Notices").
      this.sql('UPDATE messages SET state = \'refused\', reason = \'expired\', claimer_pid = NULL, claimer_start = NULL, updated_at = ? '
        + 'WHERE target = ? AND state = \'pending\' AND expires_at < ?').run(this.now(), sessionId, this.now())
      const rows = this.sql('SELECT * FROM messages WHERE target = ? AND state IN (\'pending\', \'claimed\') ORDER BY n')
        .all(sessionId) as unknown as MessageRow[]
      // Never this process's own claims: those are in flight here (admitted, awaiting their record).
      const mine = rows.filter(message => message.state === 'pending'
        || !this.alive({ pid: message.claimer_pid ?? 0, start: message.claimer_start ?? 0 }))
      const update = this.sql('UPDATE messages SET state = \'claimed\', claimed = 1, claimer_pid = ?, claimer_start = ?, updated_at = ? '
        + 'WHERE n = ?')
      for (const message of mine) update.run(this.self.pid, this.self.start, this.now(), message.n)
      return mine.map(message => messageOf({ ...message, state: 'claimed', claimer_pid: this.self.pid, claimer_start: this.self.start }))
    })
  }

  protected mine(messageId: string, sql: string, ...params: Array<string | number | null>): boolean {
    return this.tx(() => this.mineIn(messageId, sql, ...params))
  }

  /** A transition of a claim of this process, inside the caller's transaction. */
  private mineIn(messageId: string, sql: string, ...params: Array<string | number | null>): boolean {
    return Number(this.sql(`UPDATE messages SET ${sql}, updated_at = ? WHERE message_id = ? AND state = 'claimed' `
      + `AND claimer_pid = ? AND claimer_start = ?`)
      .run(...params, this.now(), messageId, this.self.pid, this.self.start).changes) === 1
  }

  record(messageId: string, seq: number, running: boolean): boolean {
    return this.tx(() => this.recordIn({ messageId, seq, running }))
  }

  recordAll(places: readonly LogPlace[], answered?: { readonly sessionId: string, readonly turnEndSeq: number }): void {
    this.tx(() => {
      for (const place of places) this.recordIn(place)
      if (answered !== undefined) this.answeredIn(answered.sessionId, answered.turnEndSeq)
    })
  }

  private recordIn(place: LogPlace): boolean {
    return this.mineIn(place.messageId, 'state = \'recorded\', seq = ?, running = ?', place.seq, place.running ? 1 : 0)
  }

  unclaimAll(): void {
    this.tx(() => this.sql('UPDATE messages SET state = \'pending\', claimer_pid = NULL, claimer_start = NULL, updated_at = ? '
      + 'WHERE state = \'claimed\' AND claimer_pid = ? AND claimer_start = ?').run(this.now(), this.self.pid, this.self.start))
  }

  unclaim(messageId: string): void {
    this.mine(messageId, 'state = \'pending\', claimer_pid = NULL, claimer_start = NULL')
  }

  handBack(messageIds: readonly string[]): void {
    this.tx(() => {
      for (const messageId of messageIds) this.mineIn(messageId, 'state = \'pending\', claimer_pid = NULL, claimer_start = NULL')
    })
  }

  refuse(messageId: string, reason: HolderRefusal): void {
    this.mine(messageId, 'state = \'refused\', reason = ?', reason)
  }

  refuseWaiting(sessionId: string, reason: HolderRefusal): number {
    return this.tx(() => {
      if (this.livingHolder(this.row(sessionId)) !== undefined) return 0
      return Number(this.sql('UPDATE messages SET state = \'refused\', reason = ?, claimer_pid = NULL, claimer_start = NULL, '
        + 'updated_at = ? WHERE target = ? AND state IN (\'pending\', \'claimed\')').run(reason, this.now(), sessionId).changes)
    })
  }

  answered(sessionId: string, turnEndSeq: number): void {
    this.tx(() => this.answeredIn(sessionId, turnEndSeq))
  }

  private answeredIn(sessionId: string, turnEndSeq: number): void {
    for (const table of ['messages', 'traffic'])
      this.sql(`UPDATE ${table} SET answered_seq = ?, updated_at = ? WHERE target = ? AND state = 'recorded' AND answered_seq IS NULL `
        + `AND seq < ?`).run(turnEndSeq, this.now(), sessionId, turnEndSeq)
  }

  takeUnanswered(sessionId: string): StoredMessage[] {
    return this.tx(() => {
      const rows = this.sql('SELECT * FROM messages WHERE target = ? AND state = \'recorded\' AND answered_seq IS NULL '
        + 'AND reoffered = 0 ORDER BY n').all(sessionId) as unknown as MessageRow[]
      for (const row of rows) this.sql('UPDATE messages SET reoffered = 1, updated_at = ? WHERE n = ?').run(this.now(), row.n)
      return rows.map(messageOf)
    })
  }

  pendingFor(sessionId: string): StoredMessage[] {
    const rows = this.sql('SELECT * FROM messages WHERE target = ? AND state = \'pending\' ORDER BY n').all(sessionId)
    return (rows as unknown as MessageRow[]).map(messageOf)
  }

  waiting(): Set<string> {
    // Not this process's own claims: those are in flight here, and a claim would not take them again.
    const rows = this.sql('SELECT DISTINCT target FROM messages INDEXED BY messages_waiting WHERE state IN (\'pending\', \'claimed\') '
      + 'AND NOT (state = \'claimed\' AND claimer_pid = ? AND claimer_start = ?)')
      .all(this.self.pid, this.self.start) as Array<{ target: string }>
    return new Set(rows.map(row => row.target))
  }

  heldHere(): string[] {
    const rows = this.sql('SELECT session_id FROM holders WHERE pid = ? AND start = ?')
      .all(this.self.pid, this.self.start) as Array<{ session_id: string }>
    return rows.map(row => row.session_id)
  }

  message(messageId: string): StoredMessage | undefined {
    const row = this.sql('SELECT * FROM messages WHERE message_id = ?').get(messageId) as MessageRow | undefined
    return row === undefined ? undefined : messageOf(row)
  }

  adoptable(): string[] {
    const rows = this.sql(`SELECT DISTINCT m.target AS target, h.pid AS pid, h.start AS start
      FROM messages m LEFT JOIN holders h ON h.session_id = m.target
      WHERE m.state IN ('pending', 'claimed') AND m.may_wake = 1 AND (m.expires_at IS NULL OR m.expires_at >= ?)`)
      .all(this.now()) as Array<{ target: string, pid: number | null, start: number | null }>
    return rows.filter(row => this.livingHolder(row as unknown as HolderRow) === undefined).map(row => row.target)
  }

  sweep(now: number, retainMs: number): number {
    return this.tx(() => {
      const dropped = this.sql('DELETE FROM messages WHERE state IN (\'recorded\', \'refused\') AND updated_at < ?').run(now - retainMs)
      // Decided held messages and the journal of local deliveries: the traffic view's history, kept as long.
      this.sql('DELETE FROM approvals WHERE state <> \'held\' AND decided_at < ?').run(now - retainMs)
      this.sql('DELETE FROM traffic WHERE updated_at < ?').run(now - retainMs)
      for (const row of this.sql('SELECT pid, start FROM processes').all() as Array<{ pid: number, start: number }>) {
        if (!this.alive(row)) this.sql('DELETE FROM processes WHERE pid = ? AND start = ?').run(row.pid, row.start)
      }
      this.sql('DELETE FROM holders WHERE pid IS NULL AND (let_go_at IS NULL OR let_go_at < ?)').run(now - FREE_HOLDER_RETAIN_MS)
      return Number(dropped.changes)
    })
  }
}
