/**
 * True liveness across processes for the read side (issue 8 §1): wraps the
 * session query port so a session live in another dsh process on this home
 * reads as `live`, marked with that process's pid.
 *
 * Cost: one presence directory read per list, lookup or liveness check (plus
 * a liveness probe per distinct other process), never a log read.
 *
 * @module dsh-cross-session/home/query
 */

import type { SessionQueryPort, SessionRecordView } from '../ports.js'
import type { HomeRuntime } from './runtime.js'

/** Pure: mark rows live elsewhere (rows already live here are left as they are). */
export function markElsewhere<T extends SessionRecordView>(row: T, elsewhere: ReadonlyMap<string, { holder: { pid: number } }>): T {
  if (typeof row !== 'object' || row === null) return row
  const id = (row as { header?: { id?: unknown } }).header?.id
  const holder = typeof id === 'string' ? elsewhere.get(id) : undefined
  if (holder === undefined || row.live === true) return row
  return { ...row, live: true, elsewhere: { pid: holder.holder.pid } }
}

/** Wrap `inner` with presence. */
export function withPresence(inner: SessionQueryPort, runtime: HomeRuntime): SessionQueryPort {
  return {
    ...inner,
    async listSessions(signal) {
      const rows = await inner.listSessions(signal)
      const { elsewhere } = runtime.board()
      return elsewhere.size === 0 ? rows : rows.map(row => markElsewhere(row, elsewhere))
    },
    async lookup(sessionId, signal) {
      const record = await inner.lookup(sessionId, signal)
      return record === undefined ? undefined : markElsewhere(record, runtime.board().elsewhere)
    },
    isLive(sessionId) {
      return inner.isLive(sessionId) || runtime.board().elsewhere.has(sessionId)
    },
    liveElsewhere(sessionId) {
      if (inner.isLive(sessionId)) return undefined
      const holder = runtime.board().elsewhere.get(sessionId)
      return holder === undefined ? undefined : { pid: holder.holder.pid }
    },
  }
}
