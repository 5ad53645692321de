/**
 * The approval half of the home store in SQLite (`src/ports/approvals.ts`): a
 * session's own inbound choice, messages held for its user, the journal of
 * local deliveries, and the traffic view over all of them. Each method is
 * one `BEGIN IMMEDIATE` transaction (`home/store-connection.ts`), so two
 * processes deciding on one held message never both win, and a process
 * killed mid-decision leaves it held.
 *
 * @module dsh-cross-session/home/store-approvals
 */

import type { InboundMode } from '../settings/resolve.js'
import { MAX_HELD_PER_TARGET, type Approval, type ApprovalDecision, type ApprovalStore, type DecideOutcome, type HoldForApprovalOutcome,
  type LocalDelivery, type NewApproval, type TrafficRow, type TrafficState } from '../ports.js'
import { MAX_WAITING_PER_TARGET } from './store-messages.js'
import { StoreNotices } from './store-notices.js'

/** An `approvals` row as read. */
export interface ApprovalRow {
  readonly n: number
  readonly message_id: string
  readonly target: string
  readonly sender: string
  readonly sender_title: string
  readonly hop: number
  readonly mode: 'queue' | 'steer'
  readonly text: string
  readonly body: string
  readonly may_wake: number
  readonly notify: number
  readonly state: Exclude<Approval['state'], 'withdrawn'>
  readonly created_at: number
  readonly expires_at: number
  readonly decided_at: number | null
  readonly reason: string | null
}

/** A row as the port's {@link Approval} (the PostgreSQL store reads its rows through it too). */
export function approvalOf(row: ApprovalRow): Approval {
  return {
    order: row.n, messageId: row.message_id, target: row.target, sender: row.sender, senderTitle: row.sender_title, hop: row.hop,
    mode: row.mode, text: row.text, body: row.body, mayWake: row.may_wake === 1, notify: row.notify === 1,
    // Stored `refused` with reason `withdrawn` (home/store-withdraw.ts): the port names it.
    state: row.state === 'refused' && row.reason === 'withdrawn' ? 'withdrawn' : row.state,
    createdAt: row.created_at, expiresAt: row.expires_at, ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
  }
}

export const INBOUND_MODES: readonly string[] = ['accept', 'hold', 'refuse']

/** One traffic row of the union query. */
export interface TrafficSqlRow {
  readonly message_id: string
  readonly sender: string
  readonly target: string
  readonly mode: 'queue' | 'steer'
  readonly hop: number
  readonly at: number
  readonly state: string
  readonly seq: number | null
  readonly answered_seq: number | null
  readonly expires_at: number | null
  readonly reason: string | null
  readonly notice: string | null
}

function trafficState(row: TrafficSqlRow): TrafficState {
  if (row.state === 'claimed') return 'pending'
  if (row.state === 'recorded') return row.answered_seq === null ? 'recorded' : 'answered'
  if (row.state === 'refused' && row.reason === 'withdrawn') return 'withdrawn'
  return row.state as TrafficState
}

/** A row of the union query as the port's {@link TrafficRow}. */
export function trafficRowOf(row: TrafficSqlRow): TrafficRow {
  return {
    messageId: row.message_id, sender: row.sender, target: row.target, mode: row.mode, hop: row.hop, at: row.at, state: trafficState(row),
    ...(row.seq === null ? {} : { seq: row.seq }),
    ...(row.answered_seq === null ? {} : { answeredSeq: row.answered_seq }),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.notice === null ? {} : { notice: true }),
  }
}

/** Approval transitions over one connection. */
export class StoreApprovals extends StoreNotices implements ApprovalStore {
  inboundOf(sessionId: string): InboundMode | undefined {
    const row = this.sql('SELECT mode FROM inbound WHERE session_id = ?').get(sessionId) as { mode: string } | undefined
    return row !== undefined && INBOUND_MODES.includes(row.mode) ? row.mode as InboundMode : undefined
  }

  setInbound(sessionId: string, mode: InboundMode | undefined): void {
    this.tx(() => {
      if (mode === undefined) this.sql('DELETE FROM inbound WHERE session_id = ?').run(sessionId)
      else this.sql('INSERT INTO inbound (session_id, mode, updated_at) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE '
        + 'SET mode = excluded.mode, updated_at = excluded.updated_at').run(sessionId, mode, this.now())
    })
  }

  holdForApproval(approval: NewApproval): HoldForApprovalOutcome {
    return this.tx(() => {
      const existing = this.approvalRow(approval.messageId)
      if (existing !== undefined) return { ok: true, approval: approvalOf(existing), duplicate: true }
      const held = this.sql('SELECT COUNT(*) AS count FROM approvals WHERE target = ? AND state = \'held\'')
        .get(approval.target) as { count: number }
      if (held.count >= MAX_HELD_PER_TARGET) return { ok: false, reason: 'full' }
      this.sql(`INSERT INTO approvals
        (message_id, target, sender, sender_title, hop, mode, text, body, may_wake, notify, state, created_at, expires_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'held', ?, ?)`)
        .run(approval.messageId, approval.target, approval.sender, approval.senderTitle, approval.hop, approval.mode, approval.text,
          approval.body,
          approval.mayWake ? 1 : 0, approval.notify ? 1 : 0, this.now(), approval.expiresAt)
      return { ok: true, approval: approvalOf(this.approvalRow(approval.messageId)!), duplicate: false }
    })
  }

