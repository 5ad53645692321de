/**
 * Where a sent message is NOW, for the web send row: read from the target's
 * history as the host serves it (rc.8 `session.history`, the tail page and
 * its `title` projection, `@deepseek-ai/dsh-session-title@0.1.0-rc.8`), not
 * only from what the call said when it returned. Pure.
 *
 * The message is found by the id this package gave it
 * (`cross-session:<sender>:<call id>:<digest>`, src/tools/send/arguments.ts
 * `requestIdFor`) whose frame carries the body, and judged by the same fold
 * the holder uses (src/harness/log-state.ts): recorded at seq N; answered when a
 * turn after it ended completed; lost when its insertion was cancelled or a
 * turn took it and ended without running it; pending otherwise. A result
 * that already said `refused by that process: …` stays lost for that reason.
 *
 * @module dsh-cross-session/client/send-state
 */

import { completedTurnAfter, deliveryState } from '../harness/log-state.js'
import { textOf } from '../model/message-text.js'
import { parseFrame } from '../framing.js'

/** The row's view of one sent message. */
export type SendState =
  | { readonly stage: 'pending' }
  | { readonly stage: 'recorded', readonly seq: number }
  | { readonly stage: 'answered', readonly seq: number, readonly answerSeq: number }
  | { readonly stage: 'lost', readonly why: string, readonly code?: 'cancelled' | 'taken' }

/** Whether a state can still change (the row keeps looking while it can). */
export function isSettled(state: SendState): boolean {
  return state.stage === 'answered' || state.stage === 'lost'
}

interface RawEvent {
  readonly type?: unknown
  readonly data?: { readonly id?: unknown, readonly content?: unknown, readonly inserted?: unknown } | null
}

/** Fewest characters a delivered body is cut to (the `maxSendChars` minimum, src/settings/table.ts). */
const MIN_CUT_CHARS = 100

/**
 * Whether a delivered text carries `body`: its frame's body (or the bare
 * text, `frameMessages: false`) is the body, or the start it was cut to.
 * Never a body that merely contains it: under a call id repeated by the
 * provider (`call_0`), "yes" is not "yes, and the docs".
 */
function carries(text: string, body: string): boolean {
  const delivered = parseFrame(text)?.body ?? text
  return delivered === body || (Array.from(delivered).length >= MIN_CUT_CHARS && body.startsWith(delivered))
}

/** Ids of messages this package delivered for `callId` that carry `body`. */
function candidateIds(events: readonly unknown[], callId: string, body: string): string[] {
  const ids = new Set<string>()
  const consider = (message: { id?: unknown, content?: unknown } | null | undefined): void => {
    const id = message?.id
    if (typeof id !== 'string' || !id.startsWith('cross-session:') || !id.includes(`:${callId}:`)) return
    if (carries(textOf(message?.content) ?? '', body)) ids.add(id)
  }
  for (const value of events) {
    const event = value as RawEvent | null
    if (event?.type === 'user/message') consider(event.data)
    if (event?.type === 'agent/inbox/spliced' && Array.isArray(event.data?.inserted)) {
      for (const inserted of event.data.inserted) consider(inserted as { id?: unknown })
    }
  }
  return [...ids]
}

/**
 * The state of the message sent by call `callId` with `body`, in the
 * target's `events` (rc.8 session events, oldest first).
 */
export function sendStateOf(events: readonly unknown[], callId: string, body: string): SendState {
  const [id] = candidateIds(events, callId, body)
  if (id === undefined) return { stage: 'pending' }
  const state = deliveryState(events, id)
  if (state.kind === 'conversation') {
    const answerSeq = completedTurnAfter(events, state.seq)
    return answerSeq === undefined ? { stage: 'recorded', seq: state.seq } : { stage: 'answered', seq: state.seq, answerSeq }
  }
  if (state.kind === 'cancelled') {
    return { stage: 'lost', why: 'its insertion was cancelled (the session was closed before a turn took it)', code: 'cancelled' }
  }
  if (state.kind === 'taken') return { stage: 'lost', why: 'the turn that took it ended before running it', code: 'taken' }
  return { stage: 'pending' }
}

/**
 * The events and title of a `session.history` answer: the client api's
 * envelope (`{ rpcId, result: { ok, value } }`, rc.8 dsh-client-connection
 * `callUnary`) or its value (`{ events: [{ event }], projections: { values: { title } } }`).
 */
export function readHistory(answer: unknown): { events: unknown[], title: string | undefined } {
  const result = (answer as { result?: { ok?: unknown, value?: unknown } } | null | undefined)?.result
  const value = result === undefined ? answer : result.ok === true ? result.value : undefined
  const record = (value ?? {}) as { events?: unknown, projections?: { values?: { title?: unknown } } }
  const events = Array.isArray(record.events) ? record.events.map(entry => (entry as { event?: unknown } | null)?.event) : []
  const title = record.projections?.values?.title
  return { events, title: typeof title === 'string' && title.length > 0 ? title : undefined }
}
