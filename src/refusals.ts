/**
 * Refusal codes, their texts, and the fixed order of `sessions_send`'s checks
 * as one pure function.
 *
 * Source: seed 004 "Refusal codes" (`not-found`, `not-messageable`,
 * `resume-disabled`, `empty-body`, `rejected`, and the column "What the model
 * should do"), its two ordering guarantees, and PRODUCT.md §4 (added codes
 * `invalid-arguments`, `self-target`, `rate-limited`; the ten-step order).
 *
 * How the order is kept exact: {@link decideSend} is given the facts gathered
 * so far and answers with the first refusal, with `go`, or with the *next
 * fact it needs* (`target`, then `limits`). The executor fetches only that
 * fact and asks again. So a fact that touches the target is never fetched
 * before every earlier check has passed, and the two seed guarantees are
 * properties of this function, tested without a harness:
 * 1. `resume-disabled` is decided before anything resolves the target (the
 *    only waking step comes after `go`);
 * 2. `not-messageable` is decided right after the non-waking lookup, before
 *    liveness, limits, resolution or admission touch the target.
 *
 * @module dsh-cross-session/refusals
 */

import type { SessionHeaderView } from './ports.js'
import { isSubagent, ownerOf } from './sessions.js'
import { clipLine, oneLine } from './text.js'

/** Every refusal code this package returns. */
export type RefusalCode =
  | 'invalid-arguments'
  | 'not-found'
  | 'not-messageable'
  | 'resume-disabled'
  | 'empty-body'
  | 'rejected'
  | 'self-target'
  | 'rate-limited'

/** One refusal: its code, the cause, and what the model should do next. */
export interface Refusal {
  readonly code: RefusalCode
  /** Why, in one line, with the values involved. */
  readonly cause: string
  /** What to try next (seed 004 "What the model should do"). */
  readonly next: string
}

/**
 * What a refused call did not do, said on every refusal (seed 004 tone):
 * `Nothing was delivered.`, `Nothing was read.` or `Nothing was listed.`
 */
export type Consequence = string

/**
 * Render a refusal as the plain text the model receives:
 * `refused: <code> | <cause>` then the consequence and the next step.
 */
export function renderRefusal(refusal: Refusal, consequence: Consequence): string {
  return `refused: ${refusal.code} | ${refusal.cause}\n${consequence} ${refusal.next}`
}

/**
 * A session id echoed in a refusal: one line, at most 120 code points. The
 * target id comes from model-written arguments with no length limit (issue
 * 11 §6: untrusted values are never echoed unclipped).
 */
function shown(sessionId: string): string {
  return clipLine(oneLine(sessionId), 120)
}

/** Constructors for each refusal, so every text is written once. */
export const refusals = {
  invalidArguments: (problem: string, tool: string): Refusal => ({
    code: 'invalid-arguments',
    cause: problem,
    next: `Fix that argument and call ${tool} again.`,
  }),
  noCaller: (): Refusal => ({
    code: 'rejected',
    cause: 'the calling session could not be identified (no agent is bound to this call)',
    next: 'Cross-session tools work only from inside a session; nothing can be done from here.',
  }),
  notFound: (sessionId: string): Refusal => ({
    code: 'not-found',
    cause: `no session with id ${JSON.stringify(clipLine(sessionId, 120))}`,
    next: 'Re-run sessions_list for a valid id and pass it exactly as printed.',
  }),
  notMessageable: (sessionId: string, owner: string | undefined): Refusal => ({
    code: 'not-messageable',
    cause: owner === undefined
      ? `${shown(sessionId)} is a subagent session`
      : `${shown(sessionId)} is a subagent session owned by ${shown(owner)}`,
    next: 'It is owned by another agent; there is no supported way to message it from here.'
      + (owner === undefined ? '' : ` You may message its owner ${shown(owner)} instead.`),
  }),
  resumeDisabled: (sessionId: string): Refusal => ({
    code: 'resume-disabled',
    cause: `${shown(sessionId)} is cold and waking sessions is disabled (allowResume: false)`,
    next: 'The session was left untouched; either target a live session or ask the user to enable waking.',
  }),
  emptyBody: (): Refusal => ({
    code: 'empty-body',
    cause: 'the message is empty after trimming white space',
    next: 'Supply a body.',
  }),
  selfTarget: (sessionId: string): Refusal => ({
    code: 'self-target',
    cause: `${shown(sessionId)} is this session; a session cannot message itself`,
    next: 'Pick a peer id from sessions_list (this session is the row marked "this session").',
  }),
  hopLimit: (hop: number, maxHops: number, chain: string): Refusal => ({
    code: 'rate-limited',
    cause: `this would be hop ${hop} of a relay chain limited to ${maxHops} hops (chain: ${clipLine(oneLine(chain), 400)})`,
    next: 'Stop relaying: answer from what you have and report to your user instead of messaging another session.',
  }),
  pairRate: (target: string, count: number, perMinute: number, retryInMs: number): Refusal => ({
    code: 'rate-limited',
    cause: `${count} messages were already sent to ${shown(target)} in the last minute (limit ${perMinute} per minute)`,
    next: `Wait about ${Math.ceil(retryInMs / 1000)} s, or combine what you have into one message.`,
  }),
  duplicate: (target: string, agoMs: number): Refusal => ({
    code: 'rate-limited',
    cause: `the same message was already delivered to ${shown(target)} ${Math.max(1, Math.round(agoMs / 1000))} s ago`,
    next: 'It is not delivered twice. Read the target with sessions_read to see whether it answered.',
  }),
  rejected: (reason: string, step: string): Refusal => ({
    code: 'rejected',
    cause: `${step} failed: ${reason}`,
    next: 'The reason above is the backend\'s own; try again later or tell your user.',
  }),
  backend: (step: string, reason: string, tool: string): Refusal => ({
    code: 'rejected',
    cause: `${step} failed: ${reason}`,
    next: `Try ${tool} again later; if it keeps failing, tell your user.`,
  }),
} as const

