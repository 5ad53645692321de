/**
 * The home store port: every piece of state shared between the `dsh`
 * processes of one `DSH_HOME` — which process holds each session, how its
 * last holder let go, and the messages addressed to sessions held elsewhere
 * with their delivery states — behind one small interface.
 *
 * Each method is one atomic transition (in the SQLite store, one
 * `BEGIN IMMEDIATE` transaction, `home/store-sqlite.ts`); a caller never
 * composes two of them into one decision. Liveness of another process is
 * judged inside the transition by the `alive` probe the store was opened
 * with (pid + start time, `harness/process-tag.ts`), so "a dead holder is
 * replaced" and "the new holder is installed" are one step.
 *
 * Invariants (docs/architecture.md §8, checked by the crash schedules, test/unit/home-schedule.test.ts):
 * - **one holder**: at most one living process holds a session (one row per
 *   session);
 * - **one message state**: `pending → claimed → recorded` (or `refused`, or
 *   `withdrawn` by its sender while `pending`, `model/withdraw.ts`); a
 *   claim goes back to `pending` when its claimer dies or lets the session
 *   go; a message is never deleted before it is recorded or refused, and an
 *   id is admitted once;
 * - **order**: per target, claims come out in posting order, so per
 *   sender→target messages are delivered first in, first out.
 *
 * @module dsh-cross-session/home/store
 */

import type { ApprovalStore, HolderRefusal, NoticeStore, WithdrawStore } from '../ports.js'
import type { LogPlace, NewMessage, PostOutcome, StoredMessage } from './store-shapes.js'
import type { ProcessTag } from '../harness/dsh-home.js'
import type { CorpusRows } from '../index/shared-rows.js'

export type { NewWatch, NoticeFields, StoredWatch, WatchDrop, WatchedTurnEnd, WatchState } from '../ports.js'

/** How a holder let a session go (kept on the session's row). */
export type LetGo = 'released' | 'exited' | 'died' | 'wake-failed'

/** A living holder of a session. */
export interface Holder {
  readonly tag: ProcessTag
  /** `waking`: a wake is under way; `live`: the session is live there. */
  readonly state: 'waking' | 'live'
  /** Whether that process woke it (rather than a user opening it there). */
  readonly woke: boolean
}

/** What the store knows about one session's holders, for one session. */
export interface HolderView {
  /** Its living holder, if any. */
  readonly holder?: Holder
  /**
   * Set when the last process of this package that held it is gone (it let
   * go, or it died holding it): ms when it let go (`undefined` for a death,
   * whose moment is unknown) and how.
   */
  readonly lastLetGo?: { readonly how: LetGo, readonly pid: number, readonly at: number | undefined }
}

/** The board: every session held by another living process (how a gone holder let go is per session, {@link HomeStore.view}). */
export interface Board {
  readonly elsewhere: ReadonlyMap<string, Holder>
}

/** Outcome of {@link HomeStore.acquire} and {@link HomeStore.markLive}. */
export type HoldOutcome =
  | { readonly ok: true, readonly already: boolean, readonly previous?: HolderView['lastLetGo'] }
  | { readonly ok: false, readonly holder: Holder }

export type { LogPlace, MessageState, NewMessage, PostOutcome, StoredMessage } from './store-shapes.js'

