/**
 * `sessions_read`: a bounded, text-only window of a peer's current model
 * surface.
 *
 * Source: seed 004 `sessions_read` (arguments, output, provenance, injected
 * filtering, visible truncation, "a read, never a wake") and PRODUCT.md §4
 * (true live/cold state from a non-waking lookup; newest `max_messages`
 * kept; `(N earlier messages omitted)`; unknown id → `not-found`).
 *
 * Backend calls per call: one `readSurface` and one `readTitles` for the one
 * id (run together), plus a non-waking `isLive`. It never lists the corpus
 * and never calls the controller, so it cannot resume anything.
 *
 * @module dsh-cross-session/tools/sessions-read
 */

import { callBackend, renderCancelled } from '../service-boundary.js'
import type { ToolCallContext } from '../ports.js'
import { refusals, renderRefusal } from '../refusals.js'
import { sessionIdProblem, SessionsReadArgs, validateArguments } from '../schemas.js'
import { isSubagent, isVisible, ownerOf, readHeader, stateTag } from '../sessions.js'
import { classifyMessages, projectMessage, type ReadableMessage } from '../surface.js'
import { countChars, sanitizeForDisplay, truncateVisibly } from '../text.js'
import { displayId, displayTitle, metadataSuffix, type ToolDeps } from './shared.js'

const TOOL = 'sessions_read'
const NOTHING = 'Nothing was read.'

/** Row header: `--- user (seq 407, user, harness-injected) ---` (seed 004). */
export function messageHeading(message: ReadableMessage): string {
  const markers = [message.source]
  if (message.injected) markers.push('harness-injected')
  if (message.replaced) markers.push('replaced')
  return `--- ${message.role} (seq ${message.seq}, ${markers.join(', ')}) ---`
}

/**
 * Keep the newest `maxMessages`, newest first (the order of seed 004's
 * example), and say how many earlier ones were left out.
 */
export function windowMessages<T>(messages: readonly T[], maxMessages: number): { shown: T[], omitted: number } {
  const shown = messages.slice(Math.max(0, messages.length - maxMessages)).reverse()
  return { shown, omitted: messages.length - shown.length }
}

/** Room kept under the output budget for the truncation marker, in characters. */
const MARKER_ROOM = 40

/**
 * Hold the whole result to `budget` characters (issue 5: a read is never
 * longer than `maxReadMessages × (maxMessageChars + 200)`), even when row
 * headings, labels and header lines are hostile-long; the cut is visible.
 */
export function capOutput(text: string, budget: number): string {
  return countChars(text) <= budget ? text : truncateVisibly(text, Math.max(0, budget - MARKER_ROOM))
}

/**
 * Execute one `sessions_read` call. Never throws, never wakes.
 * @param rawArgs - arguments as the harness passed them (validated here).
 * @param call - caller, call id and abort signal.
 * @param deps - ports and settings.
 * @returns the plain-text window, a refusal (`invalid-arguments`,
 *   `not-found`, `rejected`), or a cancellation.
 */
export async function sessionsRead(rawArgs: unknown, call: ToolCallContext, deps: ToolDeps): Promise<string> {
  const parsed = validateArguments(SessionsReadArgs, rawArgs)
  const problem = parsed.ok ? sessionIdProblem(parsed.value.session_id) : parsed.problem
  if (!parsed.ok || problem !== undefined) return renderRefusal(refusals.invalidArguments(problem ?? '', TOOL), NOTHING)
  const caller = call.caller
  if (caller === undefined) return renderRefusal(refusals.noCaller(), NOTHING)
  const args = parsed.value
  const { settings } = deps
  const sessionId = args.session_id

  const [surface, titles] = await Promise.all([
    callBackend('reading the session surface', call.signal, () => deps.sessions.readSurface(sessionId, call.signal), deps.log),
    callBackend('reading the title', call.signal, () => deps.sessions.readTitles([sessionId], call.signal), deps.log),
  ])
  if (!surface.ok) {
    return surface.cancelled
      ? renderCancelled(TOOL, surface.step, NOTHING)
      : renderRefusal(refusals.backend(surface.step, surface.reason, TOOL), NOTHING)
  }
  const header = surface.value === undefined ? undefined : readHeader(surface.value.session)
  // An id outside the caller's visibility reads exactly like one that never existed.
  if (surface.value === undefined || header === undefined || !isVisible(header, caller.header, settings.visibility)) {
    return renderRefusal(refusals.notFound(sessionId), NOTHING)
  }
  if (!titles.ok && titles.cancelled) return renderCancelled(TOOL, titles.step, NOTHING)

  const live = deps.sessions.isLive(sessionId)
  const events = Array.isArray(surface.value.events) ? surface.value.events : []
  // Classify every message, then build text and provenance for the shown window only (issue 13).
  const readable = classifyMessages(events, {
    includeInjected: args.include_injected ?? settings.includeInjectedByDefault,
    includeSystem: args.include_system ?? false,
  })
  const maxMessages = Math.min(args.max_messages ?? settings.maxReadMessages, settings.maxReadMessages)
  const window = windowMessages(readable.messages, maxMessages)
  const shown = window.shown.map(projectMessage)
  const omitted = window.omitted
  const captured = surface.value.capturedThroughSeq
  const title = titles.ok ? displayTitle(titles.value.get(sessionId)) : '(title unavailable)'

  let first = `session ${displayId(header.id)} ${stateTag(header, live)}${metadataSuffix(header)}`
  if (isSubagent(header)) {
    const owner = ownerOf(header)
    first += owner === undefined ? ' | subagent' : ` | owner ${displayId(owner)}`
  }
  if (header.id === caller.sessionId) first += ' | this session'
  const elsewhere = deps.sessions.liveElsewhere?.(sessionId)
  if (elsewhere !== undefined) first += ` | live in another dsh process (pid ${elsewhere.pid})`
  const lines = [
    first,
    ...(elsewhere === undefined ? [] : ['(this reads its persisted log, which can trail the live session by the harness\'s write batch)']),
    `title: ${title}`,
    `readable messages: ${readable.messages.length} | captured through seq: ${typeof captured === 'number' ? captured : 'none'}`,
  ]
  for (const message of shown) {
    lines.push(messageHeading(message), truncateVisibly(sanitizeForDisplay(message.text), settings.maxMessageChars))
  }
  if (shown.length === 0) lines.push('(no readable messages)')
  if (omitted > 0) lines.push(`(${omitted} earlier ${omitted === 1 ? 'message' : 'messages'} omitted)`)
  if (readable.malformed > 0) lines.push(`(${readable.malformed} malformed events skipped)`)
  return capOutput(lines.join('\n'), settings.maxReadMessages * (settings.maxMessageChars + 200))
}
