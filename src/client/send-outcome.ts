/**
 * What the web send row's state chip says, decided from three sources, as
 * one pure function: what the call returned (its value,
 * src/presentation/results.ts, read by {@link callRecordedOf}), where the message is in the target's history
 * (./send-state.ts), and, for a message held for the target's user, where
 * the held message stands in the home store (the channel's `sends.held`,
 * src/home/channel-views.ts). The history wins when it has the message; a
 * held message the user refused, or that expired, never reaches it, so
 * there the store's word is final; so is `withdrawn` (its sender took it
 * back while it waited, docs/tools.md#withdrawing-a-message), whether it
 * was held or waiting in the store's queue (`sends.held` `stored`).
 *
 * One word per state: a message neither held nor in the target's log yet is
 * `pending` ("pending, not yet in its log"), whichever path it took.
 *
 * @module dsh-cross-session/client/send-outcome
 */

import type { SendState } from './send-state.js'
import { holderRefusals } from '../presentation/send.js'
import type { ResultValue } from '../presentation/results.js'

/** A held message as the channel reports it (`sends.held` `held`), times in ms since the epoch. */
export interface HeldView {
  readonly state: 'held' | 'delivered' | 'refused' | 'expired' | 'withdrawn'
  readonly expiresAt: number
  readonly decidedAt?: number
}

/** What the call itself said of delivery: where it was, held, refused by the process that held the target (why), or not confirmed. */
export type CallRecorded =
  | { readonly stage: 'conversation' | 'inbox', readonly seq: number }
  | { readonly stage: 'held' }
  | { readonly stage: 'refused', readonly why: string }
  | { readonly stage: 'unconfirmed' }

/** What an accepted, held or retried send's value says of delivery; `undefined` for any other value. */
export function callRecordedOf(value: ResultValue | undefined): CallRecorded | undefined {
  const sent = value?.kind === 'retried' ? value.first : value
  if (sent?.kind === 'held') return { stage: 'held' }
  if (sent?.kind !== 'accepted') return undefined
  const { recorded } = sent
  if (recorded?.stage === 'conversation' || recorded?.stage === 'inbox') return { stage: recorded.stage, seq: recorded.seq }
  return recorded?.stage === 'refused' ? { stage: 'refused', why: holderRefusals[recorded.reason] } : { stage: 'unconfirmed' }
}

/** The chip's state; `approvedAt` when its user delivered it after holding it. */
export type SendOutcome =
  | { readonly kind: 'answered', readonly seq: number, readonly answerSeq: number, readonly approvedAt?: number }
  | { readonly kind: 'recorded', readonly seq: number, readonly approvedAt?: number }
  | { readonly kind: 'inbox', readonly seq: number }
  | { readonly kind: 'lost', readonly why: string, readonly code?: 'cancelled' | 'taken' }
  | { readonly kind: 'held', readonly expiresAt?: number }
  | { readonly kind: 'refused', readonly at: number }
  | { readonly kind: 'expired', readonly at: number }
  | { readonly kind: 'withdrawn', readonly at?: number }
  | { readonly kind: 'pending', readonly approvedAt?: number }

const STATES: readonly string[] = ['held', 'delivered', 'refused', 'expired', 'withdrawn']

/** The `held` of a `sends.held` answer, or `undefined` when it names none (or is not that shape). */
export function heldOf(value: unknown): HeldView | undefined {
  const held = (value as { held?: unknown } | null | undefined)?.held as Record<string, unknown> | null | undefined
  if (typeof held !== 'object' || held === null || !STATES.includes(held.state as string) || typeof held.expiresAt !== 'number')
    return undefined
  return { state: held.state as HeldView['state'], expiresAt: held.expiresAt,
    ...(typeof held.decidedAt === 'number' ? { decidedAt: held.decidedAt } : {}) }
}

/** Where the message is in the store's queue (`sends.held` `stored`), or `undefined`. */
export function storedOf(value: unknown): StoredState | undefined {
  const state = ((value as { stored?: unknown } | null | undefined)?.stored as { state?: unknown } | null | undefined)?.state
  return typeof state === 'string' && STORED.includes(state) ? state as StoredState : undefined
}

/** A message's state in the store's queue, as `sends.held` `stored` names it. */
export type StoredState = 'pending' | 'claimed' | 'recorded' | 'refused' | 'withdrawn'
const STORED: readonly string[] = ['pending', 'claimed', 'recorded', 'refused', 'withdrawn']

/** Whether the sender can still withdraw it: held, or waiting unclaimed in the store's queue. */
export function canWithdraw(outcome: SendOutcome, held: HeldView | undefined, stored: StoredState | undefined): boolean {
  if (outcome.kind === 'held') return held === undefined || held.state === 'held'
  return outcome.kind === 'pending' && stored === 'pending'
}

/**
 * The chip's state.
 * @param recorded - what the call returned.
 * @param followed - the message in the target's history (`undefined` before the first look or without history).
 * @param held - the held message in the store (`undefined` when the call held nothing or before the first look).
 * @param stored - where it is in the store's queue (`undefined` when it never waited there or before the first look).
 */
export function sendOutcome(recorded: CallRecorded, followed: SendState | undefined, held: HeldView | undefined,
  stored?: StoredState): SendOutcome {
  if (held?.state === 'withdrawn') return { kind: 'withdrawn', ...(held.decidedAt === undefined ? {} : { at: held.decidedAt }) }
  if (stored === 'withdrawn') return { kind: 'withdrawn' }
  const approvedAt = held?.state === 'delivered' ? held.decidedAt : undefined
  const approved = approvedAt === undefined ? {} : { approvedAt }
  if (followed?.stage === 'answered') return { kind: 'answered', seq: followed.seq, answerSeq: followed.answerSeq, ...approved }
  if (followed?.stage === 'recorded') return { kind: 'recorded', seq: followed.seq, ...approved }
  if (followed?.stage === 'lost')
    return { kind: 'lost', why: followed.why, ...(followed.code === undefined ? {} : { code: followed.code }) }
  if (held?.state === 'refused' || held?.state === 'expired') return { kind: held.state, at: held.decidedAt ?? held.expiresAt }
  if (held?.state === 'delivered') return { kind: 'pending', ...approved }
  if (recorded.stage === 'refused') return { kind: 'lost', why: recorded.why }
  if (recorded.stage === 'conversation') return { kind: 'recorded', seq: recorded.seq }
  if (recorded.stage === 'inbox') return { kind: 'inbox', seq: recorded.seq }
  if (recorded.stage === 'held') return held === undefined ? { kind: 'held' } : { kind: 'held', expiresAt: held.expiresAt }
  return { kind: 'pending' }
}

/** Whether the chip can still change (the row stops looking when it cannot). */
export function isFinal(outcome: SendOutcome): boolean {
  return outcome.kind === 'answered' || outcome.kind === 'lost' || outcome.kind === 'refused' || outcome.kind === 'expired'
    || outcome.kind === 'withdrawn'
}
