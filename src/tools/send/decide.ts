/**
 * The fixed order of `sessions_send`'s checks, as one pure function.
 *
 * Source: seed 004 "Refusal codes" and its two ordering guarantees, and
 * PRODUCT.md §4 (the ten-step order). The wording of each refusal is in
 * `src/presentation/common.ts` and `src/presentation/send.ts`.
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
 * @module dsh-cross-session/tools/send/decide
 */

import type { LimitVerdict } from '../../model/limits.js'
import { commonRefusals, type Refusal } from '../../presentation/common.js'
import { sendRefusals } from '../../presentation/send.js'
import { isSubagent, ownerOf } from '../../model/sessions.js'
import type { TargetFact } from './target.js'

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
type SendDecision =
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
    return refuse(commonRefusals.invalidArguments(facts.argumentProblem, 'sessions_send'))
  }
  if (facts.callerId === undefined) return refuse(commonRefusals.noCaller())
  if (facts.body.trim().length === 0) return refuse(sendRefusals.emptyBody())
  if (facts.targetId === facts.callerId) return refuse(sendRefusals.selfTarget(facts.targetId))
  if (facts.target === undefined) return { kind: 'need', fact: 'target' }
  if (facts.target.kind === 'absent') return refuse(commonRefusals.notFound(facts.targetId))
  const { header, live } = facts.target
  if (isSubagent(header)) return refuse(sendRefusals.notMessageable(facts.targetId, ownerOf(header)))
  if (!live && !facts.allowResume) return refuse(sendRefusals.resumeDisabled(facts.targetId))
  if (facts.limits === undefined) return { kind: 'need', fact: 'limits' }
  switch (facts.limits.kind) {
    case 'hop-limit':
      return refuse(sendRefusals.hopLimit(facts.limits.hop, facts.limits.maxHops, facts.limits.chain))
    case 'pair-rate':
      return refuse(sendRefusals.pairRate(facts.targetId, facts.limits.count, facts.limits.perMinute, facts.limits.retryInMs))
    case 'duplicate':
      return refuse(sendRefusals.duplicate(facts.targetId, facts.limits.agoMs))
    case 'ok':
      return { kind: 'go', hop: facts.limits.hop, targetLive: live }
  }
}

function refuse(refusal: Refusal): SendDecision {
  return { kind: 'refuse', refusal }
}
