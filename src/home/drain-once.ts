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
import { retryInBackground } from './store-retry.js'

/**
 * Hand `claimed` back to pending. A lock is waited out in the background (`retryInBackground`). Any other store fault
 * (a full disk, an I/O error) leaves them this living process's claims, which no other process takes, until this
 * process joins the store again (`home/join.ts` lets go of its claims) or ends (docs/architecture.md §8, "What
 * remains unprotected"); anything that is not a store fault is said.
 */
function handBack(store: HomeStore, claimed: readonly StoredMessage[], log: (message: string) => void): void {
  const ids = claimed.map(message => message.messageId)
  try {
    retryInBackground(() => store.handBack(ids), () => true, log)
  } catch (error: unknown) {
    log(`handing back ${ids.length} claimed message(s) no runtime here will admit failed: ${String(error)}`)
  }
}

/**
 * Drain `sessionId` once, while it is held live here (`heldNow`). `unadmitted`: per session, what was claimed here and
 * not yet admitted (kept until all are through). The claim runs off the event loop (`HomeStore.claimOffLoop`); what it
 * took is admitted into the session as held here when it answers (held again since: by the new holding). Not held here
 * any more, what it took goes back to pending (`HomeStore.handBack`): the release, or the runtime's `leave`, came
 * first, or the runtime stopped with the session still live and a new runtime of this process holds it, which
 * would never admit a claim it does not know.
 * @returns whether anything was claimed (the caller records what was found and tells other processes).
 * @throws a store fault from the claim or an admission's refusal (what was claimed stays in `unadmitted`).
 */
export async function drainOnce(store: HomeStore, host: HoldingHost, sessionId: string,
  heldNow: (sessionId: string) => HeldSession | undefined, unadmitted: Map<string, StoredMessage[]>): Promise<boolean> {
  // A read first: most drains (every wake, every session going live) find nothing waiting, and pay no lookup and no write.
  if (!unadmitted.has(sessionId) && !store.waiting().has(sessionId)) return false
  if (host.agents.get(sessionId) === undefined || host.admits?.(sessionId) === false) return false
  const fresh = await store.claimOffLoop(sessionId)
  const held = heldNow(sessionId)
  if (held === undefined) {
    if (fresh.length > 0) handBack(store, fresh, host.log)
    return false
  }
  // Claimed here: admitted below, or by the next drain (nothing else takes a claim of a living process). One kept from
  // an earlier drain may have gone back to pending since (a stopped worker's hand-back, a join) and been claimed
  // again now: it is admitted once, in its first place.
  const kept = unadmitted.get(sessionId) ?? []
  const keptIds = new Set(kept.map(message => message.messageId))
  const claimed = [...kept, ...fresh.filter(message => !keptIds.has(message.messageId))]
  if (claimed.length === 0) return false
  unadmitted.set(sessionId, claimed)
  const agent = host.agents.get(sessionId)
  if (agent === undefined || host.admits?.(sessionId) === false) return true
  const admitted = admitClaimed(store, agent, held, claimed, host.log)
  unadmitted.delete(sessionId)
  for (const messageId of admitted) held.awaiting.add(messageId)
  settle(store, agent, held)
  return true
}
