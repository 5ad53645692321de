/**
 * What the holder (`home/holding.ts`) needs from its process: the agent
 * registry, a log line, the harness's flush, and whether a session held
 * there takes stored messages now.
 *
 * @module dsh-cross-session/home/holding-host
 */

import type { HostAgent, HostAgents } from '../harness/host.js'

/** What holding needs from its process. */
export interface HoldingHost {
  readonly agents: HostAgents
  readonly log: (message: string) => void
  /** Write a live session's log to disk now (rc.8 `ctx.sessions.flush`); absent: nothing to wait for. */
  readonly flush?: (agent: HostAgent) => Promise<unknown>
  /** Whether a session held here takes stored messages now (not a headless run's own task: ./run-hold.ts); absent: yes. */
  readonly admits?: (sessionId: string) => boolean
}
