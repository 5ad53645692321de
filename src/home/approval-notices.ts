/**
 * What the sender of a held message learns when its target's user decided
 * it, or it expired (docs/tools.md#inbound-messages): one call per outcome,
 * made by the process that committed the decision or the expiry.
 *
 * Today it logs the outcome only. The sender's own notice (a message queued
 * to the sender through the home store when it asked for one,
 * `approval.notify`) plugs in here.
 *
 * @module dsh-cross-session/home/approval-notices
 */

import type { Approval } from './approvals.js'
import type { HomeStore } from './store.js'

/**
 * A held message left the `held` state.
 * @param store - the home store (where a notice to the sender would be queued).
 * @param approval - the message, with its new state (`delivered`, `refused`, `expired`).
 */
export function approvalDecided(store: HomeStore, approval: Approval, log: (message: string) => void): void {
  void store
  log(`held message ${approval.messageId} from ${approval.sender} to ${approval.target}: ${approval.state}${approval.notify ? ' (the sender asked for a notice)' : ''}`)
}
