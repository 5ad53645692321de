/**
 * A turn cut off by its process's exit is answered later: after a wake
 * from a holder that is gone, the peer messages no completed turn answered
 * are offered again with one steered notice (a `plugin` source, rc.8 form
 * `notice`), named by sender and seq (docs/architecture.md §8).
 *
 * @module dsh-cross-session/home/reoffer
 */

import { nanoid } from 'nanoid'
import type { HostAgent } from '../harness/host.js'
import { ownerNotices } from '../framing.js'
import { readRelaySource } from '../model/provenance.js'
import { completedTurnAfter, turnEnd } from '../harness/log-state.js'
import { noticeMessage } from './owner-delivery.js'
import type { HomeStore } from './store.js'

/**
 * Messages this package delivered (its relay source) that no completed turn
 * followed: id, sender and seq of each, in log order. Pure.
 */
export function unansweredRelays(
  events: readonly unknown[],
): Array<{ readonly id: string, readonly sender: string, readonly seq: number }> {
  let open: Array<{ id: string, sender: string, seq: number }> = []
  for (const value of events) {
    const event = value as { type?: unknown, seq?: unknown, data?: unknown } | null
    if (turnEnd(event)?.reason === 'completed') open = []
    if (event?.type !== 'user/message' || typeof event.seq !== 'number' || typeof event.data !== 'object' || event.data === null) continue
    const { id, source } = event.data as { id?: unknown, source?: unknown }
    const relay = readRelaySource(source)
    if (relay !== undefined && typeof id === 'string') open.push({ id, sender: relay.senderSessionId, seq: event.seq })
  }
  return open
}

/**
 * After a wake from a holder that is gone: recorded messages no completed
 * turn answered (their turn was cut off) are offered again with one steered
 * notice; those the log shows answered are marked so. Besides the store's,
 * the log's own: a message its sender's process delivered there (it woke
 * the session) never went through the store, so the log alone says it got
 * no answer.
 * @returns how many were offered again.
 */
export function reofferUnanswered(store: HomeStore, agent: HostAgent): number {
  const events = agent.session.events
  const open: Array<{ readonly sender: string, readonly seq?: number }> = []
  for (const message of store.takeUnanswered(agent.id)) {
    const answered = message.seq === undefined ? undefined : completedTurnAfter(events, message.seq)
    if (answered !== undefined) store.answered(agent.id, answered)
    else open.push(message)
  }
  for (const local of unansweredRelays(events)) if (store.message(local.id) === undefined) open.push(local)
  if (open.length === 0) return 0
  const notice = ownerNotices.cutOff(open.map(message => ({ sender: message.sender, seq: message.seq })))
  agent.steer(noticeMessage(`cross-session:notice:${nanoid()}`, notice.text, notice.summary))
  return open.length
}
