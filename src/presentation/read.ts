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
import { isSubagent, ownerOf, type MachineView } from '../model/sessions.js'
import type { ReadableMessage } from '../model/surface.js'
import type { ReadCursor, WindowSide } from '../model/read-window.js'
import { countChars, sanitizeForDisplay, truncateVisibly } from '../core/text.js'
import { displayId, displayTitle, metadataSuffix, shownMetadata, stateTag } from './common.js'
import { machineSuffix, shownMachine } from './list.js'

/** One shown message of a read, as the text shows it. */
export interface ReadMessage {
  readonly role: string
  readonly seq: number
  /** Provenance markers (`user`, `model:…`, `peer:<id>`, `hop 1`, `harness-injected`, `replaced`). */
  readonly markers: readonly string[]
  /** The text, sanitised and visibly truncated to `maxMessageChars`. */
  readonly text: string
}

/** The value of a `sessions_read` result. */
export interface ReadValue {
  readonly kind: 'read'
  readonly sessionId: string
  readonly live: boolean
  readonly subagent: boolean
  readonly cwd?: string
  readonly preset?: string
  /** The owning session of a subagent, when known. */
  readonly owner?: string
  readonly self: boolean
  readonly elsewherePid?: number
  /** Another machine's session: its machine as a list row shows it (`presentation/list.ts` `shownMachine`). */
  readonly machine?: { readonly name: string, readonly reachable: boolean }
  /** The title as shown: `(untitled)`, `(title unavailable)` or the title. */
  readonly title: string
  readonly readable: number
  /** The newest seq the read covered, `null` when the log had none. */
  readonly capturedThrough: number | null
  /** The cursor arguments given (absent: a plain window). */
  readonly cursor?: { readonly afterSeq?: number, readonly beforeSeq?: number }
  readonly newer: WindowSide
  readonly older: WindowSide
  /** Shown messages, newest first. */
  readonly messages: readonly ReadMessage[]
  readonly malformed: number
  /** The whole text's bound, code points: `maxReadMessages × (maxMessageChars + 200)`. */
  readonly budget: number
}

/** Row header: `--- user (seq 407, user, harness-injected) ---` (docs/tools.md#sessions_read). */
function messageHeading(message: ReadMessage): string {
  return `--- ${message.role} (seq ${message.seq}, ${message.markers.join(', ')}) ---`
}

function shownMessage(message: ReadableMessage, maxMessageChars: number): ReadMessage {
  const markers = [message.source]
  if (message.injected) markers.push('harness-injected')
  if (message.replaced) markers.push('replaced')
  return { role: message.role, seq: message.seq, markers, text: truncateVisibly(sanitizeForDisplay(message.text), maxMessageChars) }
}

/** Everything the read text is built from. */
interface ReadPage {
  readonly header: SessionHeaderView
  readonly live: boolean
  readonly callerId: string
  /** The other dsh process where it is live, when it is (docs/architecture.md §8). */
  readonly elsewhere: { readonly pid: number } | undefined
  /** Another machine's session: its machine (docs/architecture.md §8 "Several machines"). */
  readonly machine?: MachineView | undefined
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

/** The value of a read page: the facts as shown. */
export function readValue(page: ReadPage): ReadValue {
  const { header } = page
  const subagent = isSubagent(header)
  const owner = subagent ? ownerOf(header) : undefined
  const captured = page.capturedThroughSeq
  const cursored = page.cursor.afterSeq !== undefined || page.cursor.beforeSeq !== undefined
  return {
    kind: 'read',
    sessionId: displayId(header.id),
    live: page.live,
    subagent,
    ...shownMetadata(header),
    ...(owner === undefined ? {} : { owner: displayId(owner) }),
    self: header.id === page.callerId,
    ...(page.elsewhere === undefined ? {} : { elsewherePid: page.elsewhere.pid }),
    ...(page.machine === undefined ? {} : { machine: shownMachine(page.machine) }),
    title: page.title === null ? '(title unavailable)' : displayTitle(page.title),
    readable: page.readable,
    capturedThrough: typeof captured === 'number' ? captured : null,
    ...(cursored ? { cursor: page.cursor } : {}),
    newer: page.newer,
    older: { count: page.omitted, cursor: page.older.cursor },
    messages: page.shown.map(message => shownMessage(message, page.maxMessageChars)),
    malformed: page.malformed,
    budget: page.maxReadMessages * (page.maxMessageChars + 200),
  }
}

/** The text of a `sessions_read` result. */
export function renderReadValue(value: ReadValue): string {
  let first = `session ${value.sessionId} ${stateTag(value)}${metadataSuffix(value)}`
  if (value.subagent) first += value.owner === undefined ? ' | subagent' : ` | owner ${value.owner}`
  if (value.self) first += ' | this session'
  if (value.elsewherePid !== undefined) first += ` | live in another dsh process (pid ${value.elsewherePid})`
  if (value.machine !== undefined) first += machineSuffix(value.machine)
  const lines = [
    first,
    ...(value.elsewherePid === undefined
      ? [] : ['(this reads its persisted log, which can trail the live session by the harness\'s write batch)']),
    `title: ${value.title}`,
    `readable messages: ${value.readable} | captured through seq: ${value.capturedThrough ?? 'none'}`,
  ]
  const cursored = value.cursor !== undefined
  if (value.cursor !== undefined) lines.push(cursorLine(value.cursor, value.newer, value.older))
  for (const message of value.messages) lines.push(messageHeading(message), message.text)
  if (value.messages.length === 0) lines.push(cursored ? '(no readable messages in this range)' : '(no readable messages)')
  if (value.malformed > 0) lines.push(`(${value.malformed} malformed events skipped)`)
  // A windowed read ends with the contract's marker, exactly (docs/tools.md#sessions_read);
  // the cursor that pages back stands on its own line just before it.
  const omitted = value.older.count
  if (!cursored && omitted > 0) {
    lines.push(`(before_seq ${value.older.cursor} reads the earlier messages)`)
    lines.push(`(${omitted} earlier ${omitted === 1 ? 'message' : 'messages'} omitted)`)
  }
  return capOutput(lines.join('\n'), value.budget)
}
