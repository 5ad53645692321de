/**
 * `sessions_send`: deliver a message into a top-level peer's inbox.
 *
 * Source: docs/tools.md#sessions_send (arguments, `queue` / `steer`, output,
 * "accepted means recorded", retries), docs/tools.md#the-frame and
 * docs/tools.md#refusals-and-their-order (refusal codes, the fixed order and
 * both ordering guarantees).
 *
 * Reads top to bottom: validate (`send/arguments.ts`) → gather facts and
 * decide (`send/gather.ts` over `src/refusals/order.ts`: nothing touches the target
 * before the checks that must come first) → deliver (`send/deliver.ts`) →
 * present (`src/presentation/accepted.ts`).
 *
 * Backend calls per accepted send: one non-waking `lookup` of the target
 * (no corpus listing), one `readTitles` of the caller (for the frame), one
 * `resolve`, one `admit`, one bounded `waitRecorded` (and, from a headless
 * run that woke the target, one bounded `waitAnswered`, then one more
 * `waitRecorded` when the message waited in the inbox behind a turn); with
 * `notify`, one `watchAnswer` (a store write) before the admission.
 *
 * @module dsh-cross-session/tools/sessions-send
 */

import type { AnswerWait, MailboxStage, ResolvedTarget, SendMode } from '../ports.js'
import type { Recorded } from '../harness/recorded.js'
import type { AcceptedValue, ShownRemote } from '../presentation/accepted.js'
import { shownMachine } from '../presentation/list.js'
import { commonRefusals, isStopped, NOTHING_DELIVERED, refused, type StoppedValue } from '../presentation/common.js'
import type { SendValue } from '../presentation/results.js'
import { truncateChars } from '../core/text.js'
import { readSendInput, requestIdFor } from './send/arguments.js'
import { messageText, resolveAndAdmit, unwatchAnswer, waitForAnswer, waitForRecord, watchAnswer, type Outgoing } from './send/deliver.js'
import { gatherAndDecide } from './send/gather.js'
import type { ToolCallContext, ToolDeps } from './shared.js'
import { holdMessage } from './send/hold.js'
import type { LocalDelivery } from '../ports.js'
import { isSubagent } from '../model/sessions.js'
import { withdrawSend } from './send/withdraw.js'

/** Journal a send for the traffic view; a store that cannot be written only loses that row (logged). */
function journal(deps: ToolDeps, entry: LocalDelivery): void {
  try {
    deps.inbound?.journal(entry)
  } catch (error: unknown) {
    deps.log(`journaling a message for the traffic view failed: ${String(error)}`)
  }
}

/** Where the bound found the message, the fields a result shows only (a port may add its own). */
function shownRecorded(recorded: Recorded | MailboxStage): Recorded | MailboxStage {
  if (recorded.stage === 'refused') return { stage: 'refused', reason: recorded.reason }
  const extra = recorded as { running?: unknown, takenOver?: unknown }
  return {
    ...('seq' in recorded ? { stage: recorded.stage, seq: recorded.seq } : { stage: recorded.stage }),
    ...(typeof extra.running === 'boolean' ? { running: extra.running } : {}),
    ...(extra.takenOver === true ? { takenOver: true } : {}),
  } as Recorded | MailboxStage
}

/** How the wait for the woken session's answer ended, the fields a result shows only. */
function shownAnswer(answer: AnswerWait): AnswerWait {
  return answer.ended ? { ended: true, reason: answer.reason, seq: answer.seq } : { ended: false, waitedMs: answer.waitedMs }
}

/**
 * Execute one `sessions_send` call. Never throws; never leaves a session
 * woken and abandoned.
 * @param rawArgs - arguments as the harness passed them (validated here).
 * @param call - caller, call id (→ `requestId`) and abort signal.
 * @param deps - ports, settings and send limits.
 * @returns the accepted (`accepted`), held (`held`) or retried (`retried`) send, a refusal (`invalid-arguments`, `not-found`,
 *   `not-messageable`, `resume-disabled`, `empty-body`, `self-target`,
 *   `rate-limited`, `rejected`), or a cancellation; with `withdraw: true`,
 *   what `send/withdraw.ts` answers.
 */
