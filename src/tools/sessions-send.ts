/**
 * `sessions_send`: deliver a message into a top-level peer's inbox.
 *
 * Source: seed 004 `sessions_send` (arguments, `queue` / `steer`, output,
 * framing, refusal codes and both ordering guarantees) and PRODUCT.md §4
 * (the ten-step order, `requestId` from the tool call id, duplicates,
 * "accepted means recorded") and §5 (frame).
 *
 * The order of checks lives in {@link decideSend} (`src/refusals.ts`); this
 * executor only fetches the fact that function asks for next, so nothing
 * touches the target before the checks that must come first.
 *
 * Backend calls per accepted send: one non-waking `lookup` of the target
 * (no corpus listing), one `readTitles` of the caller (for the frame), one
 * `resolve`, one `admit`, one bounded `waitRecorded`.
 *
 * @module dsh-cross-session/tools/sessions-send
 */

import { controllerRefusal } from '../adapters/remote-errors.js'
import { callBackend, callToCompletion, renderCancelled } from '../service-boundary.js'
import { buildFrame } from '../framing.js'
import { callIdentity } from '../limits.js'
import { renderRemoteTail } from '../home/texts.js'
import type { MailboxStage, RecordedAt, ResolvedTarget, SendMode, ToolCallContext } from '../ports.js'
import type { RelayProvenance } from '../provenance.js'
import { decideSend, refusals, renderRefusal, type SendFacts } from '../refusals.js'
import { sessionIdProblem, SessionsSendArgs, validateArguments } from '../schemas.js'
import { isVisible } from '../sessions.js'
import { findForbiddenChar, truncateChars } from '../text.js'
import { displayId, type ToolDeps } from './shared.js'

const TOOL = 'sessions_send'
const NOTHING = 'Nothing was delivered.'

/**
 * Correlation id (and, on rc.8, message id) of one send: caller plus
 * {@link callIdentity} — the call id and a digest of the arguments — so a
 * provider that repeats `call_0` for different sends never gives two
 * different messages one id (issue 11 §2), while a true retry keeps its id.
 */
export function requestIdFor(callerId: string, identity: string): string {
  const [callId = '', digest = ''] = identity.split('\u0000')
  return `cross-session:${callerId}:${callId}:${digest.slice(0, 16)}`
}

/** Problems step 1 adds to schema validation: malformed ids, forbidden characters. */
export function extraArgumentProblem(sessionId: string, message: string): string | undefined {
  const idProblem = sessionIdProblem(sessionId)
  if (idProblem !== undefined) return idProblem
  const forbidden = findForbiddenChar(message)
  if (forbidden !== undefined) {
    return `argument "message" contains ${forbidden.kind === 'control character' ? 'a' : 'an'} ${forbidden.kind} (${forbidden.codePoint}) at character ${forbidden.position}; remove it (tab and newline are fine)`
  }
  return undefined
}

/** Input of {@link renderAccepted}. */
export interface AcceptedLine {
  readonly targetId: string
  readonly mode: SendMode
  readonly chars: number
  readonly truncatedFrom?: number
  readonly hop: number
  readonly woke: boolean
  readonly running: boolean
  /** Where the message was found by the bound, if anywhere (a mailbox stage for a remote target). */
  readonly recorded?: RecordedAt | MailboxStage
  /** Set when the target is live in another dsh process (issue 8): delivered through the mailbox. */
  readonly remote?: { readonly pid: number }
  readonly recordWaitMs: number
  readonly waitCancelled: boolean
}

/**
 * The success text (seed 004 "Output (accepted)", plus where it was recorded
 * and honest wording for `queue` vs `steer`).
 */
export function renderAccepted(line: AcceptedLine): string {
  const chars = line.truncatedFrom === undefined ? `chars=${line.chars}` : `chars=${line.chars} (truncated from ${line.truncatedFrom})`
  let head = `accepted for ${displayId(line.targetId)} | mode=${line.mode} | ${chars} | hop ${line.hop}`
  if (line.remote !== undefined) {
    const tail = renderRemoteTail({ pid: line.remote.pid, mode: line.mode, recorded: line.recorded, recordWaitMs: line.recordWaitMs, waitCancelled: line.waitCancelled })
    const cut = line.truncatedFrom === undefined ? '' : ` Only the first ${line.chars} characters were delivered (maxSendChars).`
    return `${head}${tail.head}\n${tail.body}${cut} Its reply will not return through this call; read it later with sessions_read.`
  }
  if (line.woke) head += ' (woke a cold session)'
  if (line.recorded?.stage === 'conversation') head += ` | recorded at seq ${line.recorded.seq}`
  else if (line.recorded?.stage === 'inbox') head += ` | in its inbox at seq ${line.recorded.seq}, not yet in its conversation`
  else if (line.waitCancelled) head += ' | admitted; recording not confirmed (wait cancelled)'
  else head += ` | admitted, not yet recorded after ${line.recordWaitMs} ms`
  let body: string
  if (line.mode === 'queue') {
    body = line.running
      ? 'The message is queued in that session\'s inbox; it becomes its next turn after the current one ends.'
      : 'The message is queued in that session\'s inbox and starts its next turn now (it was idle).'
  } else {
    body = line.running
      ? 'The message was inserted into the turn that session is running now.'
      : 'That session was idle, so the steering message started a new turn.'
  }
  if (line.truncatedFrom !== undefined) body += ` Only the first ${line.chars} characters were delivered (maxSendChars).`
  if (line.recorded?.stage !== 'conversation') {
    const joins = line.mode === 'queue' ? 'next turn' : 'next step'
    body += ` It is not durable until that session's ${joins} starts: if its process ends first, the message may be lost.`
  }
  body += ' Its reply will not return through this call; read it later with sessions_read.'
  return `${head}\n${body}`
}