  approvals(now: number, target?: string): Approval[] {
    const rows = target === undefined
      ? this.sql('SELECT * FROM approvals WHERE state = \'held\' AND expires_at > ? ORDER BY n').all(now)
      : this.sql('SELECT * FROM approvals WHERE state = \'held\' AND target = ? AND expires_at > ? ORDER BY n').all(target, now)
    return (rows as unknown as ApprovalRow[]).map(approvalOf)
  }

  approval(messageId: string): Approval | undefined {
    const row = this.approvalRow(messageId)
    return row === undefined ? undefined : approvalOf(row)
  }

  decide(messageId: string, decision: ApprovalDecision, now: number): DecideOutcome {
    return this.tx(() => {
      const row = this.approvalRow(messageId)
      if (row === undefined) return { ok: false, reason: 'unknown' }
      if (row.state !== 'held') return { ok: false, reason: 'stale', approval: approvalOf(row) }
      if (row.expires_at <= now) {
        this.sql('UPDATE approvals SET state = \'expired\', decided_at = ? WHERE n = ?').run(now, row.n)
        return { ok: false, reason: 'stale', approval: approvalOf({ ...row, state: 'expired', decided_at: now }) }
      }
      if (decision === 'deliver') {
        // First in, first out per sender→target: an earlier message of this sender still held for this target is decided first.
        const earlier = this.sql('SELECT 1 FROM approvals WHERE target = ? AND sender = ? AND state = \'held\' '
          + 'AND expires_at > ? AND n < ? LIMIT 1').get(row.target, row.sender, now, row.n)
        if (earlier !== undefined) return { ok: false, reason: 'earlier-held', approval: approvalOf(row) }
        const waiting = this.sql('SELECT COUNT(*) AS count FROM messages WHERE target = ? AND state IN (\'pending\', \'claimed\')')
          .get(row.target) as { count: number }
        if (waiting.count >= MAX_WAITING_PER_TARGET) return { ok: false, reason: 'full', approval: approvalOf(row) }
        // Into `messages` as the sender would have posted it, in this same transaction: delivered exactly once, by
        // whichever process holds the target.
        this.sql('INSERT OR IGNORE INTO messages (message_id, target, sender, hop, mode, text, may_wake, state, created_at, updated_at) '
          + 'VALUES (?, ?, ?, ?, ?, ?, ?, \'pending\', ?, ?)')
          .run(row.message_id, row.target, row.sender, row.hop, row.mode, row.text, row.may_wake, row.created_at, now)
      }
      const state = decision === 'deliver' ? 'delivered' : 'refused'
      this.sql('UPDATE approvals SET state = ?, decided_at = ? WHERE n = ?').run(state, now, row.n)
      return { ok: true, approval: approvalOf({ ...row, state, decided_at: now }) }
    })
  }

  expireApprovals(now: number): Approval[] {
    // A read first: every process asks on every tick, and almost always nothing expired.
    if (this.sql('SELECT 1 FROM approvals WHERE state = \'held\' AND expires_at <= ? LIMIT 1').get(now) === undefined) return []
    return this.tx(() => {
      const rows = this.sql('SELECT * FROM approvals WHERE state = \'held\' AND expires_at <= ? ORDER BY n')
        .all(now) as unknown as ApprovalRow[]
      for (const row of rows) this.sql('UPDATE approvals SET state = \'expired\', decided_at = ? WHERE n = ?').run(now, row.n)
      return rows.map(row => approvalOf({ ...row, state: 'expired', decided_at: now }))
    })
  }

  journal(entry: LocalDelivery): void {
    this.tx(() => {
      const now = this.now()
      this.sql(`INSERT INTO traffic (message_id, target, sender, hop, mode, state, seq, reason, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (message_id) DO UPDATE SET state = excluded.state, seq = excluded.seq, updated_at = excluded.updated_at`)
        .run(entry.messageId, entry.target, entry.sender, entry.hop, entry.mode, entry.state, entry.seq ?? null,
          entry.reason ?? null, now, now)
    })
  }

  traffic(limit: number): TrafficRow[] {
    const rows = this.sql(`SELECT * FROM (
        SELECT message_id, sender, target, mode, hop, created_at AS at, state, seq, answered_seq, NULL AS expires_at, reason,
          NULL AS notice FROM traffic
        UNION ALL SELECT message_id, sender, target, mode, hop, created_at, state, seq, answered_seq, NULL, reason, notice
          FROM messages
        UNION ALL SELECT message_id, sender, target, mode, hop, created_at, state, NULL, NULL, expires_at,
          CASE state WHEN 'refused' THEN COALESCE(reason, 'user') ELSE NULL END, NULL
          FROM approvals WHERE state <> 'delivered')
      ORDER BY at DESC LIMIT ?`).all(limit) as unknown as TrafficSqlRow[]
    return rows.map(trafficRowOf)
  }

  private approvalRow(messageId: string): ApprovalRow | undefined {
    return this.sql('SELECT * FROM approvals WHERE message_id = ?').get(messageId) as ApprovalRow | undefined
  }
}
