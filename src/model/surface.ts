/**
 * From a session's current model surface to the readable messages
 * `sessions_read` shows: a pure, defensive projection.
 *
 * Rules: docs/tools.md#sessions_read (what it returns and filters, the
 * `harness-injected` / `replaced` markers). Event shapes:
 * `@deepseek-ai/dsh-session@0.1.0-rc.8` lib/types/types.d.ts
 * `SessionEventMap` (a `user/message` event's `data` is the message;
 * `assistant/message` wraps it as `data.message`, and a `system/message`,
 * which rc.8 does not have, is read the same way). Text and source labels:
 * `src/model/message-text.ts`.
 *
 * rc.8 has no `system/message`: a plugin-authored notice is a `user/message`
 * with a plugin source, hidden unless `includeSystem` ("Plugin notices are
 * hidden by default"). A message this package delivered
 * (`src/model/provenance.ts`) is always shown, labelled `peer:<id>, hop N`
 * from its recorded source, never from its text ("Provenance"). Malformed
 * events are skipped and counted, never thrown on.
 *
 * @module dsh-cross-session/model/surface
 */

import { parseFrame } from '../framing.js'
import { deliveredProvenance, MESSAGE_ID_PREFIX, readRelaySource, type RelayProvenance } from './provenance.js'
import { firstNonBlank, isInjectedText, isPluginSource, labelPart, sourceLabel, textOf } from './message-text.js'

/** One message as `sessions_read` shows it. */
export interface ReadableMessage {
  readonly seq: number
  readonly role: 'user' | 'assistant' | 'system'
  /** Provenance: `user`, `model:provider/model`, `plugin:name/form`, `peer:<id>`, … */
  readonly source: string
  /** Joined text blocks (for a peer message: the frame's body). */
  readonly text: string
  /** Harness-injected context (by content prefix, user role only). */
  readonly injected: boolean
  /** The event replaced earlier surface nodes (e.g. a compaction summary). */
  readonly replaced: boolean
}

/** Result of {@link readableMessages}. */
interface Readable {
  /** Messages in surface (model-history) order, filters applied. */
  readonly messages: ReadableMessage[]
  /** Events that looked like messages but could not be read. */
  readonly malformed: number
}

/** Options of {@link readableMessages} (`include_injected`, `include_system` of docs/tools.md#sessions_read). */
interface ReadableOptions {
  readonly includeInjected: boolean
  readonly includeSystem: boolean
}

/** The message object an event carries (untrusted). */
interface RawMessage {
  readonly id?: unknown
  readonly role: unknown
  readonly content: unknown
  readonly source: unknown
}

/** The message an event carries, in either of the two shapes named at the top of this module. */
function messageOf(type: string, data: unknown): RawMessage | undefined {
  if (typeof data !== 'object' || data === null) return undefined
  const wrapped = (data as { message?: unknown }).message
  const message = type === 'user/message' ? data : wrapped
  if (typeof message !== 'object' || message === null) return undefined
  return message as RawMessage
}

const MESSAGE_TYPES = new Set(['user/message', 'assistant/message', 'system/message'])

/**
 * One surface message that passed the filters, classified without building
 * its text or parsing its frame: that work is done by {@link projectMessage}
 * for the shown rows only (docs/performance.md, "The read path").
 */
interface ClassifiedMessage {
  readonly seq: number
  readonly role: 'user' | 'assistant' | 'system'
  readonly injected: boolean
  readonly replaced: boolean
  readonly message: RawMessage
  /** What this package recorded when it delivered the message, if it did (`src/model/provenance.ts`). */
  readonly delivered?: RelayProvenance
}

/** Result of {@link classifyMessages}. */
interface Classified {
  /** Messages in surface (model-history) order, filters applied. */
  readonly messages: ClassifiedMessage[]
  /** Events that looked like messages but could not be read. */
  readonly malformed: number
}

/**
 * Provenance of a message this package delivered. Only a delivery from
 * before the relay source (an assigned `cross-session:` id under a `user`
 * source) needs its text, for the hop its frame carries; every other message
 * is judged from its source and id alone, so classifying joins no text.
 */
