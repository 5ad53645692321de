/**
 * Where `sessions_list` takes its rows from (docs/tools.md#sessions_list): a port's first-list answer when it has one
 * (`SessionQueryPort.listNewest`: the rows it can show and how many pass its filters, docs/performance.md "What a new
 * process reads"), else every row (`listSessions`).
 *
 * @module dsh-cross-session/tools/list-source
 */

import { cancelled, commonRefusals, NOTHING_LISTED, refused, STEPS, type StoppedValue } from '../presentation/common.js'
import type { NewestRequest } from '../ports.js'
import { TOOL_NAMES } from '../model/tool-names.js'
import { callBackend } from '../model/service-boundary.js'
import type { ToolCallContext, ToolDeps } from './shared.js'

/** The rows a list starts from, and how many pass its filters when the port counted them (`listNewest`). */
export interface Listing {
  /** Rows as the port gave them (read defensively: `model/sessions.ts` `readRecord`). */
  readonly rows: readonly unknown[]
  /** With `listNewest`: every session passing the list's header filters (the rows are only those it can show). */
  readonly considered?: number
}

/**
 * The port's first-list rows (`listNewest`); `undefined` when the port declines or fails (the failure is logged):
 * then the list takes every row ({@link listAll}).
 * @returns the rows, `undefined`, or the cancellation to answer.
 */
export async function listNewest(call: ToolCallContext, deps: ToolDeps,
  request: NewestRequest): Promise<Listing | StoppedValue | undefined> {
  const listNewest = deps.sessions.listNewest?.bind(deps.sessions)
  if (listNewest === undefined) return undefined
  const found = await callBackend(STEPS.listing, call.signal, () => listNewest(request, call.signal), deps.log)
  if (!found.ok && found.cancelled) return cancelled(TOOL_NAMES.list, found.step, NOTHING_LISTED)
  return found.ok ? found.value : undefined
}

/**
 * Every row (`listSessions`).
 * @returns the rows, or the refusal or cancellation to answer.
 */
export async function listAll(call: ToolCallContext, deps: ToolDeps): Promise<Listing | StoppedValue> {
  const listed = await callBackend(STEPS.listing, call.signal, () => deps.sessions.listSessions(call.signal), deps.log)
  if (!listed.ok) {
    return listed.cancelled
      ? cancelled(TOOL_NAMES.list, listed.step, NOTHING_LISTED)
      : refused(commonRefusals.backend(listed.step, listed.failure, TOOL_NAMES.list), NOTHING_LISTED)
  }
  return { rows: Array.isArray(listed.value) ? listed.value : [] }
}
