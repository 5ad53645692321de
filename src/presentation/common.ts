/**
 * Texts every tool shares: the refusal and cancellation lines, what a
 * refused call did not do, the refusals more than one tool returns, and how
 * ids, titles and row metadata are shown.
 *
 * The codes, their general causes and next steps, and every refusal's text
 * are the closed catalog of `src/refusals/catalog.ts`
 * (docs/tools.md#refusals-and-their-order); the refusals here are its
 * entries' texts. A cancelled call never returns a partial result.
 *
 * @module dsh-cross-session/presentation/common
 */

import type { FailureKind } from '../core/failure-kinds.js'
import { displayId, NOTHING_DELIVERED, NOTHING_LISTED, NOTHING_READ, REFUSAL_CATALOG, shownId, type Refusal } from '../refusals.js'
import type { SessionHeaderView } from '../ports.js'
import { isSubagent } from '../model/sessions.js'
import { clipLine, clipLineStart, oneLine } from '../core/text.js'
import { failureText } from './failures.js'

export { displayId, NOTHING_DELIVERED, NOTHING_LISTED, NOTHING_READ, shownId, type Refusal }

/** A send that failed unexpectedly may have got past admission: it does not claim it did not. */
export const DELIVERY_UNKNOWN = 'Whether the message was delivered is unknown; check with sessions_read before sending it again.'

/**
 * The backend steps, as the model reads them in `… was cancelled while
 * <step>` and `<step> failed: …` (and as the log names them).
 */
export const STEPS = {
  listing: 'listing sessions',
  readingTitles: 'reading titles',
  readingSurface: 'reading the session surface',
  readingTitle: 'reading the title',
  lookingUpTarget: 'looking up the target session',
  readingOwnTitle: 'reading this session\'s title',
  resolving: 'resolving the target session',
  admitting: 'admitting the message',
  waitingForRecord: 'waiting for the message to be recorded',
  waitingForAnswer: 'waiting for the woken session to answer',
  running: (tool: string): string => `running ${tool}`,
} as const

/**
 * Render a refusal as the plain text the model receives:
 * `refused: <code> | <cause>` then the consequence and the next step.
 */
export function renderRefusal(refusal: Refusal, consequence: string): string {
  return `refused: ${refusal.code} | ${refusal.cause}\n${consequence} ${refusal.next}`
}

/** Text for a call cancelled during `step` (never a partial result). */
export function renderCancelled(tool: string, step: string, consequence: string): string {
  return `cancelled | ${tool} was cancelled while ${step}\n${consequence}`
}

/** Refusals that more than one tool returns (texts of `src/refusals/catalog.ts`). */
export const commonRefusals = {
  invalidArguments: REFUSAL_CATALOG['invalid-arguments'].texts.invalidArguments,
  noCaller: REFUSAL_CATALOG.rejected.texts.noCaller,
  notFound: REFUSAL_CATALOG['not-found'].texts.notFound,
  /** A read-side backend step failed; only the kind's table text is shown. */
  backend: (step: string, failure: FailureKind, tool: string): Refusal => REFUSAL_CATALOG.rejected.texts.backend(step, failureText(failure), tool),
} as const

/** Longest title shown in list and read output, in code points. */
const TITLE_MAX_CHARS = 120
/** Longest workspace path shown, in code points (the end is kept: it names the project). */
const CWD_MAX_CHARS = 120

/** A title as shown: one line, clipped; `(untitled)` when there is none. */
export function displayTitle(title: string | undefined): string {
  const line = title === undefined ? '' : clipLine(oneLine(title), TITLE_MAX_CHARS)
  return line.length > 0 ? line : '(untitled)'
}

/** ` | cwd=… | preset=…` metadata of a list or read row (absent fields omitted). */
export function metadataSuffix(header: SessionHeaderView): string {
  let suffix = ''
  // Keep the path's end on a grapheme boundary: a code-point slice would orphan combining marks.
  if (header.cwd !== undefined) suffix += ` | cwd=${clipLineStart(oneLine(header.cwd), CWD_MAX_CHARS)}`
  if (header.agentPreset !== undefined) suffix += ` | preset=${clipLine(oneLine(header.agentPreset), 60)}`
  return suffix
}

/** `[live|cold, top-level|subagent]` state tag of list and read rows (docs/tools.md#sessions_list). */
export function stateTag(header: SessionHeaderView, live: boolean): string {
  return `[${live ? 'live' : 'cold'}, ${isSubagent(header) ? 'subagent' : 'top-level'}]`
}
