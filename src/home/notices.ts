/**
 * The holder's side of notices (docs/architecture.md §8, "Notices"): when a
 * turn of a session held here ends, read from its log, for every watch on
 * it, whether that turn is the one that took the watched message; if so,
 * build the notice (how it ended, the start of the last answer, the read
 * call for the rest) and hand it to the store's one transition
 * (`fireWatch`), which posts it to the sender or drops it. Nothing is
 * admitted into the watched session and no model is asked anything.
 *
 * Decided from the log alone, so a holder that takes over after a crash
 * (it looks at every watch when it holds a session) notices a turn that
 * ended under a dead holder, and a second look posts nothing.
 *
 * @module dsh-cross-session/home/notices
 */

import { buildNotice, noticeExcerpt } from '../framing.js'
import type { HostAgent } from '../harness/host.js'
import { deliveryState, turnEnd } from '../harness/log-state.js'
import { noticeOutcome } from '../model/outcomes.js'
import { TOOL_NAMES } from '../model/tool-names.js'
import { textOf } from '../model/message-text.js'
import type { HomeStore, NewWatch, StoredWatch } from './store.js'
import type { AnswerWatch } from '../model/outcomes.js'

/** What the log says about the turn that took one message. */
export interface WatchedTurn {
  readonly messageSeq: number
  readonly turnEndSeq: number
  /** rc.8 `turn/end` reason kind. */
  readonly reason: string
  /** Text of the last `assistant/message` of that turn, if it wrote one. */
  readonly lastAnswer?: string
  /** Session ids that turn sent to with an accepted `sessions_send`. */
  readonly sentTo: ReadonlySet<string>
  /** The session's title as its log last set it. */
  readonly title?: string
}

interface RawEvent {
  readonly type?: unknown
  readonly seq?: unknown
  readonly data?: { readonly message?: { readonly content?: unknown }, readonly title?: unknown } | null
}

/** `session_id` of a `sessions_send` tool-call block (rc.8 `ToolCallBlock`: `arguments` is the raw JSON string). */
function sendTargetOf(block: unknown): { callId: string, sessionId: string } | undefined {
  const call = block as { type?: unknown, id?: unknown, name?: unknown, arguments?: unknown } | null
  if (call?.type !== 'tool-call' || call.name !== TOOL_NAMES.send || typeof call.id !== 'string' || typeof call.arguments !== 'string')
    return undefined
  try {
    const sessionId = (JSON.parse(call.arguments) as { session_id?: unknown } | null)?.session_id
    return typeof sessionId === 'string' ? { callId: call.id, sessionId } : undefined
  } catch {
    return undefined
  }
}

/** Whether a tool-result block reports an accepted send (its text starts `accepted`, docs/tools.md#sessions_send). */
function acceptedResult(block: unknown): string | undefined {
  const result = block as { type?: unknown, toolCallId?: unknown, callId?: unknown, content?: unknown } | null
  if (result?.type !== 'tool-result') return undefined
  const id = typeof result.toolCallId === 'string' ? result.toolCallId : result.callId
  return typeof id === 'string' && (textOf(result.content) ?? '').startsWith('accepted') ? id : undefined
}

/**
 * Pure: the turn of `events` that took `messageId` (the first `turn/end`
 * after its own `user/message`), or `undefined` while it has not ended.
 */
export function watchedTurn(events: readonly unknown[], messageId: string): WatchedTurn | undefined {
  const recorded = deliveryState(events, messageId)
  if (recorded.kind !== 'conversation') return undefined
  let lastAnswer: string | undefined
  let title: string | undefined
  const calls = new Map<string, string>()
  const sentTo = new Set<string>()
  for (const value of events) {
    const event = value as RawEvent | null
    if (event?.type === 'session/title' && typeof event.data?.title === 'string') title = event.data.title
    if (typeof event?.seq !== 'number' || event.seq <= recorded.seq) continue
    const end = turnEnd(event)
    if (end !== undefined)
      return { messageSeq: recorded.seq, turnEndSeq: end.seq, reason: end.reason, ...(lastAnswer === undefined ? {} : { lastAnswer }),
        sentTo, ...(title === undefined ? {} : { title }) }
    const content = event.data?.message?.content
    if (!Array.isArray(content)) continue
    if (event.type === 'assistant/message') {
      const text = textOf(content.filter(block => (block as { type?: unknown } | null)?.type === 'text'))
      if (text !== undefined && text.trim().length > 0) lastAnswer = text
      for (const block of content) {
        const send = sendTargetOf(block)
        if (send !== undefined) calls.set(send.callId, send.sessionId)
      }
    } else {
      for (const block of content) {
        const accepted = acceptedResult(block)
        const target = accepted === undefined ? undefined : calls.get(accepted)
        if (target !== undefined) sentTo.add(target)
      }
    }
  }
  return undefined
}

/** The notice text for one watch whose turn ended. */
export function noticeText(watch: StoredWatch, turn: WatchedTurn): string {
  return buildNotice({
    fromSessionId: watch.target,
    fromTitle: turn.title,
    outcome: noticeOutcome(turn.reason),
    messageSeq: turn.messageSeq,
    turnEndSeq: turn.turnEndSeq,
    hop: watch.hop + 1,
    excerpt: noticeExcerpt(turn.lastAnswer),
  })
}

/**
 * Look at every watch on `agent` (held live here) against its log; fire
 * each whose turn ended. Call once the log is on disk (the sender may read
 * the rest from another process), with `onDisk`: how many of its events
 * the flush wrote (those there when it was called); a turn that ended after
 * them waits for the next flush.
 * @returns the senders a notice was posted to.
 */
export function fireEndedWatches(store: HomeStore, agent: HostAgent, onDisk: number = agent.session.events.length): string[] {
  const senders: string[] = []
  const all = agent.session.events
  const events = onDisk >= all.length ? all : all.slice(0, onDisk)
  for (const watch of store.watchesOf(agent.id)) {
    const turn = watchedTurn(events, watch.messageId)
    if (turn === undefined) continue
    const fired = store.fireWatch(watch.messageId, {
      turnEndSeq: turn.turnEndSeq,
      outcome: noticeOutcome(turn.reason),
      answeredBySend: turn.sentTo.has(watch.sender),
      text: noticeText(watch, turn),
    })
    if (fired?.state === 'noticed') senders.push(watch.sender)
  }
  return senders
}

/**
 * The watch a send's `notify` asks the store for (pure).
 * @param longLived - whether this process is a long-lived host: from a short-lived one (a headless run), the notice
 *   wakes the sender once that process has ended only when its user allowed it (docs/tools.md#notices).
 * @param now - ms; the watch expires `watch.ttlMs` after it.
 */
export function newWatch(watch: AnswerWatch, longLived: boolean, now: number): NewWatch {
  return {
    messageId: watch.requestId,
    sender: watch.senderSessionId,
    target: watch.targetId,
    hop: watch.hop,
    mayWake: watch.mayWake && (longLived || watch.wakeEndedRun === true),
    maxHops: watch.maxHops,
    perMinute: watch.perMinute,
    expiresAt: now + watch.ttlMs,
  }
}