function provenanceOf(message: RawMessage): RelayProvenance | undefined {
  const legacy = readRelaySource(message.source) === undefined
    && typeof message.id === 'string' && message.id.startsWith(MESSAGE_ID_PREFIX)
  return deliveredProvenance(message, legacy ? textOf(message.content) : undefined)
}

/**
 * Classify surface events: which are readable messages under the filters, in
 * order, and how many were malformed. Per message it reads only the type,
 * seq, role and the first non-blank text block (blank check, injected
 * prefix); it joins no text and parses no frame.
 * @param events - raw surface events (untrusted; rc.8 `SurfaceEvent[]`).
 * @param options - whether injected context and system notices are kept.
 */
export function classifyMessages(events: readonly unknown[], options: ReadableOptions): Classified {
  const messages: ClassifiedMessage[] = []
  let malformed = 0
  for (const raw of events) {
    if (typeof raw !== 'object' || raw === null) {
      malformed++
      continue
    }
    const event = raw as { type?: unknown, seq?: unknown, data?: unknown, surfaceOp?: unknown }
    if (typeof event.type !== 'string' || !MESSAGE_TYPES.has(event.type)) continue
    const message = messageOf(event.type, event.data)
    const content = message?.content
    if (message === undefined || (typeof content !== 'string' && !Array.isArray(content)) || typeof event.seq !== 'number') {
      malformed++
      continue
    }
    const role = event.type === 'system/message' || message.role === 'system'
      ? 'system'
      : event.type === 'assistant/message' ? 'assistant' : 'user'
    if (role === 'system' && !options.includeSystem) continue
    const first = firstNonBlank(content)
    if (first === undefined) continue
    // Provenance and hop come from what this package recorded
    // when it delivered (source or assigned id), never from text a model can
    // write; a frame in any other message is shown as the text it is.
    const delivered = role === 'user' ? provenanceOf(message) : undefined
    const injected = delivered === undefined && role === 'user' && isInjectedText(first)
    if (injected && !options.includeInjected) continue
    // rc.8 has no system/message: plugin-authored notices (a skills catalog,
    // a reminder) are user/message events with a plugin source. Injected
    // context by prefix stays governed by include_injected
    // (docs/tools.md#sessions_read, "Injected context").
    const notice = delivered === undefined && !injected && role === 'user' && isPluginSource(message.source)
    if (notice && !options.includeSystem) continue
    const replaced = typeof event.surfaceOp === 'object' && event.surfaceOp !== null
      && (event.surfaceOp as { op?: unknown }).op === 'replace'
    messages.push({ seq: event.seq, role, injected, replaced, message, ...(delivered === undefined ? {} : { delivered }) })
  }
  return { messages, malformed }
}

/**
 * Project one classified message to what `sessions_read` shows: its joined
 * text, and its provenance (`peer:<id>, hop N` from what this package
 * recorded, else the source label). A delivered message's frame is stripped
 * only when it names the recorded sender. Called for the shown window only.
 */
export function projectMessage(entry: ClassifiedMessage): ReadableMessage {
  const text = textOf(entry.message.content) ?? ''
  const delivered = entry.delivered
  const frame = delivered === undefined ? undefined : parseFrame(text)
  return {
    seq: entry.seq,
    role: entry.role,
    source: delivered === undefined
      ? sourceLabel(entry.message.source)
      : `peer:${labelPart(delivered.senderSessionId, 120)}, hop ${delivered.hop}${delivered.notice === undefined ? '' : ', notice'}`,
    text: frame !== undefined && frame.fromSessionId === delivered?.senderSessionId ? frame.body : text,
    injected: entry.injected,
    replaced: entry.replaced,
  }
}

/**
 * Project surface events to readable messages: {@link classifyMessages} then
 * {@link projectMessage} for every one (callers that show a window should
 * project only that window).
 * @param events - raw surface events (untrusted; rc.8 `SurfaceEvent[]`).
 * @param options - whether injected context and system notices are kept.
 * @returns readable messages in surface order and the count of malformed ones.
 */
export function readableMessages(events: readonly unknown[], options: ReadableOptions): Readable {
  const classified = classifyMessages(events, options)
  return { messages: classified.messages.map(projectMessage), malformed: classified.malformed }
}
