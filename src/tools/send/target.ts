/**
 * Step 5 of `sessions_send`: the non-waking lookup of the target, as the
 * caller may see it.
 *
 * Source: docs/tools.md#refusals-and-their-order (step 5: an id outside the
 * caller's visibility reads exactly like one that never existed).
 *
 * @module dsh-cross-session/tools/send/target
 */

import type { TargetFact } from '../../refusals.js'
import { cancelled, commonRefusals, NOTHING_DELIVERED, refused, STEPS, type StoppedValue } from '../../presentation/common.js'
import { canNameSession, isVisible } from '../../model/sessions.js'
import { callBackend } from '../../model/service-boundary.js'
import type { ToolCallContext, ToolDeps } from '../shared.js'
import { TOOL_NAMES } from '../../model/tool-names.js'

const TOOL = TOOL_NAMES.send

/** Step 5: the non-waking lookup, with visibility applied; a failure as the stopped call's value. */
export async function lookUpTarget(targetId: string, call: ToolCallContext, deps: ToolDeps): Promise<TargetFact | StoppedValue> {
  // An id that cannot name a session never reaches a backend.
  if (!canNameSession(targetId)) return { kind: 'absent' }
  const found = await callBackend(STEPS.lookingUpTarget, call.signal, () => deps.sessions.lookup(targetId, call.signal), deps.log)
  if (!found.ok) {
    return found.cancelled
      ? cancelled(TOOL, found.step, NOTHING_DELIVERED)
      : refused(commonRefusals.backend(found.step, found.failure, TOOL), NOTHING_DELIVERED)
  }
  const record = found.value
  const caller = call.caller
  // Outside the caller's visibility reads exactly like an id that never existed.
  return record === undefined || caller === undefined || !isVisible(record.header, caller.header, deps.settings.visibility)
    ? { kind: 'absent' }
    : { kind: 'present', header: record.header, live: record.live }
}
