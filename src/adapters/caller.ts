/**
 * The calling session of one tool execution (defined at the top of
 * docs/tools.md; the caller port of docs/architecture.md §2).
 *
 * Source of truth is `exec.agent` (rc.8 `ToolRunContext.agent`, the agent
 * whose model made the call); when a host does not bind one, the registry's
 * `currentInitiator()` is the fallback; with neither, tools refuse the call.
 * Where its current turn came from (the hop source) is `latestRelay` in
 * `src/model/provenance.ts`.
 *
 * @module dsh-cross-session/adapters/caller
 */

import type { HostAgent, HostAgents, HostToolExec } from '../harness/host.js'
import type { Caller } from '../ports.js'
import { latestRelay } from '../model/provenance.js'
import { readHeader } from '../model/sessions.js'

/** A {@link Caller} view over a live agent, or `undefined` if its header is unusable. */
function callerFromAgent(agent: HostAgent | undefined): Caller | undefined {
  if (agent === undefined || agent === null) return undefined
  const header = readHeader(agent.session?.header)
  if (header === undefined) return undefined
  return {
    sessionId: header.id,
    header,
    latestRelay: () => {
      const events = agent.session?.events
      return Array.isArray(events) ? latestRelay(events) : undefined
    },
  }
}

/** Resolve the caller of one execution: `exec.agent`, else the current initiator. */
export function resolveCaller(exec: HostToolExec, agents: HostAgents): Caller | undefined {
  const bound = callerFromAgent(exec.agent)
  if (bound !== undefined) return bound
  try {
    return callerFromAgent(agents.currentInitiator?.())
  } catch {
    // rc.8 throws when no initiator is active: that is "no caller".
    return undefined
  }
}
