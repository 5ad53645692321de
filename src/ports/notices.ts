/**
 * The notice half of the home store port (docs/architecture.md §8,
 * "Notices"): a sender's request to be told when the target's turn that
 * takes its message ends (a *watch*), and the one transition that turns it
 * into a notice message for the sender or drops it. The notice itself is an
 * ordinary row of the messages table (from the target to the sender), so it
 * is claimed, delivered, recorded, woken for and swept as every message is.
 *
 * Who calls what:
 * - the sender's process: {@link NoticeStore.watch} after its send was
 *   accepted (`sessions_send` `notify`);
 * - the target's holder: {@link NoticeStore.watchedTargets} /
 *   {@link NoticeStore.watchesOf} on a turn end, then
 *   {@link NoticeStore.fireWatch} with what it read from the log
 *   (`src/home/notices.ts`);
 * - a host that finds the sender deleted: {@link NoticeStore.dropWatchesOf};
 * - every process: `sweep` expires watches and waiting notices.
 *
 * @module dsh-cross-session/ports/notices
 */

import type { NoticeOutcome } from '../model/outcomes.js'

/** A stored message that is a notice (posted by {@link NoticeStore.fireWatch}): how the watched turn ended, and when it expires (ms). */
export interface NoticeFields {
  readonly notice?: NoticeOutcome
  readonly expiresAt?: number
}

/**
 * A notice request (docs/architecture.md §8, "Notices"): the sender of
 * message `messageId` asked (`sessions_send` `notify`) to be told when the
 * target's turn that takes it ends. The notice travels from the target to
 * the sender at `hop + 1`, through the messages table.
 */
export interface NewWatch {
  /** The watched message (its request id, as delivered). */
  readonly messageId: string
  /** Who asked: the notice goes to this session. */
  readonly sender: string
  /** The session whose turn is watched. */
  readonly target: string
  /** The watched message's hop. */
  readonly hop: number
  /** The sender's `allowResume`: whether the notice may wake the sender when it is cold. */
  readonly mayWake: boolean
  /** The sender's `maxHops`: a notice past it (`hop + 1 > maxHops`) is dropped. */
  readonly maxHops: number
  /** The sender's `maxSendsPerMinute`: at most this many notices target→sender per minute. */
  readonly perMinute: number
  /** When the watch, and the notice it posts, expire (ms since the epoch). */
  readonly expiresAt: number
}

/** State of a watch: `watching` → `noticed` (notice posted) or `dropped`. */
export type WatchState = 'watching' | 'noticed' | 'dropped'

/**
 * Why a watch was dropped without a notice: it expired; its sender, or its
 * target, no longer exists; the target answered the sender with `sessions_send` in that
 * turn; the notice would pass the hop limit or the pair rate; the sender has
 * too many messages waiting; its sender withdrew the message.
 */
export type WatchDrop = 'expired' | 'sender-gone' | 'target-gone' | 'answered-by-send' | 'hop-limit' | 'pair-rate' | 'full' | 'withdrawn'

/** One stored watch. */
export interface StoredWatch extends NewWatch {
  readonly state: WatchState
  readonly reason?: WatchDrop
  /** Id of the notice message it posted (`noticed`). */
  readonly noticeId?: string
  /** Seq of the watched turn's `turn/end` in the target's log, once it ended. */
  readonly turnEndSeq?: number
  readonly outcome?: NoticeOutcome
  readonly createdAt: number
}

/** What the holder of the target read from its log when the watched turn ended ({@link NoticeStore.fireWatch}). */
export interface WatchedTurnEnd {
  readonly turnEndSeq: number
  readonly outcome: NoticeOutcome
  /** The target sent to the watch's sender with `sessions_send` in that turn: no notice. */
  readonly answeredBySend: boolean
  /** The notice's text (the notice frame, `src/framing.ts`); its id is derived from the watched message's. */
  readonly text: string
}

/** The notice transitions of the home store; each one atomic, none throws on a missing row. */
export interface NoticeStore {
  /**
   * Ask for a notice when `watch.target`'s turn that takes `watch.messageId`
   * ends. One watch per message: a repeated id returns the stored one.
   */
  watch(watch: NewWatch): StoredWatch
  /** Withdraw a `watching` watch (its send was not accepted). */
  unwatch(messageId: string): void
  /** One watch, or `undefined` (never asked, or swept). */
  watchOf(messageId: string): StoredWatch | undefined
  /** Targets with watches `watching` (a read, no lock): whose turn ends a holder should look at. */
  watchedTargets(): Set<string>
  /** The `watching` watches of `target`, oldest first (a read). */
  watchesOf(target: string): StoredWatch[]
  /**
   * The watched turn ended (read from the target's log by its holder): in
   * one transaction, the watch leaves `watching` — `noticed`, with the
   * notice posted to the sender as a message (`notice` set, `hop + 1`,
   * `mayWake` and `expiresAt` from the watch, id `notice:<messageId>`), or
   * `dropped` (expired, answered by a send, past the hop limit or the pair
   * rate, the sender's queue full). Only a `watching` watch changes: a
   * second call (another holder, a retry after a crash) returns the stored
   * watch and posts nothing.
   * @returns the watch after the transition, `undefined` when none.
   */
  fireWatch(messageId: string, ended: WatchedTurnEnd): StoredWatch | undefined
  /** Drop every `watching` watch whose sender is `sender` (it was deleted). @returns how many. */
  dropWatchesOf(sender: string, reason: WatchDrop): number
}
