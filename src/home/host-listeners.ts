/**
 * What the home hears of its host (docs/architecture.md §8): a session
 * made, a session disposed, an event written to a session's log; each is
 * told to the runtime (which sessions this process holds), the home's
 * reach (which workspaces its sessions' shells write), the web channel's
 * change feed, and, on a shared store, the publisher of this machine's
 * sessions.
 *
 * @module dsh-cross-session/home/host-listeners
 */

import type { ChangeFeed } from './change-feed.js'
import type { HomeReach } from './home-reach.js'
import { workspaceOf } from './home-reach.js'
import { agentOf, quietly, sessionIdOf } from './host-events.js'
import type { HomeRuntime } from './runtime.js'

/** The slice of the Cordis context this module reads. */
interface ListenContext {
  on?(name: string, listener: (...args: unknown[]) => void, options?: { global?: boolean }): unknown
}

/** Who is told. */
export interface HostListeners {
  readonly runtime: HomeRuntime
  readonly reach: HomeReach
  readonly feed: ChangeFeed
  /** A session of this process changed (a shared store's publisher: `home/pg/machines-home.ts`). */
  readonly changed?: () => void
  readonly warn: (message: string) => void
}

/** Listen to `agent/created`, `agent/disposed` and `session/event` on `ctx`, for every session of the process. */
export function listenToHost(ctx: ListenContext, to: HostListeners): void {
  const { runtime, reach, feed, warn } = to
  // `global`: rc.8 `dsh-scope` filters a preset-scoped listener to that preset's agents
  // (`@deepseek-ai/dsh-scope@0.1.0-rc.8` lib/index.js); the home needs every session of the process.
  // Cordis 4.0.1 still owns a global listener by this plugin's fiber.
  const global = { global: true }
  ctx.on?.('agent/created', (...args: unknown[]) => {
    const agent = agentOf(args)
    if (agent === undefined) return
    quietly(() => runtime.track(agent), warn)
    reach.seeWorkspace(workspaceOf(agent.session.header))
    to.changed?.()
  }, global)
  ctx.on?.('agent/disposed', (...args: unknown[]) => {
    const agent = agentOf(args)
    if (agent === undefined) return
    quietly(() => runtime.untrack(agent.id), warn)
    to.changed?.()
  }, global)
  ctx.on?.('session/event', (...args: unknown[]) => {
    const sessionId = sessionIdOf(args)
    if (sessionId === undefined) return
    quietly(() => runtime.onSessionEvent(sessionId), warn)
    feed.logged(sessionId)
    to.changed?.()
  }, global)
}
