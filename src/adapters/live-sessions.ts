/**
 * This process's live sessions as the indexed port reads them (rc.8
 * `ctx.sessions`, `SessionStore`): their titles from memory, and the
 * liveness overlay over stored headers. Pure.
 *
 * @module dsh-cross-session/adapters/live-sessions
 */

import type { NewestLogs } from '../index/newest.js'
import { headerPasses, type HeaderFilter } from '../model/list-filter.js'
import type { NewestRows, SessionHeaderView, SessionRecordView } from '../ports.js'

/** A live session of this process (`@deepseek-ai/dsh-session` `Session`), as read here. */
interface LiveSession {
  readonly id?: unknown
  readonly header?: unknown
  readonly events?: unknown
}

/** `ctx.sessions` (`SessionStore`, rc.8), the members read. */
interface HostSessionStore {
  get(id: string): LiveSession | undefined
  list(): LiveSession[]
}

/**
 * Merge stored headers with this process's live sessions: a row is live when
 * `isLive(id)` says so (the per-call liveness overlay); a live session
 * without a log yet is listed as not persisted, after the stored rows.
 * One row per session id: the first stored header of an id wins (the corpus
 * index already keeps one per id, so this costs a `Set` only when asked to
 * check, `storedUnique: false`).
 */
export function overlayLive(stored: readonly SessionHeaderView[], live: readonly SessionHeaderView[], isLive: (id: string) => boolean,
  storedUnique = false): SessionRecordView[] {
  const records: SessionRecordView[] = []
  const seen = storedUnique ? undefined : new Set<string>()
  const unlogged = new Map<string, SessionHeaderView>()
  for (const header of live) if (!unlogged.has(header.id)) unlogged.set(header.id, header)
  for (const header of stored) {
    if (seen !== undefined) {
      if (seen.has(header.id)) continue
      seen.add(header.id)
    }
    if (unlogged.size > 0) unlogged.delete(header.id)
    records.push({ header, live: isLive(header.id), persisted: true })
  }
  for (const header of unlogged.values()) records.push({ header, live: true, persisted: false })
  return records
}

/**
 * A first list's rows (`SessionQueryPort.listNewest`) from what the corpus index found (../index/newest.ts), with
 * the live sessions of this process that have no log yet, as {@link overlayLive} adds them: each passing `filter`
 * is a row (live, not persisted) and counts.
 */
export function newestRows(found: NewestLogs, live: readonly SessionHeaderView[], isLive: (id: string) => boolean,
  filter: HeaderFilter): NewestRows {
  const rows: SessionRecordView[] = found.headers.map(header => ({ header, live: isLive(header.id), persisted: true }))
  let considered = found.considered
  const unlogged = new Set<string>()
  for (const header of live) {
    if (found.hasLog(header.id) || unlogged.has(header.id)) continue
    unlogged.add(header.id)
    if (!headerPasses(filter, header)) continue
    considered++
    rows.push({ header, live: true, persisted: false })
  }
  return { rows, considered }
}

/** Title of the last `session/title` event of an in-memory log (rc.8 `foldSessionTitle`). */
export function liveTitle(events: unknown): string | undefined {
  if (!Array.isArray(events)) return undefined
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as { type?: unknown, data?: { title?: unknown } } | null
    if (event?.type === 'session/title') return typeof event.data?.title === 'string' ? event.data.title : undefined
  }
  return undefined
}

/** `ctx.sessions` when it has the members read here. */
export function store(value: unknown): HostSessionStore | undefined {
  const candidate = value as Partial<HostSessionStore> | undefined
  return typeof candidate?.get === 'function' && typeof candidate.list === 'function' ? candidate as HostSessionStore : undefined
}
