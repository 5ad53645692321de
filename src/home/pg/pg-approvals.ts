/**
 * The approval half of the PostgreSQL store (`src/ports/approvals.ts`,
 * docs/architecture.md §8 "Several machines"): a session's own inbound
 * choice, messages held for its user, the journal of local deliveries, and
 * the traffic view — the transitions of `home/store-approvals.ts`, with the
 * same outcomes, each one transaction.
 *
 * A held message and the target's waiting messages are decided on under
 * the target's holder row lock (`PgConnection.lockSession`), then the held
 * row's own (`FOR UPDATE`): two processes deciding on one held message
 * never both win, and a Deliver posts in the target's posting order.
 *
 * @module dsh-cross-session/home/pg/pg-approvals
 */

import type { InboundMode } from '../../settings/resolve.js'
import { MAX_HELD_PER_TARGET, type Approval, type ApprovalDecision, type DecideOutcome, type HoldForApprovalOutcome,
  type LocalDelivery, type NewApproval, type TrafficRow } from '../../ports.js'
import { approvalOf, INBOUND_MODES, trafficRowOf, type ApprovalRow, type TrafficSqlRow } from '../store-approvals.js'
import { MAX_WAITING_PER_TARGET } from '../store-messages.js'
import { PgNotices } from './pg-notices.js'
import type { Query } from './pg-tx.js'

/** An `approvals` row as `pg@8` returns it (`bigint` as text, booleans as booleans). */
type PgApprovalRow = Omit<ApprovalRow, 'n' | 'may_wake' | 'notify' | 'created_at' | 'expires_at' | 'decided_at'> & {
  readonly n: string
  readonly may_wake: boolean
  readonly notify: boolean
  readonly created_at: string
  readonly expires_at: string
  readonly decided_at: string | null
}

/** A row as the port's approval, through the SQLite store's own mapping. */
function pgApprovalOf(row: PgApprovalRow): Approval {
  return approvalOf({ ...row, n: Number(row.n), may_wake: row.may_wake ? 1 : 0, notify: row.notify ? 1 : 0,
    created_at: Number(row.created_at), expires_at: Number(row.expires_at),
    decided_at: row.decided_at === null ? null : Number(row.decided_at) })
}

/** The approval transitions on PostgreSQL. */
export class PgApprovals extends PgNotices {
  async inboundOf(sessionId: string): Promise<InboundMode | undefined> {
    const rows = await this.read<{ mode: string }>(`SELECT mode FROM ${this.s}.inbound WHERE session_id = $1`, [sessionId])
    const mode = rows[0]?.mode
    return mode !== undefined && INBOUND_MODES.includes(mode) ? mode as InboundMode : undefined
  }

  async setInbound(sessionId: string, mode: InboundMode | undefined): Promise<void> {
    await this.tx(query => mode === undefined
      ? query(`DELETE FROM ${this.s}.inbound WHERE session_id = $1`, [sessionId])
      : query(`INSERT INTO ${this.s}.inbound (session_id, mode, updated_at) VALUES ($1, $2, $3)
          ON CONFLICT (session_id) DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at`, [sessionId, mode, this.now()]))
  }

  async holdForApproval(approval: NewApproval): Promise<HoldForApprovalOutcome> {
    return await this.tx(async query => {
      await this.lockSession(query, approval.target)
      const existing = await this.approvalRow(query, approval.messageId)
      if (existing !== undefined) return { ok: true, approval: pgApprovalOf(existing), duplicate: true }
      const [held] = await query<{ count: string }>(`SELECT count(*) AS count FROM ${this.s}.approvals
        WHERE target = $1 AND state = 'held'`, [approval.target])
      if (Number(held!.count) >= MAX_HELD_PER_TARGET) return { ok: false, reason: 'full' }
      const [row] = await query<PgApprovalRow>(`INSERT INTO ${this.s}.approvals
        (message_id, target, sender, sender_title, hop, mode, text, body, may_wake, notify, state, created_at, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'held', $11, $12) RETURNING *`,
      [approval.messageId, approval.target, approval.sender, approval.senderTitle, approval.hop, approval.mode, approval.text,
        approval.body, approval.mayWake, approval.notify, this.now(), approval.expiresAt])
      return { ok: true, approval: pgApprovalOf(row!), duplicate: false }
    })
  }

  async approvals(now: number, target?: string): Promise<Approval[]> {
    const rows = await this.tx(query => target === undefined
      ? query<PgApprovalRow>(`SELECT * FROM ${this.s}.approvals WHERE state = 'held' AND expires_at > $1 ORDER BY n`, [now])
      : query<PgApprovalRow>(`SELECT * FROM ${this.s}.approvals WHERE state = 'held' AND target = $2 AND expires_at > $1 ORDER BY n`,
          [now, target]))
    return rows.map(pgApprovalOf)
  }

  async approval(messageId: string): Promise<Approval | undefined> {
    const row = await this.approvalRow(this.read, messageId)
    return row === undefined ? undefined : pgApprovalOf(row)
  }

