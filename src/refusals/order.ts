/**
 * `sessions_send`'s fixed order of checks, as pure functions
 * (docs/tools.md#refusals-and-their-order).
 *
 * - {@link SendRefusal}: one refusal of the checks, as closed data (the code
 *   and the values involved); its text is the catalog entry's
 *   (`src/refusals/catalog.ts`, through `presentation/send.ts`
 *   `sendRefusalText`).
 * - {@link SEND_CHECKS} and {@link decideSend}: the order is data, and
 *   `decideSend` walks it, asking for the next fact (`target`, `limits`)
 *   only when every earlier check has passed, so no fact that touches the
 *   target is fetched before the checks that must come first.
 * - {@link resumeDisabledBeforeResolve},
 *   {@link notMessageableRightAfterLookup} and
 *   {@link inboundRefusedBeforeLookup}: the three guarantees, as
 *   properties of {@link SEND_CHECKS}.
 *
 * @module dsh-cross-session/refusals/order
 */

import type { LimitVerdict } from '../model/limits.js'
import { isSubagent, ownerOf, type SessionHeaderView } from '../model/sessions.js'
import type { InboundMode } from '../settings/resolve.js'

/** What the non-waking lookup of the target found, as the caller may see it. */
export type TargetFact =
  | { readonly kind: 'absent' }
  | { readonly kind: 'present', readonly header: SessionHeaderView, readonly live: boolean }

/** The target's own inbound choice could not be read (never taken for `accept`): `unavailable` says why, no path. */
export type InboundUnknown = { readonly unavailable: string }

/** Facts about one send, gathered in order; a fact left `undefined` has not been fetched yet. */
export interface SendFacts {
  /** Argument problem from schema validation, if any (one readable line). */
  readonly argumentProblem?: string | undefined
  /** Calling session id, or `undefined` when there is none. */
  readonly callerId: string | undefined
  /** Target id as given. */
  readonly targetId: string
  /** Body as given (the body check trims it). */
  readonly body: string
  /** Whether waking a cold target is allowed (`allowResume`). */
  readonly allowResume: boolean
  /**
   * What the target takes from peers: its own choice (home store), else the `inbound` setting; unknown when the store
   * could not be read. Read without touching the target.
   */
  readonly inbound?: InboundMode | InboundUnknown
  /** The non-waking lookup (visibility already applied). */
  readonly target?: TargetFact
  /** Rate and hop limits. */
  readonly limits?: LimitVerdict
}

/** One refusal of `sessions_send`'s checks, as data. */
export type SendRefusal =
  | { readonly code: 'invalid-arguments', readonly problem: string }
  | { readonly code: 'rejected', readonly reason: 'no-caller' }
  | { readonly code: 'rejected', readonly reason: 'inbound-refused', readonly targetId: string }
  | { readonly code: 'rejected', readonly reason: 'store-unavailable', readonly why: string }
  | { readonly code: 'empty-body' }
  | { readonly code: 'self-target', readonly targetId: string }
  | { readonly code: 'not-found', readonly targetId: string }
  | { readonly code: 'not-messageable', readonly targetId: string, readonly owner: string | undefined }
  | { readonly code: 'resume-disabled', readonly targetId: string }
  | { readonly code: 'rate-limited', readonly targetId: string, readonly limit: Exclude<LimitVerdict, { kind: 'ok' }> }

/** A fact {@link decideSend} may ask for: the target's inbound choice, the non-waking lookup, the limits. */
type SendFact = 'inbound' | 'target' | 'limits'

/** One check of the fixed order: the fact it needs first, and its verdict once that fact is known. */
interface SendCheck {
  readonly step: 'arguments' | 'caller' | 'body' | 'self' | 'inbound' | 'exists' | 'top-level' | 'wake-allowed' | 'limits' | 'hold'
    | 'resolve' | 'admit'
  readonly needs?: SendFact
  /** The refusal, or `undefined` when this check passes (called only once `needs` is known). */
  readonly check?: (facts: SendFacts) => SendRefusal | undefined
}

function present(facts: SendFacts): Extract<TargetFact, { kind: 'present' }> {
  return facts.target as Extract<TargetFact, { kind: 'present' }>
}

/** The target's own choice refuses, or cannot be read (then nothing is delivered: a `refuse` is never bypassed). */
function inboundCheck({ inbound, ...facts }: SendFacts): SendRefusal | undefined {
  if (typeof inbound === 'object') return { code: 'rejected', reason: 'store-unavailable', why: inbound.unavailable }
  return inbound === 'refuse' ? { code: 'rejected', reason: 'inbound-refused', targetId: facts.targetId } : undefined
}

/**
 * `sessions_send`'s checks, in their fixed order (docs/tools.md#refusals-and-their-order).
 * `resolve` (may wake) and `admit` run only after `go`; `hold` answers
 * `hold` instead (the message is kept for the target's user, nothing
 * resolved or admitted).
 */
