/**
 * The message half of the PostgreSQL store (docs/architecture.md §8
 * "Several machines"): post, claim, record, and what follows a message
 * until it is swept — the transitions of `home/store-messages.ts`, with the
 * same outcomes, each one transaction (`home/pg/pg-tx.ts`).
 *
 * Order: every transition that decides on a target's waiting messages
 * (post, claim, refuse what waits) first locks the target's holder row
 * (`PgConnection.lockSession`), so posting numbers for one target are drawn
 * and committed one transaction at a time, and a claim sees them in order.
 * A claim's claimer is alive as `home/pg/lease.ts` judges it.
 *
 * @module dsh-cross-session/home/pg/pg-messages
 */

import type { HolderRefusal } from '../../ports.js'
import type { LogPlace, NewMessage, PostOutcome, StoredMessage } from '../store.js'
import { MAX_WAITING_PER_TARGET } from '../store-messages.js'
import { sameProcess } from './lease.js'
import { namedOf } from './pg-holder-rows.js'
import { UNCLAIMED } from './pg-connection.js'
import { PgHolders } from './pg-holders.js'
import { pgMessageOf, type PgMessageRow } from './pg-message-rows.js'
import type { Query } from './pg-tx.js'

/** A claim of this process (`$1`, `$2`, `$3` its machine, pid and start). */
export const MINE = 'claimer_machine = $1 AND claimer_pid = $2 AND claimer_start = $3'

/** {@link PgMessages.postClaimed} posted nothing: another message for the target waits that this process has not claimed. */
type Behind = { readonly ok: false, readonly reason: 'behind' }

/** The message transitions on PostgreSQL, over the holder half. */
export class PgMessages extends PgHolders {
  async post(message: NewMessage): Promise<PostOutcome> {
    return await this.tx(async query => {
      await this.lockSession(query, message.target)
      return await this.insert(query, message)
    })
  }

  async postClaimed(message: NewMessage, behind: 'wait' | 'jump'): Promise<PostOutcome | Behind> {
    return await this.tx(async query => {
      await this.lockSession(query, message.target)
      if (behind === 'wait') {
        const earlier = await query(`SELECT 1 FROM ${this.s}.messages WHERE target = $4 AND message_id <> $5
          AND (state = 'pending' OR (state = 'claimed' AND NOT (${MINE}))) LIMIT 1`, [...this.mine(), message.target, message.messageId])
        if (earlier.length > 0) return { ok: false, reason: 'behind' } as const
      }
      const posted = await this.insert(query, message)
      if (!posted.ok || posted.duplicate) return posted
      await query(`UPDATE ${this.s}.messages SET state = 'claimed', claimed = true, claimer_machine = $1, claimer_pid = $2,
        claimer_start = $3 WHERE message_id = $4`, [...this.mine(), message.messageId])
      return { ...posted, message: { ...posted.message, state: 'claimed', claimer: this.self } }
    })
  }

  async unpost(messageId: string): Promise<void> {
    await this.tx(query => query(`DELETE FROM ${this.s}.messages WHERE message_id = $4 AND state = 'claimed' AND ${MINE}`,
      [...this.mine(), messageId]))
  }

  /** The insertion of {@link post}, inside the caller's transaction, the target's row locked. */
  private async insert(query: Query, message: NewMessage): Promise<PostOutcome> {
    const [existing] = await query<PgMessageRow>(`SELECT * FROM ${this.s}.messages WHERE message_id = $1`, [message.messageId])
    if (existing !== undefined) return { ok: true, message: pgMessageOf(existing), duplicate: true }
    const [waiting] = await query<{ count: string }>(`SELECT count(*) AS count FROM ${this.s}.messages
      WHERE target = $1 AND state IN ('pending', 'claimed')`, [message.target])
    if (Number(waiting!.count) >= MAX_WAITING_PER_TARGET) return { ok: false, reason: 'full' }
    const now = this.now()
    const [stored] = await query<PgMessageRow>(`INSERT INTO ${this.s}.messages
      (message_id, target, sender, hop, mode, text, may_wake, state, created_at, updated_at, for_machine)
      VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $8, $9) RETURNING *`,
    [message.messageId, message.target, message.sender, message.hop, message.mode, message.text, message.mayWake, now, this.self.machine])
    return { ok: true, message: pgMessageOf(stored!), duplicate: false }
  }

