/**
 * The holder's side of a delivery through the home store: admit the
 * messages this process claimed for a session live here, and settle each
 * from the session's log — `recorded` once its own `user/message` is there,
 * back to `pending` when rc.8 cancelled its insertion.
 *
 * Before admitting, the log decides (`harness/log-state.ts`): a message a dead
 * holder already got recorded is only marked recorded; one whose insertion
 * is pending again after a resume is left where it is and the session is
 * nudged to run it; anything else is admitted with `followup` (`queue`) or
 * `steer` (`steer`), with the relay source, exactly as a local send.
 *
 * @module dsh-cross-session/home/owner-delivery
 */

import { nanoid } from 'nanoid'
import { relayMessage } from '../adapters/controller-steps.js'
import type { HostAgent, HostUserMessage } from '../harness/host.js'
import { ownerNotices } from '../framing.js'
import { deliveryStates, turnEnd } from '../harness/log-state.js'
import type { HomeStore, StoredMessage } from './store.js'

/**
 * rc.8's public `Agent.inbox` (`@deepseek-ai/dsh-agent@0.1.0-rc.8`
 * lib/types/inbox.d.ts `Inbox`), the members used here; a host without it
 * gets `followup` / `steer` only.
 */
interface InboxView {
  readonly nextTurn: ReadonlyArray<{ readonly id: string }>
  readonly nextStep: ReadonlyArray<{ readonly id: string }>
  splice(target: 'next-turn' | 'next-step', start: number, deleteCount: number, inserted: HostUserMessage[]): unknown
}

/** One held session's delivery bookkeeping. */
export interface HeldSession {
  /** The session held. */
  readonly target: string
  /** Claimed and admitted here, not yet in the log. */
  readonly awaiting: Set<string>
  /**
   * In the live log, not yet marked recorded: the store says `recorded` only
   * once the harness has written the log to disk ({@link recordFound}, after
   * `sessions.flush`), since rc.8 writes a live log in batches (up to 200 ms,
   * `@deepseek-ai/dsh-session-persistence@0.1.0-rc.8` lib/index.js
   * `DEFAULT_WRITE_BATCH_MAX_DELAY_MS`) and a killed process loses the batch.
   */
  readonly found: Map<string, { readonly seq: number, readonly running: boolean }>
  /** Seq of the last completed `turn/end` seen in the live log, not yet written to the store. */
  answeredAt?: number
  /** Events already scanned by {@link settle}. */
  scanned: number
  /** A turn ended (or the session was just held) and watches on it wait for a look once the log is on disk (`home/notices.ts`). */
  watchLook?: boolean
}

/**
 * Mark recorded what {@link settle} and {@link admitClaimed} found in the log
 * (only the ids in `only`, when given), then the messages a completed turn
 * answered up to `answeredAt`; call once the log is on disk, with what was
 * found before the flush.
 * @returns whether the store changed.
 * @throws (rejects with) the store's fault: nothing found is forgotten.
 */
export async function recordFound(store: HomeStore, held: HeldSession, only?: ReadonlySet<string>, answeredAt?: number): Promise<boolean> {
  const found = [...held.found].filter(([messageId]) => only === undefined || only.has(messageId))
  if (found.length === 0 && answeredAt === undefined) return false
  // One transaction for the whole flush (off the event loop), and the store first: a batch that throws stays found,
  // and the next flush records it (docs/architecture.md §8).
  await store.recordAllOffLoop(found.map(([messageId, at]) => ({ messageId, seq: at.seq, running: at.running })),
    answeredAt === undefined ? undefined : { sessionId: held.target, turnEndSeq: answeredAt })
  // Only what this batch recorded: what was found again meanwhile (a new agent's log read whole) is at the same seq.
  for (const [messageId, at] of found) if (held.found.get(messageId) === at) held.found.delete(messageId)
  if (answeredAt !== undefined && held.answeredAt === answeredAt) delete held.answeredAt
  return true
}

/** Whether {@link settle} found something that waits for the log to reach the disk. */
export function hasFound(held: HeldSession): boolean {
  return held.found.size > 0 || held.answeredAt !== undefined || held.watchLook === true
}

/** A notice this package adds to a session (a `plugin` source, form `notice`; rc.8 `ContextForm`). */
export function noticeMessage(id: string, text: string, summary: string): HostUserMessage {
  return { id, role: 'user', content: [{ type: 'text', text }],
    source: { kind: 'plugin', plugin: 'dsh-cross-session', form: 'notice', summary } as { kind: string } }
}

/**
 * Admit `claimed` (in claim order) into `agent`, live here.
 * @returns the ids admitted or found pending, now awaiting their record.
 */
