/**
 * The calling session of one tool execution (PRODUCT.md §3 "caller").
 *
 * Source of truth is `exec.agent` (rc.8 `ToolRunContext.agent`, the agent
 * whose model made the call); when a host does not bind one, the registry's
 * `currentInitiator()` is the fallback; with neither, tools refuse the call.
 *
 * @module dsh-cross-session/caller
 */

import type { HostAgent, HostAgents, HostToolExec } from './host.js'
import type { Caller } from './ports.js'
import { deliveredProvenance, type RelayProvenance } from './provenance.js'
import { readHeader } from './sessions.js'
import { isInjectedText, textOf } from './message-text.js'

/**
 * Where the caller's current turn came from (issue 11 §5): the latest
 * `user/message` that a human typed (`user` source, not injected context)
 * or that this package delivered (its relay source, `src/provenance.ts`).
 * Other plugin notices and tool results never start a turn and are skipped.
 * The hop is read from the recorded source, never from message text. Scans
 * from the end, so the cost is the distance to that message.
 * @returns the relay provenance when a delivered message is the latest,
 *   `undefined` when a human prompt is (or there is none).
 */
export function latestRelay(events: readonly unknown[]): RelayProvenance | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as { type?: unknown, data?: { id?: unknown, source?: { kind?: unknown }, content?: unknown } } | null
    if (event?.type !== 'user/message' || typeof event.data !== 'object' || event.data === null) continue
    const text = textOf(event.data.content)
    const relay = deliveredProvenance(event.data, text)
    if (relay !== undefined) return relay
    if (event.data.source?.kind !== 'user') continue
    if (text !== undefined && !isInjectedText(text)) return undefined
  }
  return undefined
}

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
