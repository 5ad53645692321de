/**
 * The `hold` branch of `sessions_send`: the target's user approves messages
 * from peers, so the message is kept in the home store for them, framed as
 * it would have been delivered (frame, hop, mode), and nothing is resolved,
 * admitted or written to the target (docs/tools.md#inbound-messages).
 * Delivering it later is one store transition (`home/store-approvals.ts`
 * `decide`) that hands it to the normal delivery through the store.
 *
 * @module dsh-cross-session/tools/send/hold
 */

import { truncateChars } from '../../core/text.js'
import { callBackend } from '../../model/service-boundary.js'
import { isStopped, NOTHING_DELIVERED, refused, STEPS, type StoppedValue } from '../../presentation/common.js'
import { holdUnavailable, type HeldValue } from '../../presentation/inbound.js'
import { deliveryReasons } from '../../presentation/send.js'
import type { ToolCallContext, ToolDeps } from '../shared.js'
import { messageText, watchAnswer, type Outgoing } from './deliver.js'
import { retryStore } from '../../home/store-retry.js'
import { storeFaultWhy } from '../../home/store-fault.js'

/** One send to hold: the outgoing message and its body as cut. */
export interface ToHold {
  readonly out: Outgoing
  readonly cut: ReturnType<typeof truncateChars>
  /** The sender asked for a notice of the outcome. */
  readonly notify: boolean
}

/**
 * Keep the message for the target's user.
 * @returns the held message (`held`), or a refusal / cancellation.
 */
export async function holdMessage({ out, cut, notify }: ToHold, call: ToolCallContext, deps: ToolDeps): Promise<HeldValue | StoppedValue> {
  const framed = await messageText(out, call, deps)
  if (isStopped(framed)) return framed
  const store = deps.inbound
  if (store === undefined)
    return refused(holdUnavailable(out.targetId, 'this dsh process has no cross-session store under DSH_HOME'), NOTHING_DELIVERED)
  // With frames off the title was not read for the frame; the approval card shows it.
  let senderTitle = framed.fromTitle
  if (senderTitle === undefined && !deps.settings.frameMessages) {
    const title = await callBackend(STEPS.readingOwnTitle, call.signal, () => deps.sessions.readTitles([out.callerId], call.signal),
      deps.log)
    senderTitle = title.ok ? title.value.get(out.callerId) : undefined
  }
  // `notify`: watched now, so a delivery later is watched like any send; a refusal or expiry fires it (home/approval-notices.ts).
  const watched = notify ? watchAnswer(out, deps) : undefined
  let held
  try {
    // A store locked for a moment is waited for, with the event loop free (home/store-retry.ts); a hold is idempotent by id.
    held = await retryStore(() => store.holdForApproval({
      messageId: out.requestId, target: out.targetId, sender: out.callerId, senderTitle: senderTitle ?? '', hop: out.hop, mode: out.mode,
      text: framed.text, body: out.body, mayWake: deps.settings.allowResume,
      notify: watched !== undefined && watched !== 'unavailable', expiresAt: Date.now() + deps.settings.holdExpiryMs,
    }), call.signal)
  } catch (error: unknown) {
    unwatch(watched, out, deps)
    deps.log(`holding a message for ${out.targetId} failed: ${String(error)}`)
    return refused(holdUnavailable(out.targetId,
      deliveryReasons.storeWriteFailed(storeFaultWhy(error)
        ?? (error instanceof Error && 'code' in error ? String(error.code) : 'SQLite error'))), NOTHING_DELIVERED)
  }
  if (!held.ok) unwatch(watched, out, deps)
  if (!held.ok) return refused(holdUnavailable(out.targetId, 'it already has 64 messages waiting for its user\'s approval'),
    NOTHING_DELIVERED)
  return {
    kind: 'held',
    targetId: out.targetId, mode: out.mode, hop: out.hop, chars: cut.totalChars - cut.omittedChars,
    ...(cut.omittedChars > 0 ? { truncatedFrom: cut.totalChars } : {}),
    expiresInMs: Math.max(0, held.approval.expiresAt - Date.now()), duplicate: held.duplicate,
    ...(watched === undefined ? {} : { notice: watched === 'unavailable' ? 'unavailable' : 'watched' }),
  }
}

function unwatch(watched: ReturnType<typeof watchAnswer> | undefined, out: Outgoing, deps: ToolDeps): void {
  if (watched !== undefined && watched !== 'unavailable') deps.controller.unwatchAnswer?.(out.requestId)
}
