/**
 * Texts every tool shares: the refusal and cancellation lines, what a
 * refused call did not do, the refusals more than one tool returns, and how
 * ids, titles and row metadata are shown.
 *
 * The codes and their general causes and next steps are the closed catalog
 * of `src/refusals.ts` (docs/tools.md#refusals-and-their-order); a
 * cancelled call never returns a partial result.
 *
 * @module dsh-cross-session/presentation/common
 */

import type { FailureKind } from '../core/failure-kinds.js'
import type { RefusalCode } from '../refusals.js'
import type { SessionHeaderView } from '../ports.js'
import { clipLine, clipLineStart, oneLine } from '../core/text.js'
import { failureText } from './failures.js'

/** One refusal: its code, the cause, and what the model should do next. */
export interface Refusal {
  readonly code: RefusalCode
  /** Why, in one line, with the values involved. */
  readonly cause: string
  /** What to try next (docs/tools.md#refusals-and-their-order, "what the model should do"). */
  readonly next: string
}

/** What a refused or cancelled call did not do, one sentence per tool. */
export const NOTHING_LISTED = 'Nothing was listed.'
export const NOTHING_READ = 'Nothing was read.'
export const NOTHING_DELIVERED = 'Nothing was delivered.'
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

/**
 * A session id echoed in a refusal: one line, at most 120 code points. The
 * target id comes from model-written arguments with no length limit, and
 * untrusted values are never echoed unclipped.
 */
export function shownId(sessionId: string): string {
  return clipLine(oneLine(sessionId), 120)
}

/** Refusals that more than one tool returns. */
export const commonRefusals = {
  invalidArguments: (problem: string, tool: string): Refusal => ({
    code: 'invalid-arguments',
    cause: problem,
    next: `Fix that argument and call ${tool} again.`,
  }),
  noCaller: (): Refusal => ({
    code: 'rejected',
    cause: 'the calling session could not be identified (no agent is bound to this call)',
    next: 'Cross-session tools work only from inside a session; nothing can be done from here.',
  }),
  notFound: (sessionId: string): Refusal => ({
    code: 'not-found',
    cause: `no session with id ${JSON.stringify(clipLine(sessionId, 120))}`,
    next: 'Re-run sessions_list for a valid id and pass it exactly as printed.',
  }),
  /** A read-side backend step failed; only the kind's table text is shown. */
  backend: (step: string, failure: FailureKind, tool: string): Refusal => ({
    code: 'rejected',
    cause: `${step} failed: ${failureText(failure)}`,
    next: `Try ${tool} again later; if it keeps failing, tell your user.`,
  }),
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

/** A session id as shown inside output (one line; ids come from backends). */
export function displayId(id: string): string {
  return clipLine(oneLine(id), 200)
}

/** `[live|cold, top-level|subagent]` state tag of list and read rows (docs/tools.md#sessions_list). */
export function stateTag(row: { readonly live: boolean, readonly subagent: boolean }): string {
  return `[${row.live ? 'live' : 'cold'}, ${row.subagent ? 'subagent' : 'top-level'}]`
}
