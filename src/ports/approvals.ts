/**
 * The store's half for the target's user (docs/tools.md#inbound-messages,
 * docs/architecture.md §8): a session's own inbound choice, messages held
 * for its user's approval, and the traffic view over every message between
 * sessions. Shapes only; the transitions are `src/home/store-approvals.ts`.
 *
 * A held message moves `held → delivered | refused | expired | withdrawn`, each one
 * transaction. `delivered` inserts the message, with the frame, hop and mode
 * it was held with, into `messages` as `pending` in the same transaction, so
 * from there it is delivered exactly as a message to a session held
 * elsewhere: whichever process holds the target claims it; a long-lived host
 * adopts a cold target the sender allowed to wake.
 *
 * @module dsh-cross-session/ports/approvals
 */

import type { InboundMode } from '../settings/resolve.js'

/** Most messages held for one target; a hold beyond it is refused, not dropped. */
export const MAX_HELD_PER_TARGET = 64

/** A message to keep for its target's user. */
export interface NewApproval {
  /** The request id (the delivered `user/message` id once delivered). */
  readonly messageId: string
  readonly target: string
  readonly sender: string
  /** The sender's title when it was held ('' when unknown). */
  readonly senderTitle: string
  readonly hop: number
  readonly mode: 'queue' | 'steer'
  /** The text the target receives when delivered (framed or not). */
  readonly text: string
  /** The body alone, for the approval card. */
  readonly body: string
  /** Whether the sender allowed waking the target (`allowResume`). */
  readonly mayWake: boolean
  /** Whether the sender asked for a notice of the outcome. */
  readonly notify: boolean
  /** When it expires, ms since the epoch. */
  readonly expiresAt: number
}

/** Where a held message stands (`withdrawn`: its sender took it back while it was held, `model/withdraw.ts`). */
export type ApprovalState = 'held' | 'delivered' | 'refused' | 'expired' | 'withdrawn'

/** One held (or decided) message. */
export interface Approval extends NewApproval {
  readonly order: number
  readonly state: ApprovalState
  readonly createdAt: number
  readonly decidedAt?: number
}

/** Outcome of {@link ApprovalStore.holdForApproval}. */
export type HoldForApprovalOutcome =
  | { readonly ok: true, readonly approval: Approval, readonly duplicate: boolean }
  | { readonly ok: false, readonly reason: 'full' }

/** What the user decided. */
export type ApprovalDecision = 'deliver' | 'refuse'

/**
 * Outcome of {@link ApprovalStore.decide}: `stale` when it was no longer held (decided elsewhere, or expired now);
 * `full` when its target has too many messages waiting; `earlier-held` when Deliver was asked while an earlier
 * message of the same sender to the same target is still held (messages of one sender reach a target in the order
 * they were sent, docs/architecture.md §8 "Order"; Refuse is never stopped by it).
 */
export type DecideOutcome =
  | { readonly ok: true, readonly approval: Approval }
  | { readonly ok: false, readonly reason: 'unknown' | 'stale' | 'full' | 'earlier-held', readonly approval?: Approval }

/** A message delivered by a process to a session live in itself, or refused for its inbound choice. */
export interface LocalDelivery {
  readonly messageId: string
  readonly target: string
  readonly sender: string
  readonly hop: number
  readonly mode: 'queue' | 'steer'
  readonly state: 'pending' | 'recorded' | 'refused'
  readonly seq?: number
  /** Why it was refused (`inbound`). */
  readonly reason?: 'inbound'
}

/** A message's state as the traffic view names it. */
export type TrafficState = 'held' | 'pending' | 'recorded' | 'answered' | 'refused' | 'expired' | 'withdrawn'

/** One row of the traffic view. */
export interface TrafficRow {
  readonly messageId: string
  readonly sender: string
  readonly target: string
  readonly mode: 'queue' | 'steer'
  readonly hop: number
  /** When it was sent, ms since the epoch. */
  readonly at: number
  readonly state: TrafficState
  /** Recorded: its seq in the target's log. */
  readonly seq?: number
  /** Answered: the seq of the `turn/end` of the turn that answered it. */
  readonly answeredSeq?: number
  /** Held: when it expires. */
  readonly expiresAt?: number
  /** Refused: why (`inbound`, `user`, or the holder's refusal). */
  readonly reason?: string
  /** A notice this package posted to a sender (docs/tools.md#notices), not a peer's message. */
  readonly notice?: true
}

/** The approval half of the home store port; each method one transaction. */
export interface ApprovalStore {
  /** A session's own inbound choice, or `undefined` (it follows the `inbound` setting). */
  inboundOf(sessionId: string): InboundMode | undefined
  /** Set (or, with `undefined`, clear) a session's own inbound choice. */
  setInbound(sessionId: string, mode: InboundMode | undefined): void
  /** Keep a message for its target's user; a repeated id returns the stored one. */
  holdForApproval(approval: NewApproval): HoldForApprovalOutcome
  /** Messages held now (not yet expired at `now`), oldest first; for one target when given. */
  approvals(now: number, target?: string): Approval[]
  /** One held or decided message, until swept. */
  approval(messageId: string): Approval | undefined
  /** The user's decision; a message past its expiry at `now` expires instead (`stale`). */
  decide(messageId: string, decision: ApprovalDecision, now: number): DecideOutcome
  /** Every held message past its expiry at `now` becomes `expired`. @returns those. */
  expireApprovals(now: number): Approval[]
  /** Record a local delivery (or move it on: `pending` → `recorded`). */
  journal(entry: LocalDelivery): void
  /** The traffic view, newest first, at most `limit` rows. */
  traffic(limit: number): TrafficRow[]
}
