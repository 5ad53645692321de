/**
 * The withdraw half of the PostgreSQL store (`model/withdraw.ts`,
 * docs/architecture.md §8 "Several machines"): the one transaction of
 * `home/store-withdraw.ts`, with the same outcomes and the same stored
 * forms (a row `refused` with reason `withdrawn`).
 *
 * A withdraw and a claim (or the user's Deliver) never both win: the
 * withdraw locks the target's holder row (`PgConnection.lockSession`), as a
 * claim and a decision do, and then reads where the message is.
 *
 * @module dsh-cross-session/home/pg/pg-withdraw
 */

import type { WithdrawOutcome, WithdrawWhich } from '../../model/withdraw.js'
import { matchesSend } from '../../model/withdraw.js'
import { withdrawStep, WITHDRAWN, type Found } from '../store-withdraw.js'
import { PgApprovals } from './pg-approvals.js'
import type { Query } from './pg-tx.js'

/** A `messages` row as {@link Found} reads it, as `pg@8` returns it (`bigint` as text). */
interface PgFoundMessage {
  readonly n: string
  readonly sender: string
  readonly target: string
  readonly state: string
  readonly claimed: boolean
  readonly claimer_pid: number | null
  readonly seq: number | null
  readonly answered_seq: number | null
  readonly reason: string | null
  readonly updated_at: string
}

/** An `approvals` row as {@link Found} reads it, as `pg@8` returns it. */
interface PgFoundApproval {
  readonly n: string
  readonly sender: string
  readonly target: string
  readonly state: string
  readonly reason: string | null
  readonly expires_at: string
  readonly decided_at: string | null
}

/** Withdraw on PostgreSQL. */
export class PgWithdraw extends PgApprovals {
  async withdraw(sender: string, which: WithdrawWhich): Promise<WithdrawOutcome> {
    return await this.tx(async query => {
      const messageId = 'messageId' in which ? which.messageId : await this.newestSent(query, sender, which.target, which.digests)
      const peek = messageId === undefined ? {} : await this.found(query, messageId, false)
      const seen = peek.message ?? peek.approval ?? peek.local
      if (messageId === undefined || seen === undefined || seen.sender !== sender) return { ok: false, reason: 'unknown' }
      const target = seen.target
      await this.lockSession(query, target)
      const found = await this.found(query, messageId, true)
      const step = withdrawStep(found, messageId, target, this.now())
      if (step.write === 'withdraw-pending') {
        await query(`UPDATE ${this.s}.messages SET state = 'refused', reason = $2, claimer_machine = NULL, claimer_pid = NULL,
          claimer_start = NULL, updated_at = $3 WHERE n = $1`, [step.n, WITHDRAWN, step.at])
      } else if (step.write === 'expire-held') {
        await query(`UPDATE ${this.s}.approvals SET state = 'expired', decided_at = $2 WHERE n = $1`, [step.n, step.at])
      } else if (step.write === 'withdraw-held') {
        await query(`UPDATE ${this.s}.approvals SET state = 'refused', reason = $2, decided_at = $3 WHERE n = $1`,
          [step.n, WITHDRAWN, step.at])
      }
      if (step.write === 'withdraw-pending' || step.write === 'withdraw-held') await this.dropWatch(query, messageId, step.at)
      return step.outcome
    })
  }

  /** The rows that hold `messageId` (locked when `lock`), as the SQLite store reads them. */
  private async found(query: Query, messageId: string, lock: boolean): Promise<Found> {
    const forUpdate = lock ? ' FOR UPDATE' : ''
    const [message] = await query<PgFoundMessage>(`SELECT n, sender, target, state, claimed, claimer_pid, seq, answered_seq, reason,
      updated_at FROM ${this.s}.messages WHERE message_id = $1${forUpdate}`, [messageId])
    const [approval] = await query<PgFoundApproval>(`SELECT n, sender, target, state, reason, expires_at, decided_at
      FROM ${this.s}.approvals WHERE message_id = $1${forUpdate}`, [messageId])
    const [local] = await query<NonNullable<Found['local']>>(`SELECT sender, target, state, seq, answered_seq, reason
      FROM ${this.s}.traffic WHERE message_id = $1`, [messageId])
    return {
      ...(message === undefined ? {} : { message: { ...message, n: Number(message.n), claimed: message.claimed ? 1 : 0,
        updated_at: Number(message.updated_at) } }),
      ...(approval === undefined ? {} : { approval: { ...approval, n: Number(approval.n), expires_at: Number(approval.expires_at),
        decided_at: approval.decided_at === null ? null : Number(approval.decided_at) } }),
      ...(local === undefined ? {} : { local }),
    }
  }

  /** The newest message `sender` sent to `target` with one of `digests`, in any table. */
  private async newestSent(query: Query, sender: string, target: string, digests: readonly string[]): Promise<string | undefined> {
    // Two sends in one millisecond: the later posting number (per table) is the newer.
    const rows = await query<{ message_id: string }>(`SELECT message_id, created_at, n FROM ${this.s}.messages
      WHERE sender = $1 AND target = $2
      UNION ALL SELECT message_id, created_at, n FROM ${this.s}.approvals WHERE sender = $1 AND target = $2
      UNION ALL SELECT message_id, created_at, n FROM ${this.s}.traffic WHERE sender = $1 AND target = $2
      ORDER BY created_at DESC, n DESC`, [sender, target])
    return rows.find(row => matchesSend(row.message_id, sender, digests))?.message_id
  }

  /** Its notice request goes too: no turn will take the message. */
  private async dropWatch(query: Query, messageId: string, now: number): Promise<void> {
    await query(`UPDATE ${this.s}.watches SET state = 'dropped', reason = $2, updated_at = $3
      WHERE message_id = $1 AND state = 'watching'`, [messageId, WITHDRAWN, now])
  }
}
