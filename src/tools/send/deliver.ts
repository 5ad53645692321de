/**
 * Steps 9–10 of `sessions_send` and the wait after them: frame the body,
 * resolve the target (may wake), admit the message, undo a wake that
 * delivered nothing, and wait (bounded) until the message is recorded.
 *
 * Resolve and admit run to completion ({@link callToCompletion}): a wake cut
 * off by cancellation would leave a session woken with nobody to deliver to,
 * and an admitted message is delivered whatever happens to this call; what
 * a cancelled or failed call did is undone or said instead: never a
 * session woken and abandoned, and accepted means recorded
 * (docs/tools.md#sessions_send).
 *
 * @module dsh-cross-session/tools/send/deliver
 */

import { buildFrame } from '../../framing.js'
import type { Admitted, AnswerWait, MailboxStage, ResolvedTarget, SendMode } from '../../ports.js'
import { cancelled, NOTHING_DELIVERED, refused, STEPS, type StoppedValue } from '../../presentation/common.js'
import { failureText } from '../../presentation/failures.js'
import { controllerRefusal, deliveryReasonText, releaseTexts, sendRefusals } from '../../presentation/send.js'
import type { Recorded } from '../../harness/recorded.js'
import { callBackend, callToCompletion } from '../../model/service-boundary.js'
import type { ToolCallContext, ToolDeps } from '../shared.js'
import { TOOL_NAMES } from '../../model/tool-names.js'

const TOOL = TOOL_NAMES.send
const RESOLVING = STEPS.resolving
const ADMITTING = STEPS.admitting

/** One message ready to deliver. */
export interface Outgoing {
  readonly callerId: string
  readonly targetId: string
  readonly mode: SendMode
  readonly hop: number
  readonly requestId: string
  /** The (possibly cut) body before framing. */
  readonly body: string
}

/**
 * The text the target receives: the body, framed when `frameMessages` is on
 * (one `readTitles` of the caller for the frame's title).
 * @returns the text, or the cancellation's value.
 */
export async function messageText(out: Outgoing, call: ToolCallContext,
  deps: ToolDeps): Promise<{ text: string, fromTitle?: string | undefined } | StoppedValue> {
  if (!deps.settings.frameMessages) return { text: out.body }
  const title = await callBackend(STEPS.readingOwnTitle, call.signal, () => deps.sessions.readTitles([out.callerId], call.signal), deps.log)
  if (!title.ok && title.cancelled) return cancelled(TOOL, title.step, NOTHING_DELIVERED)
  const fromTitle = title.ok ? title.value.get(out.callerId) : undefined
  return { text: buildFrame({ fromSessionId: out.callerId, fromTitle, mode: out.mode, hop: out.hop, body: out.body }).text, fromTitle }
}

/** An admitted message and the target it went to. */
interface AdmittedTo {
  readonly target: ResolvedTarget
  readonly admitted: Admitted
}

/**
 * Step 9 (resolve; waking only with `allowResume`) and step 10 (admit).
 * @returns the admission, or the refusal's / cancellation's value.
 */
export async function resolveAndAdmit(out: Outgoing, text: string, call: ToolCallContext,
  deps: ToolDeps): Promise<AdmittedTo | StoppedValue> {
  const resolved = await callToCompletion(RESOLVING, call.signal,
    () => deps.controller.resolve(out.targetId, { mayWake: deps.settings.allowResume, signal: call.signal }), deps.log)
  if (!resolved.ok) {
    // A resume given our signal rejects when it fires: that is a cancellation, not a failure.
    return resolved.cancelled || call.signal.aborted
      ? cancelled(TOOL, resolved.step, NOTHING_DELIVERED)
      : refused(sendRefusals.rejected(failureText(resolved.failure), resolved.step), NOTHING_DELIVERED)
  }
  if (!resolved.value.ok) logDetail(deps, RESOLVING, resolved.value.detail)
  if (!resolved.value.ok)
    return refused(controllerRefusal(resolved.value.code, deliveryReasonText(resolved.value.reason), out.targetId, RESOLVING),
      NOTHING_DELIVERED)
  const target = resolved.value.value
  // What happened to a session this call woke but did not deliver to.
  const undoWake = async (): Promise<string> => target.woke ? `; ${await releaseQuietly(deps, target)}` : ''
  if (call.signal.aborted) return cancelled(TOOL, `${RESOLVING}${await undoWake()}`, NOTHING_DELIVERED)

  const provenance = { senderSessionId: out.callerId, hop: out.hop }
  const admitted = await callToCompletion(ADMITTING, call.signal,
    () => deps.controller.admit(target, { requestId: out.requestId, mode: out.mode, text, provenance, signal: call.signal,
      mayWake: deps.settings.allowResume }), deps.log)
  if (!admitted.ok) {
    return admitted.cancelled
      ? cancelled(TOOL, `${ADMITTING}${await undoWake()}`, NOTHING_DELIVERED)
      : refused(sendRefusals.rejected(`${failureText(admitted.failure)}${await undoWake()}`, admitted.step), NOTHING_DELIVERED)
  }
  if (!admitted.value.ok) logDetail(deps, ADMITTING, admitted.value.detail)
  if (!admitted.value.ok) {
    const reason = `${deliveryReasonText(admitted.value.reason)}${await undoWake()}`
    return refused(controllerRefusal(admitted.value.code, reason, out.targetId, ADMITTING), NOTHING_DELIVERED)
  }
  return { target, admitted: admitted.value.value }
}

