/**
 * The notice half of the PostgreSQL store (docs/architecture.md §8
 * "Notices" and "Several machines"): watches, and the one transaction that
 * turns a watch into a notice message for its sender or drops it — the
 * transitions of `home/store-notices.ts`, with the same outcomes and the
 * same checks in the same order, each one transaction.
 *
 * A notice is a message to the sender: the sender's holder row is locked
 * before it is posted (`PgConnection.lockSession`), as for any post.
 *
 * @module dsh-cross-session/home/pg/pg-notices
 */

import type { HolderRefusal } from '../../ports.js'
import type { NewWatch, StoredWatch, WatchDrop, WatchedTurnEnd } from '../store.js'
import { MAX_WAITING_PER_TARGET } from '../store-messages.js'
import { noticeIdOf, watchOf, type WatchRow } from '../store-notices.js'
import { PgMessageReads } from './pg-message-reads.js'
import type { Query } from './pg-tx.js'

/** Window of the notice pair rate, ms (as `home/store-notices.ts`). */
const NOTICE_RATE_WINDOW_MS = 60_000

/** A `watches` row as `pg@8` returns it (`bigint` as text), as the SQLite store's {@link WatchRow}. */
type PgWatchRow = Omit<WatchRow, 'may_wake' | 'created_at' | 'expires_at'> & {
  readonly may_wake: boolean
  readonly created_at: string
  readonly expires_at: string
  /** The machine of the process that registered the watch: the sender's, which its notice is for. */
  readonly machine: string
}

/** A row as the port's watch, through the SQLite store's own mapping. */
function pgWatchOf(row: PgWatchRow): StoredWatch {
  return watchOf({ ...row, may_wake: row.may_wake ? 1 : 0, created_at: Number(row.created_at), expires_at: Number(row.expires_at) })
}

/** The watch transitions on PostgreSQL. */
export class PgNotices extends PgMessageReads {
  async watch(watch: NewWatch): Promise<StoredWatch> {
    return await this.tx(async query => {
      const now = this.now()
      await query(`INSERT INTO ${this.s}.watches
        (message_id, sender, target, hop, may_wake, max_hops, per_minute, state, created_at, expires_at, updated_at, machine)
        VALUES ($1, $2, $3, $4, $5, $6, $7, 'watching', $8, $9, $8, $10) ON CONFLICT (message_id) DO NOTHING`,
      [watch.messageId, watch.sender, watch.target, watch.hop, watch.mayWake, watch.maxHops, watch.perMinute, now, watch.expiresAt,
        this.self.machine])
      return pgWatchOf((await this.watchRow(query, watch.messageId))!)
    })
  }

  async unwatch(messageId: string): Promise<void> {
    await this.tx(query => query(`DELETE FROM ${this.s}.watches WHERE message_id = $1 AND state = 'watching'`, [messageId]))
  }

  async watchOf(messageId: string): Promise<StoredWatch | undefined> {
    const row = await this.watchRow(this.read, messageId)
    return row === undefined ? undefined : pgWatchOf(row)
  }

  async watchedTargets(): Promise<Set<string>> {
    const rows = await this.read<{ target: string }>(`SELECT DISTINCT target FROM ${this.s}.watches WHERE state = 'watching'`)
    return new Set(rows.map(row => row.target))
  }

  async watchesOf(target: string): Promise<StoredWatch[]> {
    const rows = await this.read<PgWatchRow>(`SELECT * FROM ${this.s}.watches WHERE target = $1 AND state = 'watching'
      ORDER BY created_at, message_id`, [target])
    return rows.map(pgWatchOf)
  }

