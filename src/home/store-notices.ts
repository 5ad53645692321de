/**
 * The notice half of the home store in SQLite (the port:
 * `ports/notices.ts`; docs/architecture.md §8, "Notices"): watches, and
 * the one transaction that turns a watch into a notice message for its
 * sender or drops it. Each method is one `BEGIN IMMEDIATE` transaction
 * (`home/store-connection.ts`).
 *
 * @module dsh-cross-session/home/store-notices
 */

import type { NewWatch, StoredWatch, WatchDrop, WatchedTurnEnd, WatchState } from './store.js'
import { MAX_WAITING_PER_TARGET, StoreMessages } from './store-messages.js'
import { noticeOutcomeOf } from './store-rows.js'

/** A `watches` row as read. */
export interface WatchRow {
  readonly message_id: string
  readonly sender: string
  readonly target: string
  readonly hop: number
  readonly may_wake: number
  readonly max_hops: number
  readonly per_minute: number
  readonly state: WatchState
  readonly reason: string | null
  readonly notice_id: string | null
  readonly turn_end_seq: number | null
  readonly outcome: string | null
  readonly created_at: number
  readonly expires_at: number
}

const WATCH_DROPS: ReadonlySet<string> = new Set<WatchDrop>([
  'expired', 'sender-gone', 'target-gone', 'answered-by-send', 'hop-limit', 'pair-rate', 'full', 'withdrawn',
])

/** A `watches` row as the port's {@link StoredWatch}. */
export function watchOf(row: WatchRow): StoredWatch {
  return {
    messageId: row.message_id,
    sender: row.sender,
    target: row.target,
    hop: row.hop,
    mayWake: row.may_wake === 1,
    maxHops: row.max_hops,
    perMinute: row.per_minute,
    expiresAt: row.expires_at,
    state: row.state,
    ...(row.reason === null ? {} : { reason: (WATCH_DROPS.has(row.reason) ? row.reason : 'expired') as WatchDrop }),
    ...(row.notice_id === null ? {} : { noticeId: row.notice_id }),
    ...(row.turn_end_seq === null ? {} : { turnEndSeq: row.turn_end_seq }),
    ...(row.outcome === null ? {} : { outcome: noticeOutcomeOf(row.outcome) }),
    createdAt: row.created_at,
  }
}

/** Window of the notice pair rate, ms (as the send pair rate, `src/model/limits.ts` `RATE_WINDOW_MS`). */
const NOTICE_RATE_WINDOW_MS = 60_000

/** The id of the notice a watch posts: derived from the watched message's, so one message has at most one notice. */
export function noticeIdOf(messageId: string): string {
  return `notice:${messageId}`
}

/** Watch transitions over one connection. */
export class StoreNotices extends StoreMessages {
  private watchRow(messageId: string): WatchRow | undefined {
    return this.sql('SELECT * FROM watches WHERE message_id = ?').get(messageId) as WatchRow | undefined
  }

  watch(watch: NewWatch): StoredWatch {
    return this.tx(() => {
      const existing = this.watchRow(watch.messageId)
      if (existing !== undefined) return watchOf(existing)
      const now = this.now()
      this.sql(`INSERT INTO watches
        (message_id, sender, target, hop, may_wake, max_hops, per_minute, state, created_at, expires_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, 'watching', ?, ?, ?)`)
        .run(watch.messageId, watch.sender, watch.target, watch.hop, watch.mayWake ? 1 : 0, watch.maxHops, watch.perMinute, now,
          watch.expiresAt, now)
      return watchOf(this.watchRow(watch.messageId)!)
    })
  }

  unwatch(messageId: string): void {
    this.tx(() => this.sql('DELETE FROM watches WHERE message_id = ? AND state = \'watching\'').run(messageId))
  }

  watchOf(messageId: string): StoredWatch | undefined {
    const row = this.watchRow(messageId)
    return row === undefined ? undefined : watchOf(row)
  }

  watchedTargets(): Set<string> {
    const rows = this.sql('SELECT DISTINCT target FROM watches INDEXED BY watches_watching WHERE state = \'watching\'')
      .all() as Array<{ target: string }>
    return new Set(rows.map(row => row.target))
  }

  watchesOf(target: string): StoredWatch[] {
    const rows = this.sql('SELECT * FROM watches WHERE target = ? AND state = \'watching\' ORDER BY created_at, message_id')
      .all(target) as unknown as WatchRow[]
    return rows.map(watchOf)
  }