  /** Claim, in posting order, what waits for `sessionId` (pending, or claimed by a dead process), only while this process holds it live. */
  async claim(sessionId: string): Promise<StoredMessage[]> {
    return await this.tx(async query => {
      const row = await this.lockSession(query, sessionId)
      if (row.state !== 'live' || !sameProcess(namedOf(row)?.tag, this.self)) return []
      const now = this.now()
      // A notice past its expiry is never delivered (docs/architecture.md §8, "Notices").
      await query(`UPDATE ${this.s}.messages SET state = 'refused', reason = 'expired', claimer_machine = NULL, claimer_pid = NULL,
        claimer_start = NULL, updated_at = $2 WHERE target = $1 AND state = 'pending' AND expires_at < $2`, [sessionId, now])
      const rows = await query<PgMessageRow & { leased: boolean | null }>(`SELECT m.*, p.lease_until > clock_timestamp() AS leased
        FROM ${this.s}.messages m LEFT JOIN ${this.s}.processes p
          ON p.machine = m.claimer_machine AND p.pid = m.claimer_pid AND p.start = m.claimer_start
        WHERE m.target = $1 AND m.state IN ('pending', 'claimed') ORDER BY m.n`, [sessionId])
      // Never this process's own claims: those are in flight here (admitted, awaiting their record).
      const taken = rows.filter(message => message.state === 'pending' || !this.alive({ leased: message.leased === true,
        tag: { machine: message.claimer_machine ?? '', pid: message.claimer_pid ?? 0, start: Number(message.claimer_start ?? 0) } }))
      if (taken.length === 0) return []
      // Only rows still as read: a dead claimer's commit in flight (a `recordAll` it sent before it died) takes no
      // session lock, so this update may wait for it and must then leave a row it recorded as it is.
      const claimed = new Set((await query<{ n: string }>(`UPDATE ${this.s}.messages SET state = 'claimed', claimed = true,
        claimer_machine = $1, claimer_pid = $2, claimer_start = $3, updated_at = $5
        WHERE n = ANY($4::bigint[]) AND state IN ('pending', 'claimed') RETURNING n`,
      [...this.mine(), taken.map(message => message.n), now])).map(row => row.n))
      const { machine, pid, start } = this.self
      return taken.filter(message => claimed.has(message.n)).map(message => pgMessageOf({ ...message, state: 'claimed',
        claimer_machine: machine, claimer_pid: pid, claimer_start: String(start) }))
    })
  }

  async record(messageId: string, seq: number, running: boolean): Promise<boolean> {
    return await this.tx(query => this.recordIn(query, { messageId, seq, running }))
  }

  async recordAll(places: readonly LogPlace[], answered?: { readonly sessionId: string, readonly turnEndSeq: number }): Promise<void> {
    await this.tx(async query => {
      for (const place of places) await this.recordIn(query, place)
      if (answered !== undefined) await this.answeredIn(query, answered.sessionId, answered.turnEndSeq)
    })
  }

  async unclaimAll(): Promise<void> {
    await this.tx(query => this.returnClaims(query))
  }

  async unclaim(messageId: string): Promise<void> {
    await this.tx(query => this.mineIn(query, messageId, UNCLAIMED))
  }

  async handBack(messageIds: readonly string[]): Promise<void> {
    await this.tx(async query => {
      for (const messageId of messageIds) await this.mineIn(query, messageId, UNCLAIMED)
    })
  }

  async refuse(messageId: string, reason: HolderRefusal): Promise<void> {
    await this.tx(query => this.mineIn(query, messageId, 'state = \'refused\', reason = $6', reason))
  }

  async refuseWaiting(sessionId: string, reason: HolderRefusal): Promise<number> {
    return await this.tx(async query => {
      if (this.livingHolder(await this.lockSession(query, sessionId)) !== undefined) return 0
      const refused = await query(`UPDATE ${this.s}.messages SET state = 'refused', reason = $2, claimer_machine = NULL,
        claimer_pid = NULL, claimer_start = NULL, updated_at = $3 WHERE target = $1 AND state IN ('pending', 'claimed') RETURNING 1`,
      [sessionId, reason, this.now()])
      return refused.length
    })
  }

  async answered(sessionId: string, turnEndSeq: number): Promise<void> {
    await this.tx(query => this.answeredIn(query, sessionId, turnEndSeq))
  }

  async takeUnanswered(sessionId: string): Promise<StoredMessage[]> {
    return await this.tx(async query => {
      const rows = await query<PgMessageRow>(`UPDATE ${this.s}.messages SET reoffered = true, updated_at = $2
        WHERE target = $1 AND state = 'recorded' AND answered_seq IS NULL AND NOT reoffered RETURNING *`, [sessionId, this.now()])
      return rows.sort((a, b) => Number(a.n) - Number(b.n)).map(pgMessageOf)
    })
  }

  /** This process as the first three parameters of {@link MINE}. */
  protected mine(): [string, number, number] {
    return [this.self.machine, this.self.pid, this.self.start]
  }

  /** A transition of a claim of this process (`$4` its id, `$5` the time, `$6`… `set`'s own), inside the caller's transaction. */
  private async mineIn(query: Query, messageId: string, set: string, ...values: unknown[]): Promise<boolean> {
    const changed = await query(`UPDATE ${this.s}.messages SET ${set}, updated_at = $5 WHERE message_id = $4 AND state = 'claimed'
      AND ${MINE} RETURNING 1`, [...this.mine(), messageId, this.now(), ...values])
    return changed.length === 1
  }

  private async recordIn(query: Query, place: LogPlace): Promise<boolean> {
    return await this.mineIn(query, place.messageId, 'state = \'recorded\', seq = $6, running = $7', place.seq, place.running)
  }

  private async answeredIn(query: Query, sessionId: string, turnEndSeq: number): Promise<void> {
    // Messages delivered through the store, and those a process delivered into a session live in itself (`traffic`).
    for (const table of ['messages', 'traffic']) {
      await query(`UPDATE ${this.s}.${table} SET answered_seq = $2, updated_at = $3 WHERE target = $1 AND state = 'recorded'
        AND answered_seq IS NULL AND seq < $2`, [sessionId, turnEndSeq, this.now()])
    }
  }
}
