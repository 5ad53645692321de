/**
 * The session query port over the corpus index (docs/performance.md), for a host whose
 * `ctx.sessionPersistence` is rc.8's JSONL backend; every other host (SQLite,
 * unknown backends, no persistence, a Node without zstd) gets the
 * `sessionQuery` port of ./session-query.ts unchanged.
 *
 * What each method reads (docs/performance.md "What each call re-checks"):
 * - `listSessions`: {@link CorpusIndex.refresh} (the listing; header lines
 *   of new logs only), plus this process's live sessions (`ctx.sessions.list()`)
 *   that have no log yet. A row is live when that store holds it or the
 *   registry lists its agent (one `ctx.agents.list()` per call; a host
 *   without `list` is asked per row through `isLive`), never cached.
 * - `readTitles(ids)`: ./indexed-titles.ts (a live session's title from
 *   memory, a stored one's after a revision check of its log; folds bounded
 *   by an optional time budget).
 * - `readSurface(id)`: live → rc.8 `sessionQuery.readSurface` (memory only);
 *   cold → a revision check of that log, then the surface kept in the home
 *   store at exactly that revision, else `sessionPersistence.inspect(id)` and
 *   the surface fold (../index/surface-cache.ts), no listing.
 * - `lookup(id)`: live → its header; cold → a revision check of that log.
 * - `listNewest`: a process's first list (../index/newest.ts: the listing, one scan of the shared rows, the header
 *   of each listed log no row holds), with the same liveness; `undefined` for any later list (then `listSessions`).
 * - `recheck(ids)`: a revision check of each log (none for a log this call's
 *   listing read), the header it holds now (`sessions_list` checks the rows it
 *   shows: a known log is listed without a `stat`).
 *
 * @module dsh-cross-session/adapters/persistence-index
 */

import type { HostAgents } from '../harness/host.js'
import type { CorpusIndex } from '../index/corpus-index.js'
import type { IndexEntry } from '../index/index-entry.js'
import type { CorpusRows } from '../index/shared-rows.js'
import type { Inspected } from '../index/surface-cache.js'
import type { SessionHeaderView, SessionQueryPort } from '../ports.js'
import { readHeader } from '../model/sessions.js'
import { newestRows, overlayLive, store } from './live-sessions.js'
import { readIndexedTitles } from './indexed-titles.js'
import { RootIndex } from './root-index.js'
import { isMissingSession } from './session-query.js'

/** What {@link createIndexedSessionQueryPort} needs from the host. */
interface IndexedPortOptions {
  /** The `sessionQuery` port: liveness, live reads, and everything for unrecognised backends. */
  readonly fallback: SessionQueryPort
  /** `ctx.agents`: whether a session is live in THIS process (its reads stay in memory). */
  readonly agents: HostAgents
  /** `ctx.sessionPersistence` right now (read on every call: services come and go). */
  readonly persistence: () => unknown
  /** `ctx.sessions` right now, if the host has it. */
  readonly sessions: () => unknown
  /** The home store's shared corpus rows, when the home is usable (asked for at each use: the store open now). */
  readonly shared?: () => CorpusRows | undefined
  /** Where a failing shared index is reported (once per index). */
  readonly log?: (message: string) => void
  /** Called once per index built (tests and the bench read its counters). */
  readonly onIndex?: (index: CorpusIndex) => void
  /** The plugin's lifetime: when it ends, the index writes the rows it queued and its worker thread ends (./root-index.ts). */
  readonly lifetime?: AbortSignal
}

/**
 * Build the port: the indexed one while the persistence backend is
 * recognised, the fallback otherwise (decided on every call).
 */
