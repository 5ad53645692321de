/**
 * Steps 5–8 of `sessions_send`: gather the facts {@link decideSend} asks
 * for, one at a time — the non-waking lookup of the target, then the rate
 * and hop limits — until it refuses or says `go`.
 *
 * Source: docs/tools.md#refusals-and-their-order (steps 5–8); the hop comes
 * from the recorded relay source (docs/architecture.md §5).
 *
 * @module dsh-cross-session/tools/send/gather
 */

import type { LimitVerdict } from '../../model/limits.js'
import { isStopped, NOTHING_DELIVERED, refused, type StoppedValue } from '../../presentation/common.js'
import { sendRefusalText } from '../../presentation/send.js'
import type { RelayProvenance } from '../../model/provenance.js'
import type { ToolCallContext, ToolDeps } from '../shared.js'
import { decideSend, type InboundUnknown, type SendFacts } from '../../refusals.js'
import { storeFaultWhy } from '../../home/store-fault.js'
import { retryStore } from '../../home/store-retry.js'
import { lookUpTarget } from './target.js'
import type { InboundMode } from '../../settings/resolve.js'

/** Outcome of {@link gatherAndDecide}; `inbound`: refused for the target's inbound choice. */
type Gathered =
  | { readonly kind: 'refused', readonly value: StoppedValue, readonly inbound?: true }
  | { readonly kind: 'go' | 'hold', readonly hop: number }

/**
 * Ask {@link decideSend} what it needs, fetch only that, repeat.
 * @returns the first refusal (or cancellation), or `go` / `hold` with the outgoing hop.
 */
export async function gatherAndDecide(initial: SendFacts, call: ToolCallContext, deps: ToolDeps): Promise<Gathered> {
  let facts = initial
  for (;;) {
    const decision = decideSend(facts)
    if (decision.kind === 'refuse') {
      const value = refused(sendRefusalText(decision.refusal), NOTHING_DELIVERED)
      return decision.refusal.code === 'rejected' && decision.refusal.reason === 'inbound-refused'
        ? { kind: 'refused', value, inbound: true } : { kind: 'refused', value }
    }
    if (decision.kind === 'go' || decision.kind === 'hold') return { kind: decision.kind, hop: decision.hop }
    if (decision.fact === 'inbound') {
      facts = { ...facts, inbound: await inboundOf(facts.targetId, facts.callerId, call, deps) }
    } else if (decision.fact === 'target') {
      const target = await lookUpTarget(facts.targetId, call, deps)
      if (isStopped(target)) return { kind: 'refused', value: target }
      facts = { ...facts, target }
    } else {
      facts = { ...facts, limits: checkLimits(facts, call, deps) }
    }
  }
}

/**
 * The target's inbound choice: its own (home store), else the `inbound`
 * setting of its machine (this one's, or, for a session of another machine
 * on a shared store, the one that machine published). Read from the store and the settings only, never from the target
 * (docs/tools.md#refusals-and-their-order, guarantee 3). A store that cannot
 * be read leaves the choice unknown, and the send is refused: the target's
 * own `refuse` or `hold` is never bypassed (docs/architecture.md §8). While
 * an earlier message of this sender waits for the target's user, `accept`
 * reads `hold`: this one waits behind it, so a later message never overtakes
 * an earlier one of the same sender (docs/tools.md#inbound-messages).
 */
async function inboundOf(targetId: string, callerId: string | undefined, call: ToolCallContext,
  deps: ToolDeps): Promise<InboundMode | InboundUnknown> {
  try {
    const hostInbound = await deps.sessions.hostInboundOf?.(targetId, call.signal)
    // A store locked for a moment is waited for, with the event loop free (home/store-retry.ts).
    return await retryStore(() => {
      const mode = deps.inbound?.inboundOf(targetId) ?? hostInbound ?? deps.settings.inbound
      const earlierHeld = mode === 'accept' && deps.inbound?.approvals?.(Date.now(), targetId)
        .some(held => held.sender === callerId) === true
      return earlierHeld ? 'hold' : mode
    }, call.signal)
  } catch (error: unknown) {
    deps.log(`reading the inbound choice of ${targetId} failed: ${String(error)}; the send is refused`)
    return { unavailable: storeFaultWhy(error) ?? 'it could not be read' }
  }
}

/** Step 8: rate and hop limits, the hop from the caller's recorded relay source. */
function checkLimits(facts: SendFacts, call: ToolCallContext, deps: ToolDeps): LimitVerdict {
  return deps.limits.check({
    senderId: facts.callerId ?? '',
    targetId: facts.targetId,
    body: facts.body,
    latestRelay: safeLatestRelay(call.caller?.latestRelay.bind(call.caller)),
    maxHops: deps.settings.maxHops,
    maxSendsPerMinute: deps.settings.maxSendsPerMinute,
  })
}

function safeLatestRelay(read: (() => RelayProvenance | undefined) | undefined): RelayProvenance | undefined {
  try {
    return read?.()
  } catch {
    return undefined
  }
}