/**
 * Execute one `sessions_send` call. Never throws; never leaves a session
 * woken and abandoned.
 * @param rawArgs - arguments as the harness passed them (validated here).
 * @param call - caller, call id (→ `requestId`) and abort signal.
 * @param deps - ports, settings and send limits.
 * @returns the accepted line, a refusal (`invalid-arguments`, `not-found`,
 *   `not-messageable`, `resume-disabled`, `empty-body`, `self-target`,
 *   `rate-limited`, `rejected`), or a cancellation.
 */
export async function sessionsSend(rawArgs: unknown, call: ToolCallContext, deps: ToolDeps): Promise<string> {
  const { settings, limits } = deps
  const parsed = validateArguments(SessionsSendArgs, rawArgs)
  const args = parsed.ok ? parsed.value : undefined
  const caller = call.caller
  const facts: SendFacts = {
    argumentProblem: parsed.ok ? extraArgumentProblem(parsed.value.session_id, parsed.value.message) : parsed.problem,
    callerId: caller?.sessionId,
    targetId: args?.session_id ?? '',
    body: args?.message ?? '',
    allowResume: settings.allowResume,
  }

  // A retried tool call (same caller, same call id, same arguments) returns
  // its first result, never a second delivery. A repeated id with other
  // arguments is a new call (issue 11 §2).
  const identity = args === undefined ? '' : callIdentity(call.callId, args)
  if (args !== undefined && caller !== undefined && facts.argumentProblem === undefined) {
    const earlier = limits.earlierCallResult(caller.sessionId, identity)
    if (earlier !== undefined) return `${earlier}\n(This tool call, same id and arguments, was already delivered once; it was not delivered again.)`
  }

  const decided = await gatherAndDecide(facts, call, deps)
  if (decided.kind === 'refused') return decided.text
  if (args === undefined || caller === undefined) return renderRefusal(refusals.noCaller(), NOTHING)
  const mode: SendMode = args.mode ?? settings.defaultSendMode
  const cut = truncateChars(args.message, settings.maxSendChars)

  let text = cut.text
  if (settings.frameMessages) {
    const title = await callBackend('reading this session\'s title', call.signal, () => deps.sessions.readTitles([caller.sessionId], call.signal), deps.log)
    if (!title.ok && title.cancelled) return renderCancelled(TOOL, title.step, NOTHING)
    text = buildFrame({
      fromSessionId: caller.sessionId,
      fromTitle: title.ok ? title.value.get(caller.sessionId) : undefined,
      mode,
      hop: decided.hop,
      body: cut.text,
    }).text
  }

  // Step 9: resolve. Waking is allowed only when allowResume is on. Run to
  // completion: a wake cut off by cancellation would leave a session woken
  // with nobody to deliver to, so it is undone below instead.
  const resolved = await callToCompletion('resolving the target session', call.signal,
    () => deps.controller.resolve(args.session_id, { mayWake: settings.allowResume, signal: call.signal }), deps.log)
  if (!resolved.ok) {
    // A resume given our signal rejects when it fires: that is a cancellation, not a failure.
    return resolved.cancelled || call.signal.aborted
      ? renderCancelled(TOOL, resolved.step, NOTHING)
      : renderRefusal(refusals.rejected(resolved.reason, resolved.step), NOTHING)
  }
  if (!resolved.value.ok) return renderRefusal(controllerRefusal(resolved.value.code, resolved.value.reason, args.session_id, 'resolving the target session'), NOTHING)
  const target = resolved.value.value
  // What happened to a session this call woke but did not deliver to.
  const undoWake = async (): Promise<string> => target.woke ? `; ${await releaseQuietly(deps, target)}` : ''
  if (call.signal.aborted) return renderCancelled(TOOL, `resolving the target session${await undoWake()}`, NOTHING)

  // Step 10: admit, also to completion: once admitted, the message is
  // delivered whatever happens to this call. A failure after a wake puts the
  // woken session back to sleep.
  const requestId = requestIdFor(caller.sessionId, identity)
  const admitted = await callToCompletion('admitting the message', call.signal,
    () => deps.controller.admit(target, { requestId, mode, text, provenance: { senderSessionId: caller.sessionId, hop: decided.hop }, signal: call.signal }), deps.log)
  if (!admitted.ok) {
    return admitted.cancelled
      ? renderCancelled(TOOL, `admitting the message${await undoWake()}`, NOTHING)
      : renderRefusal(refusals.rejected(`${admitted.reason}${await undoWake()}`, admitted.step), NOTHING)
  }
  if (!admitted.value.ok) return renderRefusal(controllerRefusal(admitted.value.code, `${admitted.value.reason}${await undoWake()}`, args.session_id, 'admitting the message'), NOTHING)
  limits.recordDelivery(caller.sessionId, args.session_id, args.message)
  const { running: targetRunning, recordFrom } = admitted.value.value

  // Accepted means recorded: wait, bounded, until the target's log holds it.
  const recorded = await callBackend('waiting for the message to be recorded', call.signal,
    // A queued message to a busy session joins its conversation only when the
    // current turn ends: the inbox record is all there is to wait for.
    () => deps.controller.waitRecorded(target, requestId, {
      timeoutMs: settings.recordWaitMs,
      signal: call.signal,
      settleForInbox: mode === 'queue' && targetRunning,
      ...(recordFrom === undefined ? {} : { from: recordFrom }),
    }), deps.log)
  const result = renderAccepted({
    targetId: args.session_id,
    mode,
    chars: cut.totalChars - cut.omittedChars,
    ...(cut.omittedChars > 0 ? { truncatedFrom: cut.totalChars } : {}),
    hop: decided.hop,
    woke: target.woke,
    running: targetRunning,
    ...(recorded.ok && recorded.value !== undefined ? { recorded: recorded.value } : {}),
    ...(target.remote === undefined ? {} : { remote: target.remote }),
    recordWaitMs: settings.recordWaitMs,
    waitCancelled: !recorded.ok && recorded.cancelled,
  })
  limits.recordCall(caller.sessionId, identity, result)
  return result
}