/** A rate or hop limit verdict (from `src/limits.ts`). */
export type LimitVerdict =
  | { readonly kind: 'ok', readonly hop: number }
  | { readonly kind: 'hop-limit', readonly hop: number, readonly maxHops: number, readonly chain: string }
  | { readonly kind: 'pair-rate', readonly count: number, readonly perMinute: number, readonly retryInMs: number }
  | { readonly kind: 'duplicate', readonly agoMs: number }

/** Non-waking lookup result for the target. */
export type TargetFact =
  | { readonly kind: 'absent' }
  | { readonly kind: 'present', readonly header: SessionHeaderView, readonly live: boolean }

/**
 * Facts about one send, gathered in order. A fact left `undefined` has not
 * been fetched yet.
 */
export interface SendFacts {
  /** Argument problem from schema validation, if any (step 1). */
  readonly argumentProblem?: string | undefined
  /** Calling session id, or `undefined` when there is none (step 2). */
  readonly callerId: string | undefined
  /** Target id as given. */
  readonly targetId: string
  /** Body as given (step 3 trims it). */
  readonly body: string
  /** Whether waking a cold target is allowed (`allowResume`). */
  readonly allowResume: boolean
  /** Step 5–7: the non-waking lookup (visibility already applied). */
  readonly target?: TargetFact
  /** Step 8: rate and hop limits. */
  readonly limits?: LimitVerdict
}

/** Answer of {@link decideSend}. */
export type SendDecision =
  | { readonly kind: 'refuse', readonly refusal: Refusal }
  | { readonly kind: 'need', readonly fact: 'target' | 'limits' }
  | { readonly kind: 'go', readonly hop: number, readonly targetLive: boolean }

/**
 * The fixed order of `sessions_send`'s checks (PRODUCT.md §4, steps 1–8):
 * 1 arguments valid, 2 caller known, 3 body non-empty after trim, 4 target is
 * not the caller, 5 target exists (non-waking lookup), 6 target is top-level,
 * 7 target live or waking allowed, 8 rate and hop limits. `go` means steps 9
 * (resolve, may wake) and 10 (admit) may run.
 * @param facts - what is known so far.
 * @returns the first refusal, the next fact to fetch, or `go`.
 */
export function decideSend(facts: SendFacts): SendDecision {
  if (facts.argumentProblem !== undefined) {
    return refuse(refusals.invalidArguments(facts.argumentProblem, 'sessions_send'))
  }
  if (facts.callerId === undefined) return refuse(refusals.noCaller())
  if (facts.body.trim().length === 0) return refuse(refusals.emptyBody())
  if (facts.targetId === facts.callerId) return refuse(refusals.selfTarget(facts.targetId))
  if (facts.target === undefined) return { kind: 'need', fact: 'target' }
  if (facts.target.kind === 'absent') return refuse(refusals.notFound(facts.targetId))
  const { header, live } = facts.target
  if (isSubagent(header)) return refuse(refusals.notMessageable(facts.targetId, ownerOf(header)))
  if (!live && !facts.allowResume) return refuse(refusals.resumeDisabled(facts.targetId))
  if (facts.limits === undefined) return { kind: 'need', fact: 'limits' }
  switch (facts.limits.kind) {
    case 'hop-limit':
      return refuse(refusals.hopLimit(facts.limits.hop, facts.limits.maxHops, facts.limits.chain))
    case 'pair-rate':
      return refuse(refusals.pairRate(facts.targetId, facts.limits.count, facts.limits.perMinute, facts.limits.retryInMs))
    case 'duplicate':
      return refuse(refusals.duplicate(facts.targetId, facts.limits.agoMs))
    case 'ok':
      return { kind: 'go', hop: facts.limits.hop, targetLive: live }
  }
}

function refuse(refusal: Refusal): SendDecision {
  return { kind: 'refuse', refusal }
}