  async fireWatch(messageId: string, ended: WatchedTurnEnd): Promise<StoredWatch | undefined> {
    return await this.tx(async query => {
      const peek = await this.watchRow(query, messageId)
      if (peek === undefined) return undefined
      // The notice goes to the sender: its row first, then the watch's (the order every post takes its locks in).
      await this.lockSession(query, peek.sender)
      const row = await this.watchRow(query, messageId, true)
      if (row === undefined) return undefined
      if (row.state !== 'watching') return pgWatchOf(row)
      const now = this.now()
      const drop = await this.dropReason(query, row, ended, now)
      if (drop !== undefined) {
        await query(`UPDATE ${this.s}.watches SET state = 'dropped', reason = $2, turn_end_seq = $3, outcome = $4, updated_at = $5
          WHERE message_id = $1`, [messageId, drop, ended.turnEndSeq, ended.outcome, now])
        return pgWatchOf((await this.watchRow(query, messageId))!)
      }
      const noticeId = noticeIdOf(messageId)
      // A notice never asks for a notice: it is a message row, and only a send registers a watch.
      await query(`INSERT INTO ${this.s}.messages
        (message_id, target, sender, hop, mode, text, may_wake, state, created_at, updated_at, notice, expires_at, for_machine)
        VALUES ($1, $2, $3, $4, 'queue', $5, $6, 'pending', $7, $7, $8, $9, $10) ON CONFLICT (message_id) DO NOTHING`,
      [noticeId, row.sender, row.target, row.hop + 1, ended.text, row.may_wake, now, ended.outcome, row.expires_at, row.machine])
      await query(`UPDATE ${this.s}.watches SET state = 'noticed', notice_id = $2, turn_end_seq = $3, outcome = $4, updated_at = $5
        WHERE message_id = $1`, [messageId, noticeId, ended.turnEndSeq, ended.outcome, now])
      return pgWatchOf((await this.watchRow(query, messageId))!)
    })
  }

  async dropWatchesOf(sender: string, reason: WatchDrop): Promise<number> {
    return await this.tx(async query => (await query(`UPDATE ${this.s}.watches SET state = 'dropped', reason = $2, updated_at = $3
      WHERE sender = $1 AND state = 'watching' RETURNING 1`, [sender, reason, this.now()])).length)
  }

  override async refuseWaiting(sessionId: string, reason: HolderRefusal): Promise<number> {
    const refused = await super.refuseWaiting(sessionId, reason)
    // A deleted session asks for nothing more, and no turn of it will end: its watches, and those on it, go with it.
    if (reason === 'target-gone') {
      await this.dropWatchesOf(sessionId, 'sender-gone')
      await this.tx(query => query(`UPDATE ${this.s}.watches SET state = 'dropped', reason = 'target-gone', updated_at = $2
        WHERE target = $1 AND state = 'watching'`, [sessionId, this.now()]))
    }
    return refused
  }

  override async sweep(now: number, retainMs: number): Promise<number> {
    await this.tx(async query => {
      await query(`UPDATE ${this.s}.watches SET state = 'dropped', reason = 'expired', updated_at = $1
        WHERE state = 'watching' AND expires_at < $1`, [now])
      await query(`UPDATE ${this.s}.messages SET state = 'refused', reason = 'expired', updated_at = $1
        WHERE state = 'pending' AND expires_at < $1`, [now])
      await query(`DELETE FROM ${this.s}.watches WHERE state IN ('noticed', 'dropped') AND updated_at < $1`, [now - retainMs])
    })
    return await super.sweep(now, retainMs)
  }

  private async watchRow(query: Query, messageId: string, lock = false): Promise<PgWatchRow | undefined> {
    const rows = await query<PgWatchRow>(`SELECT * FROM ${this.s}.watches WHERE message_id = $1${lock ? ' FOR UPDATE' : ''}`, [messageId])
    return rows[0]
  }

  /** Why a watch that saw its turn end posts no notice, if it does not (checked in `home/store-notices.ts`'s order). */
  private async dropReason(query: Query, row: PgWatchRow, ended: WatchedTurnEnd, now: number): Promise<WatchDrop | undefined> {
    if (Number(row.expires_at) < now) return 'expired'
    if (ended.answeredBySend) return 'answered-by-send'
    if (row.hop + 1 > row.max_hops) return 'hop-limit'
    const [recent] = await query<{ count: string }>(`SELECT count(*) AS count FROM ${this.s}.messages WHERE sender = $1 AND target = $2
      AND notice IS NOT NULL AND created_at > $3`, [row.target, row.sender, now - NOTICE_RATE_WINDOW_MS])
    if (Number(recent!.count) >= row.per_minute) return 'pair-rate'
    const [waiting] = await query<{ count: string }>(`SELECT count(*) AS count FROM ${this.s}.messages WHERE target = $1
      AND state IN ('pending', 'claimed')`, [row.sender])
    if (Number(waiting!.count) >= MAX_WAITING_PER_TARGET) return 'full'
    return undefined
  }
}
