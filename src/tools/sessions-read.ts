/**
 * `sessions_read`: a bounded, text-only window of a peer's current model
 * surface.
 *
 * Source: docs/tools.md#sessions_read (arguments, output, provenance,
 * injected filtering, visible truncation, "a read, never a wake"; true
 * live/cold state from a non-waking lookup; newest `max_messages` kept, or
 * the range `after_seq` / `before_seq` picks (`src/model/read-window.ts`);
 * `(before_seq S reads the earlier messages)` then `(N earlier messages
 * omitted)`; unknown id →
 * `not-found`).
 *
 * Backend calls per call: one `readSurface` and one `readTitles` for the one
 * id (run together), plus a non-waking `isLive`. It never lists the corpus
 * and never calls the controller, so it cannot resume anything.
 *
 * @module dsh-cross-session/tools/sessions-read
 */

import { cancelled, commonRefusals, NOTHING_READ, refused, STEPS, type StoppedValue } from '../presentation/common.js'
import { readValue, type ReadValue } from '../presentation/read.js'
import { SessionsReadArgs } from '../model/schemas.js'
import { TOOL_NAMES } from '../model/tool-names.js'
import { canNameSession, isVisible, readHeader } from '../model/sessions.js'
import { callBackend } from '../model/service-boundary.js'
import { classifyMessages, projectMessage } from '../model/surface.js'
import { pickWindow } from '../model/read-window.js'
import { sessionIdProblem, validateArguments } from './arguments.js'
import type { ToolCallContext, ToolDeps } from './shared.js'

const TOOL = TOOL_NAMES.read

/**
 * Execute one `sessions_read` call. Never throws, never wakes.
 * @param rawArgs - arguments as the harness passed them (validated here).
 * @param call - caller, call id and abort signal.
 * @param deps - ports and settings.
 * @returns the window (`read`), a refusal (`invalid-arguments`,
 *   `not-found`, `rejected`), or a cancellation.
 */
export async function sessionsRead(rawArgs: unknown, call: ToolCallContext, deps: ToolDeps): Promise<ReadValue | StoppedValue> {
  const parsed = validateArguments(SessionsReadArgs, rawArgs)
  const problem = parsed.ok ? sessionIdProblem(parsed.value.session_id) : parsed.problem
  if (!parsed.ok || problem !== undefined) return refused(commonRefusals.invalidArguments(problem ?? '', TOOL), NOTHING_READ)
  const caller = call.caller
  if (caller === undefined) return refused(commonRefusals.noCaller(), NOTHING_READ)
  // An id that cannot name a session never reaches a backend.
  if (!canNameSession(parsed.value.session_id)) return refused(commonRefusals.notFound(parsed.value.session_id), NOTHING_READ)
  const args = parsed.value
  const { settings } = deps
  const sessionId = args.session_id

  const [surface, titles] = await Promise.all([
    callBackend(STEPS.readingSurface, call.signal, () => deps.sessions.readSurface(sessionId, call.signal), deps.log),
    callBackend(STEPS.readingTitle, call.signal, () => deps.sessions.readTitles([sessionId], call.signal), deps.log),
  ])
  if (!surface.ok) {
    return surface.cancelled
      ? cancelled(TOOL, surface.step, NOTHING_READ)
      : refused(commonRefusals.backend(surface.step, surface.failure, TOOL), NOTHING_READ)
  }
  const header = surface.value === undefined ? undefined : readHeader(surface.value.session)
  // An id outside the caller's visibility reads exactly like one that never existed.
  if (surface.value === undefined || header === undefined || !isVisible(header, caller.header, settings.visibility)) {
    return refused(commonRefusals.notFound(sessionId), NOTHING_READ)
  }
  if (!titles.ok && titles.cancelled) return cancelled(TOOL, titles.step, NOTHING_READ)

  const live = deps.sessions.isLive(sessionId)
  const events = Array.isArray(surface.value.events) ? surface.value.events : []
  // Classify every message, then build text and provenance for the shown window only (docs/performance.md, "Corpus index").
  const readable = classifyMessages(events, {
    includeInjected: args.include_injected ?? settings.includeInjectedByDefault,
    includeSystem: args.include_system ?? false,
  })
  const maxMessages = Math.min(args.max_messages ?? settings.maxReadMessages, settings.maxReadMessages)
  const cursor = {
    ...(args.after_seq === undefined ? {} : { afterSeq: args.after_seq }),
    ...(args.before_seq === undefined ? {} : { beforeSeq: args.before_seq }),
  }
  const window = pickWindow(readable.messages, maxMessages, cursor)
  return readValue({
    header,
    live,
    callerId: caller.sessionId,
    elsewhere: deps.sessions.liveElsewhere?.(sessionId),
    machine: deps.sessions.machineOf?.(sessionId),
    title: titles.ok ? titles.value.get(sessionId) : null,
    readable: readable.messages.length,
    capturedThroughSeq: surface.value.capturedThroughSeq,
    shown: window.shown.map(projectMessage),
    omitted: window.older.count,
    cursor,
    newer: window.newer,
    older: window.older,
    malformed: readable.malformed,
    maxMessageChars: settings.maxMessageChars,
    maxReadMessages: settings.maxReadMessages,
  })
}