/** The store port. Every method is atomic, and synchronous but for the three `…OffLoop`; none throws on a missing row. */
export interface HomeStore extends NoticeStore, ApprovalStore, WithdrawStore {
  /** This process (pid + start time). */
  readonly self: ProcessTag
  /** Register this process; `longLived`: it is a host that outlives its sessions' turns (`dsh web`). */
  join(longLived: boolean): void
  /** This process stops: let go of every session it holds (as `how`) and return its claims to `pending`. */
  leave(how: LetGo): void
  /** Take `sessionId` for a wake: succeeds when nobody living holds it (a dead holder is replaced in the same step). */
  acquire(sessionId: string): HoldOutcome
  /** `sessionId` is live here (opened by a user, or woken): hold it, unless a living other process does. */
  markLive(sessionId: string): HoldOutcome
  /**
   * Let `sessionId` go (only if this process holds it); its claims here
   * return to `pending`. `wake-failed`: nothing was written to its log, so the
   * row keeps what it knew of the holder before this one.
   */
  release(sessionId: string, how: LetGo): void
  /** One session's holder view. */
  view(sessionId: string): HolderView
  /** Every session held by another living process (one query over the held rows; read on every list and lookup). */
  board(): Board
  /** The corpus index's shared rows (table `corpus_logs`, `home/store-corpus.ts`). */
  corpus(): CorpusRows
  /** Another living long-lived process of this package on the home, if any (the one that joined first). */
  longLivedHost(): ProcessTag | undefined
  /** Whether the process `tag` joined as a long-lived host (`dsh web`); `undefined` for one the store does not know. */
  isLongLived(tag: ProcessTag): boolean | undefined
  /** Post a message; a repeated id returns the stored one. Refused when its target has too many waiting. */
  post(message: NewMessage): PostOutcome
  /**
   * Post a message admitted by this process into a session it holds live, claimed by this process in the same
   * transaction: recorded like any claim, and back to `pending` for the next holder if this process dies first.
   * `wait`: nothing is posted (`behind`) while another message for the target waits that this process has not claimed.
   */
  postClaimed(message: NewMessage, behind: 'wait' | 'jump'): PostOutcome | { readonly ok: false, readonly reason: 'behind' }
  /**
   * {@link post}, {@link claim} and {@link recordAll}, off the event loop where the store can (the SQLite store: on its
   * worker thread once that is open, `home/off-loop.ts`; else on the loop, as the synchronous method). The same
   * transition either way; the caller's lock wait (`home/lock-patience.ts`) is read when it is called.
   */
  postOffLoop(message: NewMessage): Promise<PostOutcome>
  /** {@link claim}, off the event loop where the store can (see {@link postOffLoop}). */
  claimOffLoop(sessionId: string): Promise<StoredMessage[]>
  /** {@link recordAll}, off the event loop where the store can (see {@link postOffLoop}). */
  recordAllOffLoop(places: readonly LogPlace[], answered?: { readonly sessionId: string, readonly turnEndSeq: number }): Promise<void>
  /** A message {@link postClaimed} that was not admitted after all: its row goes (nothing was delivered). */
  unpost(messageId: string): void
  /**
   * Claim, in posting order, every message for `sessionId` that is pending or whose claimer is dead — only while this
   * process holds it live.
   */
  claim(sessionId: string): StoredMessage[]
  /** The target's log holds it at `seq`: `claimed` by this process → `recorded`. */
  record(messageId: string, seq: number, running: boolean): boolean
  /**
   * {@link record} of each place, then {@link answered} when given, as one transaction: what one flush of a log found
   * costs one commit (and one disk sync), not one per message.
   */
  recordAll(places: readonly LogPlace[], answered?: { readonly sessionId: string, readonly turnEndSeq: number }): void
  /** Every claim of this process goes back to `pending` (a new runtime of this process starts with nothing in flight). */
  unclaimAll(): void
  /**
   * Claims of this process that no runtime of it will admit go back to `pending`, in one transaction (a claim answered
   * off the event loop after the runtime that asked for it stopped, `home/drain-once.ts`).
   */
  handBack(messageIds: readonly string[]): void
  /** A claim of this process goes back to `pending` (its insertion was cancelled, or the session went away). */
  unclaim(messageId: string): void
  /** A claim of this process is refused (malformed, misaddressed): never delivered. */
  refuse(messageId: string, reason: HolderRefusal): void
  /** The target no longer exists: every message waiting for it (nobody living holds it) is refused with `reason`. @returns how many. */
  refuseWaiting(sessionId: string, reason: HolderRefusal): number
  /** A turn of `sessionId` ended completed at `turnEndSeq`: every recorded message before it is answered. */
  answered(sessionId: string, turnEndSeq: number): void
  /** Recorded messages of `sessionId` that no turn answered and that were not yet re-offered; marks them re-offered. */
  takeUnanswered(sessionId: string): StoredMessage[]
  /** Messages pending for `sessionId`, in posting order (a read: nothing is claimed). */
  pendingFor(sessionId: string): StoredMessage[]
  /** Targets with messages pending or claimed by another process (a read, no lock): which sessions a holder should claim for. */
  waiting(): Set<string>
  /** Sessions whose row names this process as holder. */
  heldHere(): string[]
  /** One message, or `undefined` once swept. */
  message(messageId: string): StoredMessage | undefined
  /** Sessions with messages that may wake them and no living holder (for a long-lived host to adopt). */
  adoptable(): string[]
  /**
   * Drop recorded and refused messages older than `retainMs`, and rows of
   * dead processes; expire watches and waiting notices past their
   * `expiresAt` (dropped / refused `expired`), and drop finished watches
   * older than `retainMs`. @returns messages dropped.
   */
  sweep(now: number, retainMs: number): number
  /** Whether another connection committed since the last call (cheap: `PRAGMA data_version`). */
  changed(): boolean
  /** Bytes on disk (database + WAL), for the bench. */
  bytes(): number
  close(): void
}
