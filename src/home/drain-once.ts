/**
 * One drain of a session held live here (`home/holding.ts`): claim what
 * waits for it in the store, behind what an earlier drain claimed and a
 * store fault left unadmitted, admit all of it in posting order
 * (`home/owner-delivery.ts` `admitClaimed`, which reads each one's state
 * from the log first, so none is admitted twice), and settle the session
 * from its log.
 *
 * @module dsh-cross-session/home/drain-once
 */

import type { HoldingHost } from './holding-host.js'
import { admitClaimed, settle, type HeldSession } from './owner-delivery.js'
import type { HomeStore, StoredMessage } from './store.js'

/**
 * Drain `held` once. `unadmitted`: per session, what was claimed here and not yet admitted (kept until all are through).
 * @returns whether anything was claimed (the caller records what was found and tells other processes).
 * @throws a store fault from the claim or an admission's refusal (what was claimed stays in `unadmitted`).
 */
export function drainOnce(store: HomeStore, host: HoldingHost, held: HeldSession, unadmitted: Map<string, StoredMessage[]>): boolean {
  const sessionId = held.target
  const left = unadmitted.get(sessionId) ?? []
  // A read first: most drains (every wake, every session going live) find nothing waiting, and pay no lookup and no write.
  if (left.length === 0 && !store.waiting().has(sessionId)) return false
  const agent = host.agents.get(sessionId)
  if (agent === undefined || host.admits?.(sessionId) === false) return false
  const claimed = [...left, ...store.claim(sessionId)]
  if (claimed.length === 0) return false
  unadmitted.set(sessionId, claimed)
  const admitted = admitClaimed(store, agent, held, claimed, host.log)
  unadmitted.delete(sessionId)
  for (const messageId of admitted) held.awaiting.add(messageId)
  settle(store, agent, held)
  return true
}
