/**
 * Character counting, visible truncation and display sanitising.
 *
 * "Characters" are Unicode code points everywhere in this package, caps
 * included (docs/tools.md, "Units"). A cut never splits a surrogate pair or a
 * grapheme cluster (a combining sequence, an emoji ZWJ sequence, a flag;
 * docs/tools.md#sessions_read, "Visible truncation"): it moves back
 * to the start of the cluster that straddles the limit, so a kept prefix is
 * never longer than the limit.
 *
 * @module dsh-cross-session/core/text
 */

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' })

/** Context (UTF-16 units) examined before a cut first; widened when it does not start on a certain boundary. */
const CLUSTER_WINDOW = 256

/** Number of code points in `text` (a lone surrogate counts as one). */
export function countChars(text: string): number {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
    }
    count++
  }
  return count
}

/** UTF-16 index just after the first `chars` code points (or `text.length`). */
function indexAfterChars(text: string, chars: number): number {
  let index = 0
  for (let seen = 0; seen < chars && index < text.length; seen++) {
    const unit = text.charCodeAt(index)
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1)
      index += next >= 0xdc00 && next <= 0xdfff ? 2 : 1
    } else {
      index += 1
    }
  }
  return index
}

/**
 * Whether UAX #29 always breaks between the code units at `at - 1` and `at`:
 * both are ASCII/Latin-1 (below U+0300, where there is no Extend, ZWJ,
 * SpacingMark, Prepend or regional indicator) or CJK unified ideographs, and
 * they are not CR LF. Segmenting from such a point gives the same clusters
 * as segmenting the whole text; segmenting from any other point could cut a
 * cluster longer than the window, or a long run of flags, in the middle.
 */
function certainBoundary(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1)
  const after = text.charCodeAt(at)
  const simple = (unit: number): boolean => unit < 0x300 || (unit >= 0x4e00 && unit <= 0x9fff)
  return simple(before) && simple(after) && !(before === 0x0d && after === 0x0a)
}

/** Segment `text` around `index`: from a certain boundary at or before `index - CLUSTER_WINDOW`. */
function segmentAround(text: string, index: number): { from: number, segment: Intl.SegmentData | undefined } {
  let from = Math.max(0, index - CLUSTER_WINDOW)
  // Only the text before the cut decides where its cluster starts, so a 10 MB
  // body is not segmented whole; the window widens only over text with no
  // certain boundary (a long cluster, a run of flags).
  while (from > 0 && !certainBoundary(text, from)) from = Math.max(0, from - CLUSTER_WINDOW)
  const window = text.slice(from, Math.min(text.length, index + CLUSTER_WINDOW))
  return { from, segment: graphemes.segment(window).containing(index - from) }
}

/** Move `index` back to the start of the grapheme cluster that contains it. */
function clusterStart(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index
  const { from, segment } = segmentAround(text, index)
  return segment === undefined ? index : from + segment.index
}

/** Move `index` forward to the end of the grapheme cluster that contains it (unchanged on a boundary). */
function clusterEnd(text: string, index: number): number {
  const start = clusterStart(text, index)
  if (start === index) return index
  // `start` is a boundary: the first cluster from there is the one holding `index` (segmented lazily).
  const first = graphemes.segment(text.slice(start))[Symbol.iterator]().next()
  return first.done === true ? text.length : start + first.value.segment.length
}

/** Result of {@link truncateChars}. */
interface Truncated {
  /** The kept prefix (never more than `maxChars` code points). */
  readonly text: string
  /** Total code points of the input. */
  readonly totalChars: number
  /** Code points cut off (0 when nothing was cut). */
  readonly omittedChars: number
}

/**
 * Keep at most `maxChars` code points of `text`, cutting at a grapheme
 * cluster boundary.
 * @param text - any string (may hold lone surrogates).
 * @param maxChars - limit in code points, >= 0.
 * @returns the prefix and how much was cut.
 */
export function truncateChars(text: string, maxChars: number): Truncated {
  const totalChars = countChars(text)
  if (totalChars <= maxChars) return { text, totalChars, omittedChars: 0 }
  const cut = clusterStart(text, indexAfterChars(text, maxChars))
  const kept = text.slice(0, cut)
  return { text: kept, totalChars, omittedChars: totalChars - countChars(kept) }
}

/**
 * Truncate for display: the kept prefix followed by the visible marker
 * `…[truncated N chars]` when anything was cut (docs/tools.md#sessions_read,
 * "Visible truncation").
 */
export function truncateVisibly(text: string, maxChars: number): string {
  const result = truncateChars(text, maxChars)
  return result.omittedChars === 0 ? result.text : `${result.text}…[truncated ${result.omittedChars} chars]`
}

// C0 controls except tab and newline, DEL and C1 controls.
const CONTROL_CHARS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g

/**
 * Make backend text safe to show a model: lone surrogates and control
 * characters (other than tab and newline) become U+FFFD, CRLF becomes LF.
 */
export function sanitizeForDisplay(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL_CHARS, '\uFFFD').toWellFormed()
}

/**
 * Force a value onto one line: line breaks and runs of white space become one
 * space, control characters and lone surrogates are replaced, ends trimmed.
 */
export function oneLine(text: string): string {
  return sanitizeForDisplay(text).replace(/[\s\u2028\u2029\u0085]+/gu, ' ').trim()
}

/**
 * Keep the END of `text`: at most `maxChars` code points counting a leading
 * `…` when anything was cut, starting on a grapheme boundary (a path's end
 * names its project). Lone surrogates become U+FFFD.
 */
export function clipLineStart(text: string, maxChars: number): string {
  const total = countChars(text)
  if (total <= maxChars) return text.toWellFormed()
  const keep = Math.max(0, maxChars - 1)
  const start = clusterEnd(text, indexAfterChars(text, total - keep))
  return `…${text.slice(start)}`.toWellFormed()
}

/**
 * Clip an untrusted value for display: at most `maxChars` code points, cut at
 * a grapheme boundary and marked with `…`; lone surrogates become U+FFFD.
 */
export function clipLine(text: string, maxChars: number): string {
  const result = truncateChars(text, maxChars)
  return (result.omittedChars === 0 ? result.text : `${result.text}…`).toWellFormed()
}

/**
 * A session id as a human scans it: the first 4 characters of its random
 * part and an ellipsis (`session-4b91c2d0-…` → `4b91…`). Ids of other shapes
 * keep their first 8 characters.
 */
export function shortId(sessionId: string): string {
  const core = sessionId.startsWith('session-') ? sessionId.slice('session-'.length) : sessionId
  const chars = Array.from(core)
  const keep = sessionId.startsWith('session-') ? 4 : 8
  return chars.length <= keep ? core : `${chars.slice(0, keep).join('')}…`
}
