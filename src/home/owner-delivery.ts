/**
 * The holder's side of a delivery through the home store: admit the
 * messages this process claimed for a session live here, and settle each
 * from the session's log — `recorded` once its own `user/message` is there,
 * back to `pending` when rc.8 cancelled its insertion.
 *
 * Before admitting, the log decides (`home/log-state.ts`): a message a dead
 * holder already got recorded is only marked recorded; one whose insertion
 * is pending again after a resume is left where it is and the session is
 * nudged to run it; anything else is admitted with `followup` (`queue`) or
 * `steer` (`steer`), with the relay source, exactly as a local send.
 *
 * @module dsh-cross-session/home/owner-delivery
 */

import { relayMessage } from '../adapters/controller.js'
import type { HostAgent, HostUserMessage } from '../host.js'
import { mailboxRefusals, ownerNotices } from '../presentation/send.js'
import { completedTurnAfter, deliveryState, turnEnd } from './log-state.js'
import type { HomeStore, StoredMessage } from './store.js'

/** One held session's delivery bookkeeping. */
export interface HeldSession {
  /** Claimed and admitted here, not yet recorded. */
  readonly awaiting: Set<string>
  /** Events already scanned by {@link settle}. */
  scanned: number
}

/** A notice this package adds to a session (a `plugin` source, form `notice`; rc.8 `ContextForm`). */
export function noticeMessage(id: string, text: string, summary: string): HostUserMessage {
  return { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'plugin', plugin: 'dsh-cross-session', form: 'notice', summary } as { kind: string } }
}

/**
 * Admit `claimed` (in claim order) into `agent`, live here.
 * @returns the ids admitted or found pending, now awaiting their record.
 */
export function admitClaimed(store: HomeStore, agent: HostAgent, claimed: readonly StoredMessage[], log: (message: string) => void): string[] {
  const awaiting: string[] = []
  let nudge = false
  for (const message of claimed) {
    if (message.target !== agent.id) {
      store.refuse(message.messageId, mailboxRefusals.misaddressed)
      continue
    }
    const events = agent.session.events
    const state = deliveryState(events, message.messageId)
    const running = agent.status === 'running'
    if (state.kind === 'conversation') {
      store.record(message.messageId, state.seq, running)
      continue
    }
    // `taken`, `cancelled` or `absent` here: it never joined the conversation (a turn that took it was cut off before recording it), so it is admitted.
    if (state.kind === 'inbox') {
      // Restored by the resume, not yet run: a steered notice rides in the same turn and starts it.
      nudge = true
      awaiting.push(message.messageId)
      continue
    }
    const delivered = relayMessage(message.messageId, message.text, { senderSessionId: message.sender, hop: message.hop })
    try {
      if (message.mode === 'queue') agent.followup(delivered)
      else agent.steer(delivered)
      awaiting.push(message.messageId)
    } catch (error: unknown) {
      log(`admitting stored message ${message.messageId} into ${agent.id} failed: ${String(error)}; it stays pending`)
      store.unclaim(message.messageId)
    }
  }
  if (nudge && agent.status !== 'running') {
    const notice = ownerNotices.restoredInbox
    agent.steer(noticeMessage(`cross-session:notice:${Date.now().toString(36)}`, notice.text, notice.summary))
  }
  return awaiting
}

/**
 * After a wake from a holder that is gone: recorded messages no completed
 * turn answered (their turn was cut off) are offered again with one steered
 * notice; those the log shows answered are marked so.
 * @returns how many were offered again.
 */
export function reofferUnanswered(store: HomeStore, agent: HostAgent): number {
  const events = agent.session.events
  const open: StoredMessage[] = []
  for (const message of store.takeUnanswered(agent.id)) {
    const answered = message.seq === undefined ? undefined : completedTurnAfter(events, message.seq)
    if (answered !== undefined) store.answered(agent.id, answered)
    else open.push(message)
  }
  if (open.length === 0) return 0
  const notice = ownerNotices.cutOff(open.map(message => ({ sender: message.sender, seq: message.seq })))
  agent.steer(noticeMessage(`cross-session:notice:${Date.now().toString(36)}`, notice.text, notice.summary))
  return open.length
}

/**
 * Scan what `agent`'s log appended since the last look: awaited messages that
 * joined the conversation are recorded; after a cancelled insertion each
 * awaited one is checked again (and returned to `pending` if it was
 * cancelled); a completed turn marks earlier recorded messages answered.
 * @returns whether the store changed.
 */
export function settle(store: HomeStore, agent: HostAgent, held: HeldSession): boolean {
  const events = agent.session.events
  let changed = false
  let cancelled = false
  for (let index = held.scanned; index < events.length; index++) {
    const event = events[index] as { type?: unknown, seq?: unknown, data?: { id?: unknown, outcome?: unknown } } | null
    if (event?.type === 'user/message' && typeof event.data?.id === 'string' && held.awaiting.has(event.data.id)) {
      held.awaiting.delete(event.data.id)
      store.record(event.data.id, typeof event.seq === 'number' ? event.seq : index, agent.status === 'running')
      changed = true
    } else if (event?.type === 'agent/inbox/spliced' && event.data?.outcome === 'canceled') {
      cancelled = true
    }
    const end = turnEnd(event)
    if (end?.reason === 'completed') {
      store.answered(agent.id, end.seq)
      changed = true
    }
  }
  held.scanned = events.length
  if (cancelled) {
    for (const messageId of [...held.awaiting]) {
      if (deliveryState(events, messageId).kind !== 'cancelled') continue
      held.awaiting.delete(messageId)
      store.unclaim(messageId)
      changed = true
    }
  }
  return changed
}
