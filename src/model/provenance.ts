/**
 * Provenance of a delivered message, recorded by this plugin in the message's
 * `source` — a place in the durable log no model can write — and read back
 * for hop counting and for `peer:<id>` labels.
 *
 * Rules: docs/tools.md#the-frame (the source is trusted, the frame never)
 * and docs/architecture.md §5, "Provenance in the source, not the text".
 * rc.8's `@deepseek-ai/dsh-llm` `MessageSourceMap`
 * types a plugin source as `{ kind: 'plugin', plugin: string } &
 * ContextFormed`, and `ContextForm` has `'relay'`: "A message another agent
 * addressed to this one" (lib/types/message.d.ts, 0.1.0-rc.8); its own
 * subagent control tool (`@deepseek-ai/dsh-tool-subagent-control@0.1.0-rc.8`
 * lib/index.js) delivers with `{ kind: 'coordinator', form:
 * 'relay', senderSessionId }`. This package delivers with
 * `{ kind: 'plugin', plugin: 'dsh-cross-session', form: 'relay',
 * senderSessionId, hop }`. Checked in the real rc.8 harness
 * (test/e2e/relay-source.test.ts): the model receives it as a user turn, and
 * a `queue` delivery (`Agent.followup` → `send(…, 'next-turn', true)`) starts
 * an idle target's turn whatever the source kind.
 *
 * Frames (`src/framing.ts`) stay what the TARGET MODEL reads; they are never
 * trusted for hop counts or labels: a frame in a `user`-source message is
 * text anyone could have typed.
 *
 * @module dsh-cross-session/model/provenance
 */

import { parseFrame } from '../framing.js'
import { isInjectedText, textOf } from './message-text.js'
import type { NoticeOutcome } from './outcomes.js'

/** `source.plugin` of every message this package delivers (its package name). */
const RELAY_PLUGIN = 'dsh-cross-session'

/** Highest hop recorded; a larger or malformed value is not trusted. */
const MAX_RECORDED_HOP = 999_999

/** What this plugin recorded about one delivery. */
export interface RelayProvenance {
  /** The session that sent it. */
  readonly senderSessionId: string
  /** Its position in the causal relay chain (1 = first relay). */
  readonly hop: number
  /**
   * Set when it is a notice (docs/tools.md#notices): how the sender's
   * watched turn ended. A notice is from this package, never from the user.
   */
  readonly notice?: NoticeOutcome
}

/** The `source` of a message this package delivers. */
interface RelaySource extends RelayProvenance {
  readonly kind: 'plugin'
  readonly plugin: typeof RELAY_PLUGIN
  readonly form: 'relay'
}

/** Build the source recorded on a delivered message. Pure. */
export function relaySource(provenance: RelayProvenance): RelaySource {
  return {
    kind: 'plugin',
    plugin: RELAY_PLUGIN,
    form: 'relay',
    senderSessionId: provenance.senderSessionId,
    hop: provenance.hop,
    ...(provenance.notice === undefined ? {} : { notice: provenance.notice }),
  }
}

const NOTICE_OUTCOMES: ReadonlySet<unknown> = new Set<NoticeOutcome>(['completed', 'failed', 'interrupted', 'refused', 'expired'])

/**
 * Read the provenance this plugin recorded, from an untrusted `source`.
 * @returns the provenance, or `undefined` when the source is not this
 *   package's relay source (or is malformed). Never throws.
 */
export function readRelaySource(source: unknown): RelayProvenance | undefined {
  if (typeof source !== 'object' || source === null) return undefined
  const value = source as Record<string, unknown>
  if (value.kind !== 'plugin' || value.plugin !== RELAY_PLUGIN || value.form !== 'relay') return undefined
  const { senderSessionId, hop } = value
  if (typeof senderSessionId !== 'string' || senderSessionId.length === 0) return undefined
  if (typeof hop !== 'number' || !Number.isInteger(hop) || hop < 1 || hop > MAX_RECORDED_HOP) return undefined
  return NOTICE_OUTCOMES.has(value.notice) ? { senderSessionId, hop, notice: value.notice as NoticeOutcome } : { senderSessionId, hop }
}

/** Prefix of the id of every message this package delivers (`requestIdFor` in `src/tools/send/arguments.ts`). */
export const MESSAGE_ID_PREFIX = 'cross-session:'

/**
 * Provenance of a message this package delivered, whatever its source kind:
 * - its relay source (what this package records on every delivery);
 * - a message whose id this package assigned (`cross-session:<sender>:…`;
 *   ids are written by the deliverer, never by a model) under a `user`
 *   source, as an earlier version of this package delivered
 *   (docs/architecture.md §9): the sender comes from the
 *   id, the hop from the frame only when the frame names that same sender
 *   (the frame was built here then), else 1.
 * @param message - an untrusted message (`id`, `source`, joined text).
 * @returns the provenance, or `undefined` when this package did not deliver it.
 */
export function deliveredProvenance(message: { readonly id?: unknown, readonly source?: unknown },
  text: string | undefined): RelayProvenance | undefined {
  const recorded = readRelaySource(message.source)
  if (recorded !== undefined) return recorded
  if (typeof message.id !== 'string' || !message.id.startsWith(MESSAGE_ID_PREFIX)) return undefined
  if ((message.source as { kind?: unknown } | undefined)?.kind !== 'user') return undefined
  const senderSessionId = message.id.slice(MESSAGE_ID_PREFIX.length).split(':')[0] ?? ''
  if (senderSessionId.length === 0) return undefined
  const frame = text === undefined ? undefined : parseFrame(text)
  return { senderSessionId, hop: frame?.fromSessionId === senderSessionId ? frame.hop : 1 }
}

/**
 * Where the caller's current turn came from (docs/tools.md#limits, hop
 * limit): the latest `user/message` that a human typed (`user` source, not
 * injected context) or that this package delivered (its relay source,
 * {@link relaySource}).
 * Other plugin notices and tool results never start a turn and are skipped.
 * The hop is read from the recorded source, never from message text. Scans
 * from the end, so the cost is the distance to that message.
 * @returns the relay provenance when a delivered message is the latest,
 *   `undefined` when a human prompt is (or there is none).
 */
export function latestRelay(events: readonly unknown[]): RelayProvenance | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as { type?: unknown, data?: { id?: unknown, source?: { kind?: unknown }, content?: unknown } } | null
    if (event?.type !== 'user/message' || typeof event.data !== 'object' || event.data === null) continue
    const text = textOf(event.data.content)
    const relay = deliveredProvenance(event.data, text)
    if (relay !== undefined) return relay
    if (event.data.source?.kind !== 'user') continue
    if (text !== undefined && !isInjectedText(text)) return undefined
  }
  return undefined
}