/** How the bounded wait ended. */
interface RecordWait {
  readonly recorded: Recorded | MailboxStage | undefined
  readonly cancelled: boolean
}

/** Accepted means recorded: wait, bounded, until the target's log holds the message. */
export async function waitForRecord(out: Outgoing, to: AdmittedTo, call: ToolCallContext, deps: ToolDeps): Promise<RecordWait> {
  const { recordFrom, running, mailboxMessageId } = to.admitted
  const recorded = await callBackend(STEPS.waitingForRecord, call.signal,
    () => deps.controller.waitRecorded(to.target, out.requestId, {
      timeoutMs: deps.settings.recordWaitMs,
      signal: call.signal,
      // A queued message to a busy session joins its conversation only when
      // the current turn ends: the inbox record is all there is to wait for.
      settleForInbox: out.mode === 'queue' && running,
      ...(recordFrom === undefined ? {} : { from: recordFrom }),
      ...(mailboxMessageId === undefined ? {} : { mailboxMessageId }),
    }), deps.log)
  return { recorded: recorded.ok ? recorded.value : undefined, cancelled: !recorded.ok && recorded.cancelled }
}

/**
 * In a short-lived process that woke the target: wait, bounded by
 * `answerWaitMs`, for the turn that took the message to end (once the
 * message is recorded, or queued in the inbox behind a turn the wake
 * started: the process ending first would splice it back out; the
 * controller decides whether there is anything to wait for).
 */
export async function waitForAnswer(out: Outgoing, to: AdmittedTo, wait: RecordWait, call: ToolCallContext,
  deps: ToolDeps): Promise<AnswerWait | undefined> {
  if (wait.cancelled || deps.settings.answerWaitMs <= 0 || deps.controller.waitAnswered === undefined || wait.recorded === undefined
    || !('seq' in wait.recorded)) return undefined
  const answered = await callBackend(STEPS.waitingForAnswer, call.signal,
    () => deps.controller.waitAnswered!(to.target, out.requestId, { timeoutMs: deps.settings.answerWaitMs, signal: call.signal }), deps.log)
  return answered.ok ? answered.value : undefined
}

/**
 * `notify`: ask the home store for one notice when the turn that takes the
 * message ends (docs/tools.md#notices); the limits are the sender's settings.
 * @returns the expiry for the result line, or `'unavailable'` (no home store, or the store write failed).
 */
export function watchAnswer(out: Outgoing, deps: ToolDeps): { ttlMs: number } | 'unavailable' {
  const { settings } = deps
  try {
    const watched = deps.controller.watchAnswer?.({
      requestId: out.requestId,
      senderSessionId: out.callerId,
      targetId: out.targetId,
      hop: out.hop,
      mayWake: settings.allowResume,
      wakeEndedRun: settings.noticeWakesEndedRun,
      maxHops: settings.maxHops,
      perMinute: settings.maxSendsPerMinute,
      ttlMs: settings.noticeTtlMs,
    }) === true
    return watched ? { ttlMs: settings.noticeTtlMs } : 'unavailable'
  } catch (error: unknown) {
    deps.log(`asking for a notice failed: ${String(error)}`)
    return 'unavailable'
  }
}

/** Withdraw the watch of a send that was not accepted; a store that fails to is logged (the watch then only expires). */
export function unwatchAnswer(out: Outgoing, deps: ToolDeps): void {
  try {
    deps.controller.unwatchAnswer?.(out.requestId)
  } catch (error: unknown) {
    deps.log(`withdrawing the notice request failed: ${String(error)}`)
  }
}

function logDetail(deps: ToolDeps, step: string, detail: string | undefined): void {
  if (detail !== undefined) deps.log(`${step} refused: ${detail}`)
}

async function releaseQuietly(deps: ToolDeps, target: ResolvedTarget): Promise<string> {
  try {
    return releaseTexts[await deps.controller.releaseWoken(target)]
  } catch (error: unknown) {
    deps.log(`releasing woken session ${target.sessionId} failed: ${String(error)}`)
    return releaseTexts['release-failed']
  }
}
