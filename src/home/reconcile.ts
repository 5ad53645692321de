/**
 * The registry diff of one tick (`home/runtime.ts`): hold what went live in
 * this process unseen, let go of what is gone. One `agents.list()` and no
 * lookup per held session, so a tick costs the same registry calls with 1 or
 * 1,000 idle sessions live here (docs/performance.md, "Registry calls").
 *
 * @module dsh-cross-session/home/reconcile
 */

import type { HostAgent, HostAgents } from '../harness/host.js'
import type { Holdings } from './holding.js'

/**
 * Bring `holdings` in line with `agents`.
 * @returns this process's live agents by id, or `undefined` for a registry
 *   without `list` (then each held session is looked up by id).
 */
export function reconcileLive(holdings: Holdings, agents: HostAgents): Map<string, HostAgent> | undefined {
  const listed = agents.list?.()
  const live = listed === undefined ? undefined : new Map(listed.map(agent => [agent.id, agent]))
  for (const agent of listed ?? []) if (!holdings.holds(agent.id)) holdings.track(agent)
  for (const sessionId of holdings.ids()) {
    if (live === undefined ? agents.get(sessionId) === undefined : !live.has(sessionId)) holdings.untrack(sessionId)
  }
  return live
}