export const SEND_CHECKS: readonly SendCheck[] = [
  { step: 'arguments', check: facts => facts.argumentProblem === undefined
    ? undefined : { code: 'invalid-arguments', problem: facts.argumentProblem } },
  { step: 'caller', check: facts => facts.callerId === undefined ? { code: 'rejected', reason: 'no-caller' } : undefined },
  { step: 'body', check: facts => facts.body.trim().length === 0 ? { code: 'empty-body' } : undefined },
  { step: 'self', check: facts => facts.targetId === facts.callerId ? { code: 'self-target', targetId: facts.targetId } : undefined },
  { step: 'inbound', needs: 'inbound', check: inboundCheck },
  { step: 'exists', needs: 'target', check: facts => facts.target?.kind === 'absent'
    ? { code: 'not-found', targetId: facts.targetId } : undefined },
  { step: 'top-level', check: facts => isSubagent(present(facts).header)
    ? { code: 'not-messageable', targetId: facts.targetId, owner: ownerOf(present(facts).header) } : undefined },
  { step: 'wake-allowed', check: facts => !present(facts).live && !facts.allowResume
    ? { code: 'resume-disabled', targetId: facts.targetId } : undefined },
  { step: 'limits', needs: 'limits', check: facts => facts.limits?.kind === 'ok' || facts.limits === undefined
    ? undefined : { code: 'rate-limited', targetId: facts.targetId, limit: facts.limits } },
  { step: 'hold' },
  { step: 'resolve' },
  { step: 'admit' },
]

/** Answer of {@link decideSend}. */
export type SendDecision =
  | { readonly kind: 'refuse', readonly refusal: SendRefusal }
  | { readonly kind: 'need', readonly fact: SendFact }
  | { readonly kind: 'go', readonly hop: number, readonly targetLive: boolean }
  | { readonly kind: 'hold', readonly hop: number, readonly targetLive: boolean }

/**
 * Walk {@link SEND_CHECKS} over the facts known so far.
 * @returns the first refusal; else the next fact to fetch; else `hold`
 *   when the target's inbound choice is `hold` (kept for its user), or `go`
 *   (resolve and admit may run).
 */
export function decideSend(facts: SendFacts): SendDecision {
  for (const check of SEND_CHECKS) {
    if (check.needs !== undefined && facts[check.needs] === undefined) return { kind: 'need', fact: check.needs }
    const refusal = check.check?.(facts)
    if (refusal !== undefined) return { kind: 'refuse', refusal }
    if (check.step === 'hold' && facts.inbound === 'hold')
      return { kind: 'hold', hop: (facts.limits as Extract<LimitVerdict, { kind: 'ok' }>).hop, targetLive: present(facts).live }
  }
  const limits = facts.limits as Extract<LimitVerdict, { kind: 'ok' }>
  return { kind: 'go', hop: limits.hop, targetLive: present(facts).live }
}

function position(order: readonly SendCheck[], step: SendCheck['step']): number {
  return order.findIndex(check => check.step === step)
}

/**
 * Guarantee 1: `resume-disabled` is decided before anything resolves the
 * target, so declining to wake leaves it untouched, never resumed and
 * abandoned. Pure, over an order of checks.
 */
export function resumeDisabledBeforeResolve(order: readonly SendCheck[] = SEND_CHECKS): boolean {
  const decided = position(order, 'wake-allowed')
  return decided >= 0 && decided < position(order, 'resolve') && order.slice(0, decided)
    .every(check => check.step !== 'resolve' && check.step !== 'admit')
}

/**
 * Guarantee 2: `not-messageable` is decided right after the non-waking
 * lookup, before liveness, limits, resolution or admission touch the
 * target. Pure, over an order of checks.
 */
export function notMessageableRightAfterLookup(order: readonly SendCheck[] = SEND_CHECKS): boolean {
  const lookup = position(order, 'exists')
  return lookup >= 0 && order[lookup]?.needs === 'target' && position(order, 'top-level') === lookup + 1
}

/**
 * Guarantee 3: a target that takes no messages from peers (`inbound:
 * refuse`) is refused before any step that looks the target up, resolves
 * or admits: its log stays byte-identical and nothing of it is woken or
 * read. The inbound fact itself is read from the home store and the
 * settings, never from the target. Pure, over an order of checks.
 */
export function inboundRefusedBeforeLookup(order: readonly SendCheck[] = SEND_CHECKS): boolean {
  const decided = position(order, 'inbound')
  return decided >= 0 && order[decided]?.needs === 'inbound'
    && order.slice(0, decided)
      .every(check => check.needs !== 'target' && check.step !== 'resolve' && check.step !== 'admit' && check.step !== 'hold')
}
