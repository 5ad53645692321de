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
  checkingShown: 'checking the rows shown',
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

/** A refused call as a result value (`src/presentation/results.ts`): the refusal and what was not done. */
export interface RefusedValue extends Refusal {
  readonly kind: 'refused'
  /** What the call did not do (`Nothing was delivered.`, …). */
  readonly consequence: string
}

/** A call cancelled during `step`, as a result value; a cancelled call never returns a partial result. */
export interface CancelledValue {
  readonly kind: 'cancelled'
  readonly tool: string
  readonly step: string
  readonly consequence: string
}

/** A call that stopped before its result: refused or cancelled. */
export type StoppedValue = RefusedValue | CancelledValue

/** The value of a refused call. */
export function refused(refusal: Refusal, consequence: string): RefusedValue {
  return { kind: 'refused', code: refusal.code, cause: refusal.cause, next: refusal.next, consequence }
}

/** The value of a call cancelled during `step`. */
export function cancelled(tool: string, step: string, consequence: string): CancelledValue {
  return { kind: 'cancelled', tool, step, consequence }
}

/** Whether a step's outcome is a stopped call (its value) rather than what the step produced. */
export function isStopped(outcome: object): outcome is StoppedValue {
  const kind = (outcome as { kind?: unknown }).kind
  return kind === 'refused' || kind === 'cancelled'
}

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
  backend: (step: string, failure: FailureKind, tool: string): Refusal =>
    REFUSAL_CATALOG.rejected.texts.backend(step, failureText(failure), tool),
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

/** A row's workspace and preset as shown. */
interface ShownMetadata { readonly cwd?: string | undefined, readonly preset?: string | undefined }

/** A row's workspace and preset as shown: one line each, clipped (absent fields omitted). */
export function shownMetadata(header: SessionHeaderView): { cwd?: string, preset?: string } {
  return {
    // Keep the path's end on a grapheme boundary: a code-point slice would orphan combining marks.
    ...(header.cwd === undefined ? {} : { cwd: clipLineStart(oneLine(header.cwd), CWD_MAX_CHARS) }),
    ...(header.agentPreset === undefined ? {} : { preset: clipLine(oneLine(header.agentPreset), 60) }),
  }
}

/** ` | cwd=… | preset=…` metadata of a list or read row (absent fields omitted); a header's fields are clipped first. */
export function metadataSuffix(shown: ShownMetadata | SessionHeaderView): string {
  const fields = 'id' in shown ? shownMetadata(shown) : shown
  return `${fields.cwd === undefined ? '' : ` | cwd=${fields.cwd}`}${fields.preset === undefined ? '' : ` | preset=${fields.preset}`}`
}

/** `[live|cold, top-level|subagent]` state tag of list and read rows (docs/tools.md#sessions_list). */
export function stateTag(row: { readonly live: boolean, readonly subagent: boolean }): string {
  return `[${row.live ? 'live' : 'cold'}, ${row.subagent ? 'subagent' : 'top-level'}]`
}