  /** Why a watch that saw its turn end posts no notice, if it does not (checked in this order). */
  private dropReason(row: WatchRow, ended: WatchedTurnEnd, now: number): WatchDrop | undefined {
    if (row.expires_at < now) return 'expired'
    if (ended.answeredBySend) return 'answered-by-send'
    if (row.hop + 1 > row.max_hops) return 'hop-limit'
    const recent = this.sql('SELECT COUNT(*) AS count FROM messages INDEXED BY messages_notices WHERE sender = ? AND target = ? '
      + 'AND notice IS NOT NULL AND created_at > ?')
      .get(row.target, row.sender, now - NOTICE_RATE_WINDOW_MS) as { count: number }
    if (recent.count >= row.per_minute) return 'pair-rate'
    const waiting = this.sql('SELECT COUNT(*) AS count FROM messages WHERE target = ? AND state IN (\'pending\', \'claimed\')')
      .get(row.sender) as { count: number }
    if (waiting.count >= MAX_WAITING_PER_TARGET) return 'full'
    return undefined
  }

  fireWatch(messageId: string, ended: WatchedTurnEnd): StoredWatch | undefined {
    return this.tx(() => {
      const row = this.watchRow(messageId)
      if (row === undefined) return undefined
      if (row.state !== 'watching') return watchOf(row)
      const now = this.now()
      const drop = this.dropReason(row, ended, now)
      if (drop !== undefined) {
        this.sql('UPDATE watches SET state = \'dropped\', reason = ?, turn_end_seq = ?, outcome = ?, updated_at = ? WHERE message_id = ?')
          .run(drop, ended.turnEndSeq, ended.outcome, now, messageId)
        return watchOf(this.watchRow(messageId)!)
      }
      const noticeId = noticeIdOf(messageId)
      // A notice never asks for a notice: it is a message row, and only a send registers a watch.
      this.sql(`INSERT OR IGNORE INTO messages
        (message_id, target, sender, hop, mode, text, may_wake, state, created_at, updated_at, notice, expires_at)
        VALUES (?, ?, ?, ?, 'queue', ?, ?, 'pending', ?, ?, ?, ?)`)
        .run(noticeId, row.sender, row.target, row.hop + 1, ended.text, row.may_wake, now, now, ended.outcome, row.expires_at)
      this.sql('UPDATE watches SET state = \'noticed\', notice_id = ?, turn_end_seq = ?, outcome = ?, updated_at = ? WHERE message_id = ?')
        .run(noticeId, ended.turnEndSeq, ended.outcome, now, messageId)
      return watchOf(this.watchRow(messageId)!)
    })
  }

  dropWatchesOf(sender: string, reason: WatchDrop): number {
    return this.tx(() => Number(this.sql('UPDATE watches SET state = \'dropped\', reason = ?, updated_at = ? WHERE sender = ? '
      + 'AND state = \'watching\'')
      .run(reason, this.now(), sender).changes))
  }

  override refuseWaiting(sessionId: string, reason: Parameters<StoreMessages['refuseWaiting']>[1]): number {
    const refused = super.refuseWaiting(sessionId, reason)
    // A deleted session asks for nothing more, and no turn of it will end: its watches, and those on it, go with it.
    if (reason === 'target-gone') {
      this.dropWatchesOf(sessionId, 'sender-gone')
      this.tx(() => this.sql('UPDATE watches SET state = \'dropped\', reason = \'target-gone\', updated_at = ? WHERE target = ? '
        + 'AND state = \'watching\'').run(this.now(), sessionId))
    }
    return refused
  }

  override sweep(now: number, retainMs: number): number {
    this.tx(() => {
      this.sql('UPDATE watches SET state = \'dropped\', reason = \'expired\', updated_at = ? WHERE state = \'watching\' AND expires_at < ?')
        .run(now, now)
      this.sql('UPDATE messages SET state = \'refused\', reason = \'expired\', updated_at = ? WHERE state = \'pending\' AND expires_at < ?')
        .run(now, now)
      this.sql('DELETE FROM watches WHERE state IN (\'noticed\', \'dropped\') AND updated_at < ?').run(now - retainMs)
    })
    return super.sweep(now, retainMs)
  }
}
