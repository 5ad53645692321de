/**
 * What the sender of a held message learns when its target's user decided
 * it, or it expired (docs/tools.md#inbound-messages): one call per outcome,
 * made by the process that committed the decision or the expiry.
 *
 * A sender that asked for a notice (`sessions_send` `notify`) has a watch on
 * the message (docs/architecture.md §8, "Notices"). Delivered, the message
 * is watched like any other (the notice comes when the turn that takes it
 * ends). Refused or expired, it never reaches a turn: the watch is fired
 * here with that outcome, so the notice (`heldNoticeText`) is posted to the
 * sender through the same transition, with the same limits, as every
 * notice.
 *
 * @module dsh-cross-session/home/approval-notices
 */

import { heldNoticeText } from '../framing.js'
import type { Approval } from '../ports.js'
import type { HomeStore } from './store.js'

/**
 * A held message left the `held` state.
 * @param store - the home store (where a notice to the sender would be queued).
 * @param approval - the message, with its new state (`delivered`, `refused`, `expired`).
 */
export function approvalDecided(store: HomeStore, approval: Approval, log: (message: string) => void, targetTitle?: string): void {
  const notice = approval.notify ? ' (the sender asked for a notice)' : ''
  log(`held message ${approval.messageId} from ${approval.sender} to ${approval.target}: ${approval.state}${notice}`)
  if (!approval.notify || (approval.state !== 'refused' && approval.state !== 'expired')) return
  const outcome = approval.state
  const fired = store.fireWatch(approval.messageId, {
    turnEndSeq: 0,
    outcome,
    answeredBySend: false,
    text: heldNoticeText({ targetId: approval.target, targetTitle, outcome, hop: approval.hop + 1,
      expiredAfterMs: approval.expiresAt - approval.createdAt }),
  })
  if (fired !== undefined)
    log(`the notice of held message ${approval.messageId}: ${fired.state}${fired.reason === undefined ? '' : ` (${fired.reason})`}`)
}