export async function sessionsSend(rawArgs: unknown, call: ToolCallContext, deps: ToolDeps): Promise<SendValue | StoppedValue> {
  const { settings, limits } = deps
  // Validate.
  const { args, facts, identity } = readSendInput(rawArgs, call.caller, call.callId, settings.allowResume)
  const caller = call.caller
  // Take back a message sent earlier with these arguments: nothing is sent (docs/tools.md#withdrawing-a-message).
  if (args?.withdraw === true && facts.argumentProblem === undefined) return withdrawSend(args, call, deps)
  // A retried tool call (same caller, same call id, same arguments) returns
  // its first result, never a second delivery (docs/tools.md#sessions_send, "Retries").
  if (args !== undefined && caller !== undefined && facts.argumentProblem === undefined) {
    const earlier = limits.earlierCallResult(caller.sessionId, identity)
    if (earlier !== undefined) return { kind: 'retried', first: earlier }
  }

  // Gather facts and decide (steps 1–8).
  const decided = await gatherAndDecide(facts, call, deps)
  if (args === undefined || caller === undefined)
    return decided.kind === 'refused' ? decided.value : refused(commonRefusals.noCaller(), NOTHING_DELIVERED)
  const requestId = requestIdFor(caller.sessionId, identity)
  const mode: SendMode = args.mode ?? settings.defaultSendMode
  if (decided.kind === 'refused') {
    if (decided.inbound === true)
      journal(deps, { messageId: requestId, target: args.session_id, sender: caller.sessionId, hop: 0, mode, state: 'refused',
        reason: 'inbound' })
    return decided.value
  }

  // Deliver (steps 9–10, then the bounded wait).
  // A subagent never gets a notice (no process holds it): `notify: true` was refused in step 1, `notifyByDefault` is not applied.
  const notify = (args.notify ?? settings.notifyByDefault) && !isSubagent(caller.header)
  const cut = truncateChars(args.message, settings.maxSendChars)
  const out: Outgoing = { callerId: caller.sessionId, targetId: args.session_id, mode, hop: decided.hop, requestId, body: cut.text }
  // The target's user approves messages from peers: kept for them, nothing touches the target (docs/tools.md#inbound-messages).
  if (decided.kind === 'hold') {
    const held = await holdMessage({ out, cut, notify }, call, deps)
    if (held.kind === 'held') {
      limits.recordDelivery(caller.sessionId, args.session_id, args.message)
      limits.recordCall(caller.sessionId, identity, held)
    }
    return held
  }
  const text = await messageText(out, call, deps)
  if (isStopped(text)) return text
  // Watched before admission, so the turn that takes it cannot end first (docs/tools.md#notices).
  const notice = notify ? watchAnswer(out, deps) : undefined
  const admitted = await resolveAndAdmit(out, text.text, call, deps)
  if (isStopped(admitted)) {
    if (notice !== undefined && notice !== 'unavailable') unwatchAnswer(out, deps)
    return admitted
  }
  limits.recordDelivery(caller.sessionId, args.session_id, args.message)
  let wait = await waitForRecord(out, admitted, call, deps)
  const answer = await waitForAnswer(out, admitted, wait, call, deps)
  // Queued behind a running turn, it joined the conversation when the turn that answered it started: say where.
  if (answer?.ended === true && wait.recorded?.stage === 'inbox') wait = await waitForRecord(out, admitted, call, deps)
  // Delivered here without a store row (no home store holds the target): the traffic view learns of it from the journal.
  if (admitted.target.remote === undefined && admitted.admitted.stored !== true) {
    const seq = wait.recorded?.stage === 'conversation' ? wait.recorded.seq : undefined
    journal(deps, {
      messageId: requestId, target: out.targetId, sender: out.callerId, hop: out.hop, mode,
      state: seq === undefined ? 'pending' : 'recorded', ...(seq === undefined ? {} : { seq }),
    })
  }
  // Refused by the holding process: no turn will take it, so no notice will come.
  const refusedThere = wait.recorded?.stage === 'refused'
  if (refusedThere && notice !== undefined && notice !== 'unavailable') unwatchAnswer(out, deps)

  // Present.
  const remote = admitted.target.remote
  const result: AcceptedValue = {
    kind: 'accepted',
    targetId: args.session_id,
    mode,
    chars: cut.totalChars - cut.omittedChars,
    ...(cut.omittedChars > 0 ? { truncatedFrom: cut.totalChars } : {}),
    hop: decided.hop,
    woke: admitted.target.woke,
    running: admitted.admitted.running,
    ...(admitted.admitted.stored === true ? { stored: true } : {}),
    ...(wait.recorded === undefined ? {} : { recorded: shownRecorded(wait.recorded) }),
    ...(remote === undefined ? {} : { remote: shownRemote(remote) }),
    recordWaitMs: settings.recordWaitMs,
    waitCancelled: wait.cancelled,
    ...(answer === undefined ? {} : { answer: shownAnswer(answer) }),
    ...(notice === undefined || refusedThere ? {} : { notice }),
  }
  limits.recordCall(caller.sessionId, identity, result)
  return result
}

/** Where the message went, as the result shows it: another process of this home, or another machine (no pid there). */
function shownRemote(remote: NonNullable<ResolvedTarget['remote']>): ShownRemote {
  const handoff = remote.handoff === true ? { handoff: true } : {}
  if (remote.machine !== undefined) return { machine: shownMachine(remote.machine), ...handoff }
  return { pid: remote.pid, ...handoff, ...(remote.runTask === true ? { runTask: true } : {}) }
}
