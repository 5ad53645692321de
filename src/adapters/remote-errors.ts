/**
 * The session controller's failures, classified: not-found, and the
 * model-safe reason for every other code.
 *
 * Source: `@deepseek-ai/dsh-api-session-controller`
 * 0.1.2-alpha.2: `RemoteError` codes from `RemoteErrorDetailsMap`
 * (lib/typert.host.js) as `resolveAgent` and the prompt path raise them
 * (lib/index.js `ApiSessionAgentController.resolve`,
 * `SessionCommandController.prompt`), and `inspect`'s not-found, a plain
 * `Error` (`ApiSessionNotFound`, `name: 'Error'`, no `code`) whose message is
 * `session "<id>" not found`. Pure. What the model should do per code is
 * in `src/presentation/send.ts`.
 *
 * @module dsh-cross-session/adapters/remote-errors
 */

import { isFailureCode, type FailureKind } from '../core/failure-kinds.js'
import { clipLine, oneLine } from '../core/text.js'

/** Whether a controller error means "no such session": its code, or `inspect`'s plain Error text. */
export function isControllerNotFound(error: { code?: unknown, message?: unknown } | undefined, sessionId: string): boolean {
  if (error === undefined) return false
  if (error.code === 'session/not-found') return true
  return error.code === undefined && error.message === `session "${sessionId}" not found`
}

/**
 * The failure kind of a controller error: its code when the failure table
 * knows it, else `unknown`. The error's message is never shown: it may
 * carry paths or host internals.
 */
export function controllerFailure(error: { code?: unknown } | undefined): FailureKind {
  return isFailureCode(error?.code) ? error.code : 'unknown'
}

/** The raw `code: message` of a controller error, for the log only. */
export function controllerFailureDetail(error: { code?: unknown, message?: unknown } | undefined): string {
  const parts = [error?.code, error?.message].filter((part): part is string => typeof part === 'string' && part.length > 0)
  return parts.length === 0 ? 'the session controller refused without a reason' : clipLine(oneLine(parts.join(': ')), 2000)
}