  async decide(messageId: string, decision: ApprovalDecision, now: number): Promise<DecideOutcome> {
    return await this.tx(async query => {
      const peek = await this.approvalRow(query, messageId)
      if (peek === undefined) return { ok: false, reason: 'unknown' }
      await this.lockSession(query, peek.target)
      const row = (await this.approvalRow(query, messageId, true))!
      if (row.state !== 'held') return { ok: false, reason: 'stale', approval: pgApprovalOf(row) }
      if (Number(row.expires_at) <= now) {
        await query(`UPDATE ${this.s}.approvals SET state = 'expired', decided_at = $2 WHERE n = $1`, [row.n, now])
        return { ok: false, reason: 'stale', approval: pgApprovalOf({ ...row, state: 'expired', decided_at: String(now) }) }
      }
      if (decision === 'deliver') {
        // First in, first out per sender→target: an earlier message of this sender still held for this target is decided first.
        const earlier = await query(`SELECT 1 FROM ${this.s}.approvals WHERE target = $1 AND sender = $2 AND state = 'held'
          AND expires_at > $3 AND n < $4 LIMIT 1`, [row.target, row.sender, now, row.n])
        if (earlier.length > 0) return { ok: false, reason: 'earlier-held', approval: pgApprovalOf(row) }
        const [waiting] = await query<{ count: string }>(`SELECT count(*) AS count FROM ${this.s}.messages WHERE target = $1
          AND state IN ('pending', 'claimed')`, [row.target])
        if (Number(waiting!.count) >= MAX_WAITING_PER_TARGET) return { ok: false, reason: 'full', approval: pgApprovalOf(row) }
        // Into `messages` as the sender would have posted it, in this same transaction: delivered exactly once.
        await query(`INSERT INTO ${this.s}.messages (message_id, target, sender, hop, mode, text, may_wake, state, created_at, updated_at,
          for_machine) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9, $10) ON CONFLICT (message_id) DO NOTHING`,
        [row.message_id, row.target, row.sender, row.hop, row.mode, row.text, row.may_wake, row.created_at, now, this.self.machine])
      }
      const state = decision === 'deliver' ? 'delivered' : 'refused'
      await query(`UPDATE ${this.s}.approvals SET state = $2, decided_at = $3 WHERE n = $1`, [row.n, state, now])
      return { ok: true, approval: pgApprovalOf({ ...row, state, decided_at: String(now) }) }
    })
  }

  async expireApprovals(now: number): Promise<Approval[]> {
    return await this.tx(async query => {
      const rows = await query<PgApprovalRow>(`UPDATE ${this.s}.approvals SET state = 'expired', decided_at = $1
        WHERE state = 'held' AND expires_at <= $1 RETURNING *`, [now])
      return rows.sort((a, b) => Number(a.n) - Number(b.n)).map(pgApprovalOf)
    })
  }

  async journal(entry: LocalDelivery): Promise<void> {
    const now = this.now()
    await this.tx(query => query(`INSERT INTO ${this.s}.traffic
      (message_id, target, sender, hop, mode, state, seq, reason, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
      ON CONFLICT (message_id) DO UPDATE SET state = excluded.state, seq = excluded.seq, updated_at = excluded.updated_at`,
    [entry.messageId, entry.target, entry.sender, entry.hop, entry.mode, entry.state, entry.seq ?? null, entry.reason ?? null, now]))
  }

  async traffic(limit: number): Promise<TrafficRow[]> {
    const rows = await this.read<Omit<TrafficSqlRow, 'at' | 'expires_at'> & { at: string, expires_at: string | null }>(
      `SELECT * FROM (
        SELECT message_id, sender, target, mode, hop, created_at AS at, state, seq, answered_seq, NULL::bigint AS expires_at, reason,
          NULL::text AS notice FROM ${this.s}.traffic
        UNION ALL SELECT message_id, sender, target, mode, hop, created_at, state, seq, answered_seq, NULL, reason, notice
          FROM ${this.s}.messages
        UNION ALL SELECT message_id, sender, target, mode, hop, created_at, state, NULL, NULL, expires_at,
          CASE state WHEN 'refused' THEN COALESCE(reason, 'user') ELSE NULL END, NULL
          FROM ${this.s}.approvals WHERE state <> 'delivered') rows
      ORDER BY at DESC LIMIT $1`, [limit])
    return rows.map(row => trafficRowOf({ ...row, at: Number(row.at),
      expires_at: row.expires_at === null ? null : Number(row.expires_at) }))
  }

  override async sweep(now: number, retainMs: number): Promise<number> {
    // Decided held messages and the journal of local deliveries: the traffic view's history, kept as long as messages.
    await this.tx(async query => {
      await query(`DELETE FROM ${this.s}.approvals WHERE state <> 'held' AND decided_at < $1`, [now - retainMs])
      await query(`DELETE FROM ${this.s}.traffic WHERE updated_at < $1`, [now - retainMs])
    })
    return await super.sweep(now, retainMs)
  }

  protected async approvalRow(query: Query, messageId: string, lock = false): Promise<PgApprovalRow | undefined> {
    const rows = await query<PgApprovalRow>(`SELECT * FROM ${this.s}.approvals WHERE message_id = $1${lock ? ' FOR UPDATE' : ''}`,
      [messageId])
    return rows[0]
  }
}
