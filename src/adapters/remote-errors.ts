/**
 * The session controller's failures, as refusals that say what the model
 * should do next.
 *
 * Source: issue 11 §1 and `@deepseek-ai/dsh-api-session-controller`
 * 0.1.2-alpha.2: `RemoteError` codes from `RemoteErrorDetailsMap`
 * (lib/typert.host.js) as `resolveAgent` and the prompt path raise them
 * (lib/index.js `ApiSessionAgentController.resolve`,
 * `SessionCommandController.prompt`), and `inspect`'s not-found, a plain
 * `Error` (`ApiSessionNotFound`, `name: 'Error'`, no `code`) whose message is
 * `session "<id>" not found`. Pure.
 *
 * @module dsh-cross-session/adapters/remote-errors
 */

import { refusals, type Refusal } from '../refusals.js'
import { clipLine, oneLine } from '../text.js'

/** What the model should do next, per controller error code. */
const NEXT_BY_CODE: Readonly<Record<string, string>> = {
  'session/agent-busy': 'That session refused the message (busy, or owned by subagent routing). Check it with sessions_read and send once more after its current turn; if it is a subagent, message its owner instead.',
  'session/model-unavailable': 'That session\'s model is not served by this host; tell your user to select a model for it. Do not resend until then.',
  'session/steer-unavailable': 'Its current turn no longer accepts steering; send again with mode "queue".',
  'session/queue-item-not-found': 'Its queue changed meanwhile; send again with mode "queue".',
  'session/conflict': 'That session belongs to another workspace in this host; tell your user.',
  'session/workspace-attach-failed': 'That session\'s workspace is not available; tell your user.',
  'workspace/not-found': 'That session\'s workspace is not available; tell your user.',
  'agent-preset/not-found': 'That session\'s agent preset is not available in this host; tell your user.',
  'agent-preset/invalid': 'That session\'s agent preset is not valid in this host; tell your user.',
  'agent-preset/locked': 'That session\'s agent preset is locked; tell your user.',
  'agent-preset/conflict': 'That session\'s agent preset conflicts with this host\'s; tell your user.',
  'gateway/cancelled': 'The host cancelled the request; send again if it is still needed.',
  'gateway/bad-request': 'The host rejected the request as malformed (a plugin or host fault); tell your user.',
  'gateway/internal': 'The host failed internally; try sessions_send once more later, and if it keeps failing, tell your user.',
}

/** Whether a controller error means "no such session": its code, or `inspect`'s plain Error text. */
export function isControllerNotFound(error: { code?: unknown, message?: unknown } | undefined, sessionId: string): boolean {
  if (error === undefined) return false
  if (error.code === 'session/not-found') return true
  return error.code === undefined && error.message === `session "${sessionId}" not found`
}

/** One line for a controller error: `code: message` (clipped), for the refusal's cause and the log. */
export function controllerFailure(error: { code?: unknown, message?: unknown } | undefined): string {
  const parts = [error?.code, error?.message].filter((part): part is string => typeof part === 'string' && part.length > 0)
  return parts.length === 0 ? 'the session controller refused without a reason' : clipLine(oneLine(parts.join(': ')), 200)
}

/**
 * The refusal for a failed controller step.
 * @param code - the controller's error code, if any (`session/agent-busy`, …; `not-found` for a missing session).
 * @param reason - one line from {@link controllerFailure}.
 * @param targetId - the target as the model gave it.
 * @param step - the step that failed, in words.
 */
export function controllerRefusal(code: string | undefined, reason: string, targetId: string, step: string): Refusal {
  // Worded exactly as the not-found of rc.8's non-waking lookup.
  if (code === 'not-found' || code === 'session/not-found') return refusals.notFound(targetId)
  // Own keys only: a code named like an Object.prototype member is unknown.
  const next = code !== undefined && Object.hasOwn(NEXT_BY_CODE, code) ? NEXT_BY_CODE[code] : undefined
  const base = refusals.rejected(reason, step)
  return next === undefined ? base : { ...base, next }
}
