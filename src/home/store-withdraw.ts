/**
 * The withdraw half of the home store in SQLite (`model/withdraw.ts`): one
 * `BEGIN IMMEDIATE` transaction (`home/store-connection.ts`) that reads
 * where the message is and, only when it is still waiting, marks it
 * withdrawn, so a withdraw and a claim (or the user's Deliver) never both
 * win: whichever takes the write lock first decides.
 *
 * Stored as: a `messages` row `refused` with reason `withdrawn` (no claim,
 * sweep or re-offer ever takes a refused row), an `approvals` row
 * `refused` with reason `withdrawn` (never listed as held, never
 * decidable). A message any holder ever claimed is never withdrawn, whether
 * its claimer is alive, dead, or let the session go and handed the claim
 * back (`pending` again, `claimed = 1`): it may be in the target's log
 * already, and its next holder finds it there.
 *
 * @module dsh-cross-session/home/store-withdraw
 */

import { StoreApprovals } from './store-approvals.js'
import { matchesSend, type Whereabouts, type WithdrawOutcome, type WithdrawWhich } from '../model/withdraw.js'
import type { WithdrawStore } from '../ports.js'

/** The reason a withdrawn row keeps (`messages.reason`, `approvals.reason`). */
export const WITHDRAWN = 'withdrawn'

/** The columns the tables share, as read. */
export interface Row {
  sender: string
  target: string
  state: string
  seq: number | null
  answered_seq: number | null
  reason: string | null
}

/** A message's row in each table that may hold it, as read inside the transaction. */
export interface Found {
  readonly message?: Row & { n: number, claimed: number, claimer_pid: number | null, updated_at: number }
  readonly approval?: Pick<Row, 'sender' | 'target' | 'state' | 'reason'> & { n: number, expires_at: number, decided_at: number | null }
  readonly local?: Row
}

/** Where a message is that is no longer waiting, from its rows. */
function whereabouts(found: Found): Whereabouts {
  const row = found.message ?? found.local
  if (row !== undefined) {
    if (row.state === 'recorded' && row.seq !== null)
      return { kind: 'recorded', seq: row.seq, ...(row.answered_seq === null ? {} : { answeredSeq: row.answered_seq }) }
    if (found.message?.state === 'claimed') return { kind: 'claimed', pid: found.message.claimer_pid ?? 0 }
    if (row.state === 'refused') return { kind: 'refused', reason: row.reason ?? 'unknown' }
    if (found.message?.state === 'pending') return { kind: 'handed-back' }
    return { kind: 'delivered-here' }
  }
  if (found.approval?.state === 'expired') return { kind: 'expired' }
  return { kind: 'refused', reason: 'user' }
}

/** What a withdraw writes (none, or one row by its `n`, at `at`) and answers. */
export type WithdrawStep = { readonly write: 'none', readonly outcome: WithdrawOutcome } | RowWrite

/** A withdraw that writes one row. */
interface RowWrite {
  readonly write: 'withdraw-pending' | 'withdraw-held' | 'expire-held'
  readonly n: number
  readonly at: number
  readonly outcome: WithdrawOutcome
}

/**
 * The withdraw's decision from the rows that hold `messageId` (pure; both stores act on it, `home/pg/pg-withdraw.ts`
 * too): withdrawn before gives the same answer again; `pending` and never claimed, or `held` and not past its expiry,
 * is withdrawn; `held` past its expiry expires, as a decision would (`decide`); anything else is too late, with where.
 */
