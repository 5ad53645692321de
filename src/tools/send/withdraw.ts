/**
 * `sessions_send` with `withdraw: true` (docs/tools.md#withdrawing-a-message):
 * take back a message this session sent that is still waiting in the home
 * store. The other arguments name it as they named it when it was sent:
 * `session_id` its target, `message` its text, `mode` when it was given
 * (any mode otherwise); the newest such message is the one. Nothing is
 * sent, nothing touches the target; one store transition decides
 * (`home/store-withdraw.ts`).
 *
 * @module dsh-cross-session/tools/send/withdraw
 */

import { callIdentity, requestIdFor } from '../../model/limits.js'
import { commonRefusals, refused, type StoppedValue } from '../../presentation/common.js'
import { NOTHING_WITHDRAWN, withdrawRefusals, withdrawValue, type WithdrawValue } from '../../presentation/withdraw.js'
import type { SessionsSendArgs } from '../../model/schemas.js'
import { storeFaultWhy } from '../../home/store-fault.js'
import type { ToolCallContext, ToolDeps } from '../shared.js'

/** The digests a send with these arguments has in its id (`requestIdFor`), for each mode it may have been sent with. */
export function sendDigests(callerId: string, args: Pick<SessionsSendArgs, 'session_id' | 'message' | 'mode'>): string[] {
  // A mode given now may have been left out then (the default applied).
  const modes = args.mode === undefined ? [undefined, 'queue', 'steer'] : [args.mode, undefined]
  return modes.map(mode => requestIdFor(callerId, callIdentity('', { session_id: args.session_id, message: args.message, mode }))
    .split(':').at(-1) ?? '')
}

/**
 * Withdraw. Never throws.
 * @returns the `withdraw` value (withdrawn, or too late and where the message is), or a refusal
 *   (`rejected`: no caller or the store is unavailable; `nothing-to-withdraw`).
 */
export function withdrawSend(args: SessionsSendArgs, call: ToolCallContext, deps: ToolDeps): WithdrawValue | StoppedValue {
  const caller = call.caller
  if (caller === undefined) return refused(commonRefusals.noCaller(), NOTHING_WITHDRAWN)
  const withdraw = deps.inbound?.withdraw
  if (withdraw === undefined) return refused(withdrawRefusals.storeUnavailable('this dsh process has none'), NOTHING_WITHDRAWN)
  try {
    const outcome = withdraw.call(deps.inbound, caller.sessionId, { target: args.session_id, digests: sendDigests(caller.sessionId, args) })
    return outcome.ok || outcome.reason === 'too-late'
      ? withdrawValue(outcome) : refused(withdrawRefusals.nothing(args.session_id), NOTHING_WITHDRAWN)
  } catch (error: unknown) {
    // Fail closed: a store that cannot be used withdraws nothing and says so.
    const why = storeFaultWhy(error)
    if (why === undefined) deps.log(`withdrawing a message failed: ${String(error)}`)
    return refused(withdrawRefusals.storeUnavailable(why ?? 'the withdraw failed; see the cross-session log'), NOTHING_WITHDRAWN)
  }
}
