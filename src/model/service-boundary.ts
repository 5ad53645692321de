/**
 * The service boundary: every backend call goes through here, for
 * cancellation and for failures turned into a {@link FailureKind}.
 *
 * Pattern of the harness's own session-query tool
 * (`@deepseek-ai/dsh-tool-session-query@0.0.1-rc.1` lib/index.js
 * `serviceBoundary`, lib/types/service-boundary.d.ts): check the signal
 * before and after the call, and never let an error's message, stack, cause
 * chain or object dump reach the model. The full error goes to the plugin's
 * logger; the model sees only the kind's row of the closed table in
 * `src/presentation/failures.ts` (docs/tools.md: "Nothing ever throws to the
 * model"; docs/tools.md#refusals-and-their-order, `rejected`).
 *
 * @module dsh-cross-session/model/service-boundary
 */

import { classifyFailure, type FailureKind } from '../core/failure-kinds.js'

/** Outcome of {@link callBackend}. */
type BackendResult<T> =
  | { readonly ok: true, readonly value: T }
  | { readonly ok: false, readonly cancelled: true, readonly step: string }
  | { readonly ok: false, readonly cancelled: false, readonly step: string, readonly failure: FailureKind }

/** Where full diagnostics go (the plugin's Cordis logger in production). */
export type DiagnosticSink = (message: string) => void

/**
 * Run one backend step.
 * @param step - what is being done, in words ("listing sessions").
 * @param signal - the tool call's abort signal; checked before and after.
 * @param run - the backend call (passes `signal` on where it can).
 * @param log - receives the full error, stack included.
 * @returns the value, `cancelled`, or the failure's kind.
 */
export async function callBackend<T>(step: string, signal: AbortSignal, run: () => Promise<T>,
  log: DiagnosticSink): Promise<BackendResult<T>> {
  if (signal.aborted) return { ok: false, cancelled: true, step }
  try {
    const value = await raceAbort(run(), signal)
    if (signal.aborted) return { ok: false, cancelled: true, step }
    return { ok: true, value }
  } catch (error: unknown) {
    if (signal.aborted) return { ok: false, cancelled: true, step }
    return failed(step, error, log)
  }
}

/**
 * Run one backend step that commits something (waking a session, admitting a
 * prompt) to completion, even if the call is cancelled meanwhile: racing it
 * against the signal would report "cancelled, nothing delivered" while the
 * backend goes on to wake or deliver. The caller checks `signal.aborted`
 * afterwards and undoes or reports what happened. A signal already aborted
 * before the step starts skips it.
 * @returns the value, `cancelled` (only when aborted before the start), or
 *   the failure's kind.
 */
export async function callToCompletion<T>(step: string, signal: AbortSignal, run: () => Promise<T>,
  log: DiagnosticSink): Promise<BackendResult<T>> {
  if (signal.aborted) return { ok: false, cancelled: true, step }
  try {
    return { ok: true, value: await run() }
  } catch (error: unknown) {
    return failed(step, error, log)
  }
}

/** A failed step: the full error to the log, only its kind to the caller. */
function failed(step: string, error: unknown, log: DiagnosticSink): BackendResult<never> {
  log(`${step} failed: ${fullError(error)}`)
  return { ok: false, cancelled: false, step, failure: classifyFailure(error) }
}

/**
 * Settle with `promise`, or reject as soon as `signal` aborts: a backend that
 * ignores its signal (or hangs) cannot hold the tool call past cancellation.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      value => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** Full diagnostic text (stack and causes) for the log only. */
export function fullError(error: unknown): string {
  try {
    const parts: string[] = []
    const seen = new Set<unknown>()
    let current: unknown = error
    while (current !== undefined && !seen.has(current)) {
      seen.add(current)
      parts.push(current instanceof Error ? (current.stack ?? String(current)) : String(current))
      current = current instanceof Error ? current.cause : undefined
    }
    return parts.join('\nCaused by: ')
  } catch {
    return '[unprintable error]'
  }
}