export function admitClaimed(store: HomeStore, agent: HostAgent, held: HeldSession, claimed: readonly StoredMessage[],
  log: (message: string) => void): string[] {
  const awaiting: string[] = []
  let nudge = false
  // The user's `refuse` holds for what waits too (docs/tools.md#inbound-messages); a notice answers the session's own send.
  const refusing = store.inboundOf(agent.id) === 'refuse'
  // One pass over the log for every claim (an admission below appends only its own message's splice).
  const states = deliveryStates(agent.session.events, claimed.map(message => message.messageId))
  for (const message of claimed) {
    if (message.target !== agent.id) {
      store.refuse(message.messageId, 'misaddressed')
      continue
    }
    const state = states.get(message.messageId)!
    const running = agent.status === 'running'
    if (state.kind === 'conversation') {
      held.found.set(message.messageId, { seq: state.seq, running })
      continue
    }
    // `taken`, `cancelled` or `absent` here: it never joined the conversation (a turn that took it was cut off before
    // recording it), so it is admitted.
    if (state.kind === 'inbox' || state.kind === 'in-turn') {
      // Restored by the resume, not yet run: a steered notice rides in the same turn and starts it.
      // (`in-turn`: a turn running here took it and appends it next; a new runtime of this process re-claimed it.)
      if (state.kind === 'inbox') nudge = true
      awaiting.push(message.messageId)
      continue
    }
    if (refusing && message.notice === undefined) {
      store.refuse(message.messageId, 'inbound-refused')
      continue
    }
    const delivered = relayMessage(message.messageId, message.text,
      { senderSessionId: message.sender, hop: message.hop, ...(message.notice === undefined ? {} : { notice: message.notice }) })
    try {
      // Messages posted after it may be pending already (restored by a resume, or left by a turn that failed):
      // it goes in front of them, not behind (per-target order). A splice wakes nothing: the notice below does.
      const list = message.mode === 'queue' ? 'next-turn' : 'next-step'
      const inbox = (agent as HostAgent & { readonly inbox?: InboxView }).inbox
      const at = inbox === undefined ? -1 : (list === 'next-turn' ? inbox.nextTurn : inbox.nextStep)
        .findIndex(pending => (store.message(pending.id)?.order ?? -1) > message.order)
      if (at >= 0) {
        inbox!.splice(list, at, 0, [delivered])
        nudge = true
      } else if (message.mode === 'queue') agent.followup(delivered)
      else agent.steer(delivered)
      awaiting.push(message.messageId)
    } catch (error: unknown) {
      log(`admitting stored message ${message.messageId} into ${agent.id} failed: ${String(error)}; it stays pending`)
      store.unclaim(message.messageId)
    }
  }
  if (nudge && agent.status !== 'running') {
    const notice = ownerNotices.restoredInbox
    agent.steer(noticeMessage(`cross-session:notice:${nanoid()}`, notice.text, notice.summary))
  }
  return awaiting
}

/**
 * Scan what `agent`'s log appended since the last look: awaited messages that
 * joined the conversation are found (recorded by {@link recordFound}); after a cancelled insertion or a
 * turn's end each awaited one is checked again (and returned to `pending` if
 * it was cancelled, or taken by a turn that ended without running it: a
 * cancel, an abort, a rejected step); a completed turn marks earlier
 * recorded messages answered (with the records, {@link recordFound}).
 * @returns whether the store changed (found messages change it only when recorded).
 */
export function settle(store: HomeStore, agent: HostAgent, held: HeldSession): boolean {
  const events = agent.session.events
  let changed = false
  let cancelled = false
  for (let index = held.scanned; index < events.length; index++) {
    const event = events[index] as { type?: unknown, seq?: unknown, data?: { id?: unknown, outcome?: unknown } } | null
    if (event?.type === 'user/message' && typeof event.data?.id === 'string' && held.awaiting.has(event.data.id)) {
      held.awaiting.delete(event.data.id)
      held.found.set(event.data.id, { seq: typeof event.seq === 'number' ? event.seq : index, running: agent.status === 'running' })
    } else if (event?.type === 'agent/inbox/spliced' && event.data?.outcome === 'canceled') {
      cancelled = true
    }
    const end = turnEnd(event)
    if (end !== undefined) cancelled = true
    if (end !== undefined) held.watchLook = true
    // Marked answered with the records, once the log is on disk ({@link recordFound}).
    if (end?.reason === 'completed') held.answeredAt = Math.max(held.answeredAt ?? -1, end.seq)
  }
  held.scanned = events.length
  if (cancelled) {
    const states = deliveryStates(events, held.awaiting)
    for (const [messageId, { kind: state }] of states) {
      if (state !== 'cancelled' && state !== 'taken') continue
      store.unclaim(messageId)
      held.awaiting.delete(messageId)
      changed = true
    }
  }
  return changed
}
