/**
 * True liveness across processes for the read side: wraps the session query
 * port so a session held live by another dsh process on this home reads as
 * `live`, marked with that process's pid.
 *
 * Cost: one read of the store's holders per list, lookup or liveness check
 * (plus a liveness probe per distinct other process), never a log read.
 *
 * @module dsh-cross-session/home/query
 */

import type { SessionQueryPort, SessionRecordView } from '../ports.js'
import type { HomeStore, Holder } from './store.js'
import { storeFaultWhy } from './store-fault.js'

/**
 * Sessions live in other living processes (a wake under way elsewhere is
 * not `live` yet). A store that cannot be used shows none: lists and reads
 * keep working, without presence (docs/architecture.md §8, "When the store fails").
 */
function liveElsewhere(store: HomeStore): ReadonlyMap<string, Holder> {
  try {
    return store.board().elsewhere
  } catch (error: unknown) {
    if (storeFaultWhy(error) === undefined) throw error
    return new Map()
  }
}

/** The holder of one session, or `undefined` (also while the store cannot be used). */
function holderOf(store: HomeStore, sessionId: string): Holder | undefined {
  try {
    return store.view(sessionId).holder
  } catch (error: unknown) {
    if (storeFaultWhy(error) === undefined) throw error
    return undefined
  }
}

/** Pure: mark rows live elsewhere (rows already live here are left as they are). */
export function markElsewhere<T extends SessionRecordView>(row: T, elsewhere: ReadonlyMap<string, Holder>): T {
  if (typeof row !== 'object' || row === null) return row
  const id = (row as { header?: { id?: unknown } }).header?.id
  const holder = typeof id === 'string' ? elsewhere.get(id) : undefined
  if (holder === undefined || row.live === true) return row
  if (holder.state !== 'live') return row
  return { ...row, live: true, elsewhere: { pid: holder.tag.pid } }
}

/** Wrap `inner` with presence. */
export function withPresence(inner: SessionQueryPort, store: HomeStore): SessionQueryPort {
  return {
    ...inner,
    async listSessions(signal) {
      const rows = await inner.listSessions(signal)
      const elsewhere = liveElsewhere(store)
      return elsewhere.size === 0 ? rows : rows.map(row => markElsewhere(row, elsewhere))
    },
    ...(inner.listNewest === undefined ? {} : {
      async listNewest(request, signal) {
        const found = await inner.listNewest!(request, signal)
        if (found === undefined) return undefined
        const elsewhere = liveElsewhere(store)
        return elsewhere.size === 0 ? found : { ...found, rows: found.rows.map(row => markElsewhere(row, elsewhere)) }
      },
    }),
    async lookup(sessionId, signal) {
      const record = await inner.lookup(sessionId, signal)
      return record === undefined ? undefined : markElsewhere(record, liveElsewhere(store))
    },
    isLive(sessionId) {
      return inner.isLive(sessionId) || holderOf(store, sessionId)?.state === 'live'
    },
    liveElsewhere(sessionId) {
      if (inner.isLive(sessionId)) return undefined
      const holder = holderOf(store, sessionId)
      return holder === undefined || holder.state !== 'live' || holder.tag.pid === store.self.pid ? undefined : { pid: holder.tag.pid }
    },
  }
}
