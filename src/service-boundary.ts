/**
 * The one boundary around every backend call: cancellation, and failures
 * turned into model-safe reasons.
 *
 * Pattern of the harness's own `tool-session-query` service boundary: check
 * the signal before and after the call, and never let an error's stack,
 * cause chain or object dump reach the model. The full error goes to the
 * plugin's logger instead (PRODUCT.md §4 "Nothing ever throws to the model").
 *
 * @module dsh-cross-session/service-boundary
 */

import { clipLine, oneLine } from './text.js'

/** Outcome of {@link callBackend}. */
export type BackendResult<T> =
  | { readonly ok: true, readonly value: T }
  | { readonly ok: false, readonly cancelled: true, readonly step: string }
  | { readonly ok: false, readonly cancelled: false, readonly step: string, readonly reason: string }

/** Where full diagnostics go (the plugin's Cordis logger in production). */
export type DiagnosticSink = (message: string) => void

/** Longest model-facing failure reason, in code points (cut on a grapheme boundary). */
const MAX_REASON = 200

/**
 * Run one backend step.
 * @param step - what is being done, in words ("listing sessions").
 * @param signal - the tool call's abort signal; checked before and after.
 * @param run - the backend call (passes `signal` on where it can).
 * @param log - receives the full error, stack included.
 * @returns the value, `cancelled`, or a one-line reason.
 */
export async function callBackend<T>(step: string, signal: AbortSignal, run: () => Promise<T>, log: DiagnosticSink): Promise<BackendResult<T>> {
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
 * @returns the value, `cancelled` (only when aborted before the start), or a
 *   one-line reason.
 */
export async function callToCompletion<T>(step: string, signal: AbortSignal, run: () => Promise<T>, log: DiagnosticSink): Promise<BackendResult<T>> {
  if (signal.aborted) return { ok: false, cancelled: true, step }
  try {
    return { ok: true, value: await run() }
  } catch (error: unknown) {
    return failed(step, error, log)
  }
}

/** A failed step: the full error to the log, a one-line reason to the model. */
function failed(step: string, error: unknown, log: DiagnosticSink): BackendResult<never> {
  log(`${step} failed: ${fullError(error)}`)
  return { ok: false, cancelled: false, step, reason: safeReason(error) }
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

/** A one-line, bounded reason: the error's `code` (if any) and first message line. */
export function safeReason(error: unknown): string {
  try {
    if (error instanceof Error || (typeof error === 'object' && error !== null)) {
      const record = error as { code?: unknown, message?: unknown }
      const code = typeof record.code === 'string' ? record.code : undefined
      const message = typeof record.message === 'string' ? oneLine(record.message.split('\n')[0] ?? '') : ''
      const reason = [code, message].filter(part => part !== undefined && part.length > 0).join(': ')
      return clip(reason.length > 0 ? reason : 'unknown error')
    }
    return clip(oneLine(String(error)) || 'unknown error')
  } catch {
    return 'unprintable error'
  }
}

function clip(text: string): string {
  // Code points and grapheme clusters, never UTF-16 units (issue 11 §6: a surrogate pair was split).
  return clipLine(text, MAX_REASON)
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

/** Text for a call cancelled during `step` (never a partial result). */
export function renderCancelled(tool: string, step: string, consequence: string): string {
  return `cancelled | ${tool} was cancelled while ${step}\n${consequence}`
}
