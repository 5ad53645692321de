/**
 * The session query port over the host's `ctx.sessionQuery` and `ctx.agents`.
 *
 * Every method is non-waking: `ctx.agents.get` only looks a live agent up,
 * and `sessionQuery` reads live sessions from memory and cold ones from
 * persistence without resuming them (rc.8 `SessionQueryEngine`).
 *
 * Costs, read from rc.8's source: `readTitleSnapshots(ids)` folds the whole
 * log of every id; `readSurface(id)` and `readTitleSnapshot(id)` load the
 * whole log of one cold session after one persistence listing. A cold
 * `lookup` therefore uses the host controller's `inspect` when the host has
 * one (later harness lines), and rc.8's `readTitleSnapshot` otherwise: rc.8
 * offers no header-only lookup.
 *
 * @module dsh-cross-session/adapters/session-query
 */

import type { HostAgents, HostSessionController, HostSessionQuery } from '../harness/host.js'
import type { SessionQueryPort, SessionRecordView, SurfaceView } from '../ports.js'
import { readHeader } from '../model/sessions.js'

/** The harness's error code for an id that is in neither memory nor persistence. */
const NOT_FOUND_CODES = new Set(['SESSION_QUERY_SESSION_NOT_FOUND', 'session/not-found'])

/**
 * Whether a backend error means "no such session" (not a failure): a known
 * code, or — with `sessionId` — the session controller's `inspect` error,
 * a plain `Error` with no code whose message is `session "<id>" not found`
 * (0.1.2-alpha.2 lib/index.js `ApiSessionNotFound`; its `name` is `Error`).
 */
export function isNotFoundError(error: unknown, sessionId?: string): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, name, message } = error as { code?: unknown, name?: unknown, message?: unknown }
  if ((typeof code === 'string' && NOT_FOUND_CODES.has(code)) || name === 'ApiSessionNotFound') return true
  return sessionId !== undefined && code === undefined && message === `session "${sessionId}" not found`
}

/** The persistence backend's "no such session" (`session "<id>" not found`, rc.8 coordinator). */
export function isMissingSession(error: unknown, sessionId: string): boolean {
  return error instanceof Error && error.message === `session "${sessionId}" not found`
}

/** Read one title observation (`SessionTitleObservationResult`) defensively. */
function titleOf(observation: unknown): { id: string, title: string | undefined } | undefined {
  if (typeof observation !== 'object' || observation === null) return undefined
  const { sessionId, status, value } = observation as { sessionId?: unknown, status?: unknown, value?: unknown }
  if (typeof sessionId !== 'string') return undefined
  if (status !== 'fulfilled' || typeof value !== 'object' || value === null) return { id: sessionId, title: undefined }
  const title = (value as { title?: { title?: unknown } }).title?.title
  return { id: sessionId, title: typeof title === 'string' ? title : undefined }
}

/**
 * Build the port.
 * @param sessionQuery - `ctx.sessionQuery`.
 * @param agents - `ctx.agents` (liveness only; never `resume`).
 * @param controllerOf - reads `ctx.sessionController` per call (it may be mounted after this plugin).
 */
export function createSessionQueryPort(sessionQuery: HostSessionQuery, agents: HostAgents,
  controllerOf: () => HostSessionController | undefined = () => undefined): SessionQueryPort {
  return {
    async listSessions(signal) {
      const rows = await sessionQuery.listSessions(signal)
      if (!Array.isArray(rows)) throw new TypeError('sessionQuery.listSessions returned a non-array')
      return rows as SessionRecordView[]
    },

    async readTitles(sessionIds, signal) {
      const titles = new Map<string, string | undefined>()
      if (sessionIds.length === 0) return titles
      const observations = await sessionQuery.readTitleSnapshots(sessionIds, signal)
      for (const observation of Array.isArray(observations) ? observations : []) {
        const read = titleOf(observation)
        if (read !== undefined) titles.set(read.id, read.title)
      }
      return titles
    },

    async readSurface(sessionId, signal) {
      signal.throwIfAborted()
      try {
        // rc.8's readSurface takes no signal; the boundary races it against ours.
        const surface = await sessionQuery.readSurface(sessionId)
        return surface as SurfaceView
      } catch (error: unknown) {
        if (isNotFoundError(error)) return undefined
        throw error
      }
    },

    async lookup(sessionId, signal) {
      const agent = agents.get(sessionId)
      const liveHeader = agent === undefined ? undefined : readHeader(agent.session?.header)
      if (liveHeader !== undefined) return { header: liveHeader, live: true, persisted: true }
      const controller = controllerOf()
      try {
        if (controller?.inspect !== undefined) {
          const inspected = await controller.inspect(sessionId, signal)
          const header = readHeader(inspected?.meta)
          return header === undefined ? undefined : { header, live: agents.get(sessionId) !== undefined, persisted: true }
        }
        const observed = await sessionQuery.readTitleSnapshot(sessionId, signal)
        const header = readHeader((observed as { session?: unknown } | undefined)?.session)
        return header === undefined ? undefined : { header, live: agents.get(sessionId) !== undefined, persisted: true }
      } catch (error: unknown) {
        if (isNotFoundError(error, sessionId)) return undefined
        throw error
      }
    },

    isLive(sessionId) {
      return agents.get(sessionId) !== undefined
    },
  }
}
