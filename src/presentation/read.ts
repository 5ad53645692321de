/**
 * What `sessions_read` shows: the header lines, one heading and body per
 * message, the footers, and the output bound.
 *
 * Source: docs/tools.md#sessions_read (row headings with provenance
 * markers, visible truncation) and docs/tools.md#tool-results (a read is
 * never longer than `maxReadMessages × (maxMessageChars + 200)` characters).
 *
 * @module dsh-cross-session/presentation/read
 */

import type { SessionHeaderView } from '../ports.js'
import { isSubagent, ownerOf } from '../model/sessions.js'
import type { ReadableMessage } from '../model/surface.js'
import type { ReadCursor, WindowSide } from '../model/read-window.js'
import { countChars, sanitizeForDisplay, truncateVisibly } from '../core/text.js'
import { displayId, displayTitle, metadataSuffix, stateTag } from './common.js'

/** Row header: `--- user (seq 407, user, harness-injected) ---` (docs/tools.md#sessions_read). */
function messageHeading(message: ReadableMessage): string {
  const markers = [message.source]
  if (message.injected) markers.push('harness-injected')
  if (message.replaced) markers.push('replaced')
  return `--- ${message.role} (seq ${message.seq}, ${markers.join(', ')}) ---`
}

/** Everything the read text is built from. */
interface ReadPage {
  readonly header: SessionHeaderView
  readonly live: boolean
  readonly callerId: string
  /** The other dsh process where it is live, when it is (docs/architecture.md §8). */
  readonly elsewhere: { readonly pid: number } | undefined
  /** The title as stored, `undefined` for none, `null` when titles could not be read. */
  readonly title: string | undefined | null
  readonly readable: number
  readonly capturedThroughSeq: unknown
  /** The shown window, newest first, with text and provenance. */
  readonly shown: readonly ReadableMessage[]
  readonly omitted: number
  /** The cursor arguments given; the cursor line is printed only when one is. */
  readonly cursor: ReadCursor
  readonly newer: WindowSide
  readonly older: WindowSide
  readonly malformed: number
  readonly maxMessageChars: number
  readonly maxReadMessages: number
}

/**
 * The cursor line of a read with `after_seq` / `before_seq`
 * (docs/tools.md#sessions_read, "Cursors"):
 * `after_seq 409 | newer: 3 (after_seq 412) | older: 40 (before_seq 410)`.
 */
export function cursorLine(cursor: ReadCursor, newer: WindowSide, older: WindowSide): string {
  const asked = [
    ...(cursor.afterSeq === undefined ? [] : [`after_seq ${cursor.afterSeq}`]),
    ...(cursor.beforeSeq === undefined ? [] : [`before_seq ${cursor.beforeSeq}`]),
  ].join(', ')
  const side = (name: string, value: WindowSide, argument: string): string =>
    value.count === 0 ? `${name}: 0` : `${name}: ${value.count} (${argument} ${value.cursor})`
  return `${asked} | ${side('newer', newer, 'after_seq')} | ${side('older', older, 'before_seq')}`
}

/** Room kept under the output budget for the truncation marker, in characters. */
const MARKER_ROOM = 40

/**
 * Hold the whole result to `budget` characters (docs/tools.md#tool-results),
 * even when row headings, labels and header lines are hostile-long; the cut
 * is visible.
 */
function capOutput(text: string, budget: number): string {
  return countChars(text) <= budget ? text : truncateVisibly(text, Math.max(0, budget - MARKER_ROOM))
}

/** The whole read result. */
export function renderRead(page: ReadPage): string {
  const { header } = page
  let first = `session ${displayId(header.id)} ${stateTag(header, page.live)}${metadataSuffix(header)}`
  if (isSubagent(header)) {
    const owner = ownerOf(header)
    first += owner === undefined ? ' | subagent' : ` | owner ${displayId(owner)}`
  }
  if (header.id === page.callerId) first += ' | this session'
  if (page.elsewhere !== undefined) first += ` | live in another dsh process (pid ${page.elsewhere.pid})`
  const captured = page.capturedThroughSeq
  const lines = [
    first,
    ...(page.elsewhere === undefined ? [] : ['(this reads its persisted log, which can trail the live session by the harness\'s write batch)']),
    `title: ${page.title === null ? '(title unavailable)' : displayTitle(page.title)}`,
    `readable messages: ${page.readable} | captured through seq: ${typeof captured === 'number' ? captured : 'none'}`,
  ]
  const cursored = page.cursor.afterSeq !== undefined || page.cursor.beforeSeq !== undefined
  if (cursored) lines.push(cursorLine(page.cursor, page.newer, page.older))
  for (const message of page.shown) {
    lines.push(messageHeading(message), truncateVisibly(sanitizeForDisplay(message.text), page.maxMessageChars))
  }
  if (page.shown.length === 0) lines.push(cursored ? '(no readable messages in this range)' : '(no readable messages)')
  if (page.malformed > 0) lines.push(`(${page.malformed} malformed events skipped)`)
  // A windowed read ends with the contract's marker, exactly (docs/tools.md#sessions_read);
  // the cursor that pages back stands on its own line just before it.
  if (!cursored && page.omitted > 0) {
    lines.push(`(before_seq ${page.older.cursor} reads the earlier messages)`)
    lines.push(`(${page.omitted} earlier ${page.omitted === 1 ? 'message' : 'messages'} omitted)`)
  }
  return capOutput(lines.join('\n'), page.maxReadMessages * (page.maxMessageChars + 200))
}