export function createIndexedSessionQueryPort(options: IndexedPortOptions): SessionQueryPort {
  const { fallback, agents } = options
  const roots = new RootIndex(options)
  // One liveness predicate for every tool: the fallback port's (`ctx.agents.get`,
  // plus whatever presence check that port gains), read per call, never cached.
  const isLive = (sessionId: string): boolean => fallback.isLive(sessionId)
  // Live in this process: its surface and header are read from memory. A
  // session live elsewhere (same home) is read from its log like a cold one.
  const liveHere = (sessionId: string): boolean => agents.get(sessionId) !== undefined
    || store(options.sessions())?.get(sessionId) !== undefined
  // The index's pending row writes and its batch checks' worker thread end with the plugin.
  options.lifetime?.addEventListener('abort', () => roots.leave(), { once: true })
  // The refresh each tool call made, by that call's abort signal: a list's
  // title fold reuses the revision check its own listing just made (one per
  // call), and any other call checks again.
  const refreshedBy = new WeakMap<AbortSignal, number>()
  let lastHeaders: { entries: readonly IndexEntry[], headers: SessionHeaderView[] } | undefined
  // Liveness as rc.8's own listing reports it (membership in this process's session store, read once per call) or
  // as the tools' one predicate reports it (`isLive`): one registry listing for every row, not one lookup per row.
  const liveNow = (): { headers: SessionHeaderView[], isLive: (id: string) => boolean } => {
    const headers: SessionHeaderView[] = []
    for (const session of store(options.sessions())?.list() ?? []) {
      const header = readHeader(session.header)
      if (header !== undefined) headers.push(header)
    }
    const liveIds = new Set(headers.map(header => header.id))
    const listed = typeof agents.list === 'function' ? agents.list() : undefined
    if (listed !== undefined) for (const agent of listed) liveIds.add(agent.id)
    return { headers, isLive: listed === undefined ? id => liveIds.has(id) || isLive(id) : id => liveIds.has(id) }
  }

  return {
    async listSessions(signal) {
      const indexed = roots.now()
      if (indexed === undefined) return fallback.listSessions(signal)
      // This call's generation, read as its refresh starts: another call's refresh may start before this one ends.
      const refreshing = indexed.index.refresh(signal)
      refreshedBy.set(signal, indexed.index.generation)
      const entries = await refreshing
      indexed.writes.soon()
      const now = liveNow()
      // The headers of an unchanged refresh (the very same entries) are not mapped again.
      const headers = lastHeaders?.entries === entries ? lastHeaders.headers : entries.map(entry => entry.header)
      lastHeaders = { entries, headers }
      return overlayLive(headers, now.headers, now.isLive, true)
    },

    async listNewest(request, signal) {
      const indexed = roots.now()
      const found = await indexed?.index.newest(request.filter, request.limit, signal)
      if (found === undefined) return undefined
      indexed!.writes.soon()
      const now = liveNow()
      return newestRows(found, now.headers, now.isLive, request.filter)
    },

    async readTitles(sessionIds, signal, titleOptions) {
      const indexed = roots.now()
      if (indexed === undefined) return fallback.readTitles(sessionIds, signal)
      // This process's live sessions, read once (the store is a service proxy: one `get` per id costs).
      const liveById = new Map<string, { events?: unknown }>()
      for (const session of store(options.sessions())?.list() ?? []) {
        const id = typeof session.id === 'string' ? session.id : readHeader(session.header)?.id
        if (id !== undefined) liveById.set(id, session)
      }
      const budgetMs = titleOptions?.budgetMs
      // The listing's rows are written with these titles (./row-writes.ts: the read flushes at its end); a read that
      // ends early leaves them to later.
      indexed.writes.take()
      try {
        return await readIndexedTitles(sessionIds, { index: indexed.index, liveById, checkedBy: refreshedBy.get(signal), budgetMs }, signal)
      } catch (error: unknown) {
        indexed.writes.soon()
        throw error
      }
    },

    async readSurface(sessionId, signal) {
      const indexed = roots.now()
      if (indexed === undefined || liveHere(sessionId)) return fallback.readSurface(sessionId, signal)
      const inspect = indexed.persistence.inspect
      if (typeof inspect !== 'function') return fallback.readSurface(sessionId, signal)
      const entry = indexed.index.check(sessionId)
      if (entry === undefined) return undefined
      // The surface kept at exactly this log revision, else the log's own inspect (index/surface-cache.ts).
      return indexed.surfaces.read(entry, async () => {
        try {
          return (await inspect.call(indexed.persistence, sessionId, signal) ?? {}) as Inspected
        } catch (error: unknown) {
          if (isMissingSession(error, sessionId)) return undefined
          throw error
        }
      }, () => liveHere(sessionId))
    },

    async lookup(sessionId, signal) {
      const indexed = roots.now()
      if (indexed === undefined || liveHere(sessionId)) return fallback.lookup(sessionId, signal)
      signal.throwIfAborted()
      const entry = indexed.index.check(sessionId)
      return entry === undefined ? undefined : { header: entry.header, live: isLive(sessionId), persisted: true }
    },

    async recheck(sessionIds, signal) {
      const found = new Map<string, SessionHeaderView | undefined>()
      const indexed = roots.now()
      // The fallback port lists afresh on every call: nothing to re-check.
      if (indexed === undefined) return found
      const checkedBy = refreshedBy.get(signal)
      for (const sessionId of sessionIds) {
        signal.throwIfAborted()
        try {
          // A log this call already checked is not checked again; a known one is `stat`ed (its file may be replaced or gone).
          const entry = indexed.index.check(sessionId, checkedBy)
          // No log now: a session live in this process is still listed, with its header from memory.
          const live = entry === undefined ? store(options.sessions())?.get(sessionId) : undefined
          found.set(sessionId, entry?.header ?? (live === undefined ? undefined : readHeader(live.header)))
        } catch {
          // A check that fails (the file cannot be read: permissions, a loop of links) leaves that row as listed.
        }
      }
      return found
    },

    isLive,
  }
}