export function withdrawStep(found: Found, messageId: string, target: string, now: number): WithdrawStep {
  const { message, approval } = found
  if (message?.state === 'refused' && message.reason === WITHDRAWN)
    return { write: 'none', outcome: { ok: true, messageId, target, was: 'pending', at: message.updated_at } }
  if (message === undefined && approval?.state === 'refused' && approval.reason === WITHDRAWN)
    return { write: 'none', outcome: { ok: true, messageId, target, was: 'held', at: approval.decided_at ?? now } }
  if (message?.state === 'pending' && message.claimed === 0)
    return { write: 'withdraw-pending', n: message.n, at: now, outcome: { ok: true, messageId, target, was: 'pending', at: now } }
  if (message === undefined && approval?.state === 'held') {
    const expired: WithdrawOutcome = { ok: false, reason: 'too-late', messageId, target, where: { kind: 'expired' } }
    return approval.expires_at <= now
      ? { write: 'expire-held', n: approval.n, at: now, outcome: expired }
      : { write: 'withdraw-held', n: approval.n, at: now, outcome: { ok: true, messageId, target, was: 'held', at: now } }
  }
  return { write: 'none', outcome: { ok: false, reason: 'too-late', messageId, target, where: whereabouts(found) } }
}

/** Withdraw over one connection. */
export class StoreWithdraw extends StoreApprovals implements WithdrawStore {
  withdraw(sender: string, which: WithdrawWhich): WithdrawOutcome {
    return this.tx(() => {
      const messageId = 'messageId' in which ? which.messageId : this.newestSent(sender, which.target, which.digests)
      const found = messageId === undefined ? {} : this.found(messageId)
      const any = found.message ?? found.approval ?? found.local
      if (messageId === undefined || any === undefined || any.sender !== sender) return { ok: false, reason: 'unknown' }
      const step = withdrawStep(found, messageId, any.target, this.now())
      if (step.write === 'withdraw-pending') {
        this.sql('UPDATE messages SET state = \'refused\', reason = ?, claimer_pid = NULL, claimer_start = NULL, updated_at = ? '
          + 'WHERE n = ?').run(WITHDRAWN, step.at, step.n)
      } else if (step.write === 'expire-held') {
        this.sql('UPDATE approvals SET state = \'expired\', decided_at = ? WHERE n = ?').run(step.at, step.n)
      } else if (step.write === 'withdraw-held') {
        this.sql('UPDATE approvals SET state = \'refused\', reason = ?, decided_at = ? WHERE n = ?').run(WITHDRAWN, step.at, step.n)
      }
      if (step.write === 'withdraw-pending' || step.write === 'withdraw-held') this.dropWatch(messageId, step.at)
      return step.outcome
    })
  }

  /** The rows that hold `messageId`. */
  private found(messageId: string): Found {
    const message = this.sql('SELECT n, sender, target, state, claimed, claimer_pid, seq, answered_seq, reason, updated_at '
      + 'FROM messages WHERE message_id = ?').get(messageId) as Found['message']
    const approval = this.sql('SELECT n, sender, target, state, reason, expires_at, decided_at FROM approvals WHERE message_id = ?')
      .get(messageId) as Found['approval']
    const local = this.sql('SELECT sender, target, state, seq, answered_seq, reason FROM traffic WHERE message_id = ?')
      .get(messageId) as Found['local']
    return { ...(message === undefined ? {} : { message }), ...(approval === undefined ? {} : { approval }),
      ...(local === undefined ? {} : { local }) }
  }

  /** The newest message `sender` sent to `target` with one of `digests`, in any table (a repeated send of the same text: the newest). */
  private newestSent(sender: string, target: string, digests: readonly string[]): string | undefined {
    // Two sends in one millisecond: the later posting number (per table) is the newer.
    const rows = this.sql(`SELECT message_id, created_at, n FROM messages WHERE sender = ? AND target = ?
      UNION ALL SELECT message_id, created_at, n FROM approvals WHERE sender = ? AND target = ?
      UNION ALL SELECT message_id, created_at, n FROM traffic WHERE sender = ? AND target = ?
      ORDER BY created_at DESC, n DESC`).all(sender, target, sender, target, sender, target) as Array<{ message_id: string }>
    return rows.find(row => matchesSend(row.message_id, sender, digests))?.message_id
  }

  /** Its notice request goes too: no turn will take the message. */
  private dropWatch(messageId: string, now: number): void {
    this.sql('UPDATE watches SET state = \'dropped\', reason = ?, updated_at = ? WHERE message_id = ? AND state = \'watching\'')
      .run(WITHDRAWN, now, messageId)
  }
}
