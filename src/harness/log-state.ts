/**
 * Where a session's log stands on one delivered message, read from the log
 * alone (pure), so a holder that takes over after a crash decides from what
 * the harness recorded, never from what a dead process meant to do.
 *
 * rc.8 facts this follows (`@deepseek-ai/dsh-agent@0.1.0-rc.8`
 * lib/index.js `Inbox`, `@deepseek-ai/dsh-agent-loop@0.1.0-rc.8`
 * lib/index.js):
 * - an admission appends `agent/inbox/spliced` `{target, start,
 *   removedCount?, inserted, outcome?}`; a turn claiming it removes it again
 *   and appends the message as its own `user/message`;
 * - a disposed agent cancels its pending input durably (a splice with
 *   `outcome: 'canceled'`);
 * - a resumed agent replays every splice, so an insertion neither claimed
 *   nor cancelled (its process was killed) is pending again after the
 *   resume, without a turn running it;
 * - a turn claims in `preStep` and appends the claimed `user/message` only
 *   after awaiting the system prompt, and loading a log closes a turn its
 *   writer left open (`@deepseek-ai/dsh-session@0.1.0-rc.8` lib/index.js
 *   `interruptedTurnClosers`): so in a live agent's log, a message a turn
 *   took whose turn is still open is in flight in that agent, not lost.
 *
 * @module dsh-cross-session/harness/log-state
 */

/** Where the log stands on one message. */
export type DeliveryState =
  /** Its own `user/message` is in the log: recorded. */
  | { readonly kind: 'conversation', readonly seq: number }
  /** Inserted in the inbox and still pending there (neither claimed nor cancelled). */
  | { readonly kind: 'inbox' }
  /** Its insertion was cancelled (`outcome: 'canceled'`): it never ran. */
  | { readonly kind: 'cancelled' }
  /** A turn took it out of the inbox, that turn ended, and its `user/message` is not in the log: it never ran. */
  | { readonly kind: 'taken' }
  /** The turn still open at the end of the log took it out of the inbox: its `user/message` comes with that turn's step. */
  | { readonly kind: 'in-turn' }
  /** Never inserted. */
  | { readonly kind: 'absent' }

interface RawEvent {
  readonly type?: unknown
  readonly seq?: unknown
  readonly time?: unknown
  readonly data?: unknown
}

function idOf(message: unknown): unknown {
  return typeof message === 'object' && message !== null ? (message as { id?: unknown }).id : undefined
}

/** The ids a `user/message` event is the message of: its own id, and the relay source's `rpcId`. */
function ownIds(event: RawEvent): string[] {
  if (typeof event.data !== 'object' || event.data === null) return []
  const data = event.data as { id?: unknown, source?: { rpcId?: unknown } | null }
  const rpcId = typeof data.source === 'object' && data.source !== null ? data.source.rpcId : undefined
  return [data.id, rpcId].filter((id): id is string => typeof id === 'string')
}

/**
 * Fold `events` for `messageId`: its `user/message`, else what the inbox
 * (replayed as rc.8 replays it: each splice applied to its target list) last
 * did with it.
 */
export function deliveryState(events: readonly unknown[], messageId: string): DeliveryState {
  return deliveryStates(events, [messageId]).get(messageId)!
}

/**
 * {@link deliveryState} of every id in `messageIds`, in one pass over
 * `events` (a holder admitting or settling many messages reads a long log
 * once, not once per message); the pass ends early once every id is found
 * in the conversation.
 * @returns one state per id.
 */
export function deliveryStates(events: readonly unknown[], messageIds: Iterable<string>): Map<string, DeliveryState> {
  const states = new Map<string, DeliveryState>()
  for (const id of messageIds) states.set(id, { kind: 'absent' })
  // Ids not yet found in the conversation (a found one is final), and those a still-open turn took.
  const open = new Set(states.keys())
  const inTurn = new Set<string>()
  const inbox: Record<string, unknown[]> = { 'next-turn': [], 'next-step': [] }
  let turnOpen = false
  for (const value of events) {
    if (open.size === 0) break
    if (typeof value !== 'object' || value === null) continue
    const event = value as RawEvent
    if (event.type === 'user/message') {
      for (const id of ownIds(event)) {
        if (!open.delete(id)) continue
        inTurn.delete(id)
        states.set(id, { kind: 'conversation', seq: typeof event.seq === 'number' ? event.seq : 0 })
      }
      continue
    }
    if (event.type === 'turn/start') turnOpen = true
    if (event.type === 'turn/end') {
      turnOpen = false
      for (const id of inTurn) states.set(id, { kind: 'taken' })
      inTurn.clear()
    }
    if (event.type !== 'agent/inbox/spliced' || typeof event.data !== 'object' || event.data === null) continue
    const splice = event.data as { target?: unknown, start?: unknown, removedCount?: unknown, inserted?: unknown, outcome?: unknown }
    const list = typeof splice.target === 'string' ? inbox[splice.target] : undefined
    if (list === undefined || typeof splice.start !== 'number') continue
    const inserted = Array.isArray(splice.inserted) ? splice.inserted.map(idOf) : []
    const removed = list.splice(splice.start, typeof splice.removedCount === 'number' ? splice.removedCount : 0, ...inserted)
    for (const id of removed) {
      if (typeof id !== 'string' || !open.has(id) || inserted.includes(id)) continue
      const state: DeliveryState = splice.outcome === 'canceled' ? { kind: 'cancelled' } : { kind: turnOpen ? 'in-turn' : 'taken' }
      states.set(id, state)
      if (state.kind === 'in-turn') inTurn.add(id)
      else inTurn.delete(id)
    }
    for (const id of inserted) {
      if (typeof id !== 'string' || !open.has(id)) continue
      states.set(id, { kind: 'inbox' })
      inTurn.delete(id)
    }
  }
  return states
}

/** Seq of the first `turn/end` with reason `completed` after `seq`, if any: the message at `seq` was answered. */
export function completedTurnAfter(events: readonly unknown[], seq: number): number | undefined {
  for (const value of events) {
    const event = value as RawEvent | null
    if (event?.type !== 'turn/end' || typeof event.seq !== 'number' || event.seq <= seq) continue
    const reason = (event.data as { reason?: { kind?: unknown } } | undefined)?.reason
    if (reason?.kind === 'completed') return event.seq
  }
  return undefined
}

/** How a `turn/end` event ended its turn, when `value` is one. */
export function turnEnd(value: unknown): { readonly seq: number, readonly reason: string } | undefined {
  const event = value as RawEvent | null
  if (event?.type !== 'turn/end' || typeof event.seq !== 'number') return undefined
  const reason = (event.data as { reason?: { kind?: unknown } } | undefined)?.reason?.kind
  return { seq: event.seq, reason: typeof reason === 'string' ? reason : 'unknown' }
}
