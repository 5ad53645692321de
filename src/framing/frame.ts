/**
 * The cross-session frame: built by one pure function, parsed back by another.
 *
 * The format: docs/tools.md#the-frame (intro line,
 * `from-session: <id> ("<title>")`, `delivery: <mode> | hop N`, begin
 * marker, body, end marker; the sender title on one line, escaped and
 * clipped; a random per-message boundary token on both markers that the
 * body does not contain; the hop count of the causal chain).
 *
 * ```text
 * Cross-session message from another session of this harness.
 * from-session: session-e218… ("Fix the newapi config")
 * delivery: queue | hop 1
 * --- message begins k3Vd9QxLm2Ta ---
 * <body>
 * --- message ends k3Vd9QxLm2Ta ---
 * ```
 *
 * Why a token: the body is arbitrary peer text. Without a token a body could
 * close the frame early (`--- message ends ---`) and forge a second header.
 * The parser accepts a frame only when the end marker carries the begin
 * marker's token and ends the text, and since the token is not in the body,
 * nothing inside the body can be mistaken for a marker.
 *
 * @module dsh-cross-session/framing/frame
 */

import { clipLine, oneLine } from '../core/text.js'
import { tokenFor, type TokenSource } from './token.js'

/** First line of every frame (docs/tools.md#the-frame). */
export const FRAME_INTRO = 'Cross-session message from another session of this harness.'

/** Longest sender title carried in a frame, in code points. */
const FRAME_TITLE_MAX_CHARS = 80

/** The delivery line's mode: the `mode` argument of `sessions_send` (`src/model/schemas.ts` `SendMode`). */
export type FrameMode = 'queue' | 'steer'

/** What a frame says about one delivered message. */
interface Frame {
  /** Sending session id. */
  readonly fromSessionId: string
  /** Sender title as carried (one line, clipped); empty when untitled. */
  readonly fromTitle: string
  readonly mode: FrameMode
  /** Position of this message in its causal relay chain (1 = first relay). */
  readonly hop: number
  /** The per-message boundary token. */
  readonly token: string
  /** The body exactly as sent. */
  readonly body: string
}

/** Input of {@link buildFrame}. */
interface FrameInput {
  readonly fromSessionId: string
  /** Raw sender title (any length, may hold line breaks or quotes). */
  readonly fromTitle: string | undefined
  readonly mode: FrameMode
  readonly hop: number
  readonly body: string
  /** Token source; tests inject a fixed one. Defaults to a nanoid. */
  readonly token?: TokenSource
}

/**
 * Escape a title for the `("…")` slot: one line, clipped, backslashes and
 * double quotes escaped so the closing `")` is unambiguous.
 */
export function frameTitle(title: string | undefined): string {
  const line = clipLine(oneLine(title ?? ''), FRAME_TITLE_MAX_CHARS)
  return line.replace(/\\/g, '\\\\').replace(/"/g, '\\"')
}

/** Undo {@link frameTitle}'s escapes. */
export function unescapeTitle(escaped: string): string {
  return escaped.replace(/\\(["\\])/g, '$1')
}

/**
 * Build the framed text delivered to the target.
 * @returns the frame text and the token it used (never a substring of the body).
 */
export function buildFrame(input: FrameInput): { text: string, token: string } {
  const token = tokenFor(input.body, input.token)
  const text = [
    FRAME_INTRO,
    `from-session: ${oneLine(input.fromSessionId)} ("${frameTitle(input.fromTitle)}")`,
    `delivery: ${input.mode} | hop ${input.hop}`,
    `--- message begins ${token} ---`,
    input.body,
    `--- message ends ${token} ---`,
  ].join('\n')
  return { text, token }
}

/** The sender line of a frame or a notice (`from-session: <id> ("<escaped title>")`). */
export const FROM_LINE = /^from-session: (\S+) \("((?:[^"\\]|\\["\\])*)"\)$/
const DELIVERY_LINE = /^delivery: (queue|steer) \| hop ([1-9]\d{0,5})$/
const BEGIN_LINE = /^--- message begins ([0-9A-Za-z]{8,64}) ---$/

/**
 * Parse a frame built by {@link buildFrame}. Strict: the intro, sender,
 * delivery and begin lines must be the first four lines, and the text must end
 * with an end marker carrying the begin marker's token; anything else is not a
 * frame. Never throws.
 * @returns the frame, or `undefined` when `text` is not exactly one frame.
 */
export function parseFrame(text: string): Frame | undefined {
  if (typeof text !== 'string' || !text.startsWith(`${FRAME_INTRO}\n`)) return undefined
  const lines = text.split('\n', 4)
  if (lines.length < 4) return undefined
  const from = FROM_LINE.exec(lines[1] ?? '')
  const delivery = DELIVERY_LINE.exec(lines[2] ?? '')
  const begin = BEGIN_LINE.exec(lines[3] ?? '')
  if (from === null || delivery === null || begin === null) return undefined
  const token = begin[1] as string
  const headerLength = lines.slice(0, 4).join('\n').length + 1
  const endMarker = `\n--- message ends ${token} ---`
  // Tolerate trailing white space a transport may add after the end marker.
  // trimEnd() strips exactly \s (WhiteSpace and LineTerminator) in linear
  // time; the regular expression /\s+$/ is quadratic on a long run of
  // spaces not at the end (40,000 spaces: 837 ms, docs/performance.md
  // "Controller-line host and frame parsing").
  const trimmed = text.trimEnd()
  if (!trimmed.endsWith(endMarker) || trimmed.length - endMarker.length < headerLength - 1) return undefined
  const body = trimmed.slice(headerLength, trimmed.length - endMarker.length)
  // The token is unique to the frame: a body that holds it was not built here.
  if (body.includes(token)) return undefined
  return {
    fromSessionId: from[1] as string,
    fromTitle: unescapeTitle(from[2] as string),
    mode: delivery[1] as FrameMode,
    hop: Number(delivery[2]),
    token,
    body,
  }
}
