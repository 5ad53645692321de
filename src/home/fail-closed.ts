/**
 * Fail closed (docs/architecture.md §8, "When the store fails"): while the
 * home store cannot be used, nothing that depends on another process's
 * state is done. A step of the guarded controller that meets a store fault
 * (`home/store-fault.ts`: locked past the wait, full, an I/O error, a store
 * that could not be opened) answers the `store-unavailable` reason instead
 * of throwing, so the sender reads `the cross-session store is unavailable
 * (…)` and never a backend error; nothing is woken and nothing delivered.
 *
 * The send path refuses even earlier, at the target's inbound choice
 * (`tools/send/gather.ts`): a store that cannot be read leaves the choice
 * unknown, and an unknown choice is never taken for `accept`.
 *
 * @module dsh-cross-session/home/fail-closed
 */

import type { ApprovalStore, ControllerOutcome, ControllerPort, WithdrawStore } from '../ports.js'
import { StoreUnavailableError, storeFaultWhy } from './store-fault.js'
import { retryStore } from './store-retry.js'

/** The refusal of a step the store could not serve. */
function unavailable(why: string): ControllerOutcome<never> {
  return { ok: false, reason: { kind: 'store-unavailable', why } }
}

/**
 * `step()`, tried again for a while on a store fault (`home/store-retry.ts`), then that fault as the
 * `store-unavailable` refusal; any other error is rethrown.
 */
async function guarded<T>(step: () => Promise<ControllerOutcome<T>>, signal: AbortSignal): Promise<ControllerOutcome<T>> {
  try {
    return await retryStore(step, signal)
  } catch (error: unknown) {
    const why = storeFaultWhy(error)
    if (why === undefined) throw error
    return unavailable(why)
  }
}

/**
 * Wrap the guarded controller: `resolve` and `admit` answer a store fault
 * as a refusal. `never`: the home could not be started at all; every
 * `resolve` is refused.
 */
export function failClosed(inner: ControllerPort, never = false): ControllerPort {
  return {
    ...inner,
    resolve: (sessionId, options) => never
      ? Promise.resolve(unavailable('the home could not be started')) : guarded(() => inner.resolve(sessionId, options), options.signal),
    admit: (target, prompt) => guarded(() => inner.admit(target, prompt), prompt.signal),
  }
}

/** The inbound port of a home that could not be started: every read throws, so every send (and withdraw) is refused. */
export function unavailableInbound(why: string): Pick<ApprovalStore, 'inboundOf' | 'holdForApproval' | 'journal'> & WithdrawStore {
  const fail = (): never => {
    throw new StoreUnavailableError(why)
  }
  return { inboundOf: fail, holdForApproval: fail, journal: fail, withdraw: fail }
}