/**
 * Steps 1–8: ask {@link decideSend} what it needs, fetch only that, repeat.
 * @returns the first refusal as text, or `go` with the outgoing hop.
 */
async function gatherAndDecide(initial: SendFacts, call: ToolCallContext, deps: ToolDeps): Promise<{ kind: 'refused', text: string } | { kind: 'go', hop: number }> {
  const { settings, limits } = deps
  let facts = initial
  for (;;) {
    const decision = decideSend(facts)
    if (decision.kind === 'refuse') return { kind: 'refused', text: renderRefusal(decision.refusal, NOTHING) }
    if (decision.kind === 'go') return { kind: 'go', hop: decision.hop }
    if (decision.fact === 'target') {
      const found = await callBackend('looking up the target session', call.signal, () => deps.sessions.lookup(facts.targetId, call.signal), deps.log)
      if (!found.ok) {
        return {
          kind: 'refused',
          text: found.cancelled
            ? renderCancelled(TOOL, found.step, NOTHING)
            : renderRefusal(refusals.backend(found.step, found.reason, TOOL), NOTHING),
        }
      }
      const record = found.value
      const caller = call.caller
      // Outside the caller's visibility reads exactly like an id that never existed.
      facts = record === undefined || caller === undefined || !isVisible(record.header, caller.header, settings.visibility)
        ? { ...facts, target: { kind: 'absent' } }
        : { ...facts, target: { kind: 'present', header: record.header, live: record.live } }
    } else {
      facts = {
        ...facts,
        limits: limits.check({
          senderId: facts.callerId ?? '',
          targetId: facts.targetId,
          body: facts.body,
          latestRelay: safeLatestRelay(call.caller?.latestRelay.bind(call.caller)),
          maxHops: settings.maxHops,
          maxSendsPerMinute: settings.maxSendsPerMinute,
        }),
      }
    }
  }
}

function safeLatestRelay(read: (() => RelayProvenance | undefined) | undefined): RelayProvenance | undefined {
  try {
    return read?.()
  } catch {
    return undefined
  }
}

async function releaseQuietly(deps: ToolDeps, target: ResolvedTarget): Promise<string> {
  try {
    return await deps.controller.releaseWoken(target)
  } catch (error: unknown) {
    deps.log(`releasing woken session ${target.sessionId} failed: ${String(error)}`)
    return 'the woken session could not be released and may stay live until the host stops'
  }
}
