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
import { readHeader } from './sessions.js'
import { isInjectedText, textOf } from './surface.js'

/**
 * Text of the latest user-source prompt in a session log: the message that
 * started its current turn. Injected context (plugin sources, injected
 * prefixes) is skipped. Scans from the end, so the cost is the distance to
 * that message, not the log length.
 */
export function latestPromptText(events: readonly unknown[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as { type?: unknown, data?: { source?: { kind?: unknown }, content?: unknown } } | null
    if (event?.type !== 'user/message' || event.data?.source?.kind !== 'user') continue
    const text = textOf(event.data.content)
    if (text !== undefined && !isInjectedText(text)) return text
  }
  return undefined
}

/** A {@link Caller} view over a live agent, or `undefined` if its header is unusable. */
export function callerFromAgent(agent: HostAgent | undefined): Caller | undefined {
  if (agent === undefined || agent === null) return undefined
  const header = readHeader(agent.session?.header)
  if (header === undefined) return undefined
  return {
    sessionId: header.id,
    header,
    latestPromptText: () => {
      const events = agent.session?.events
      return Array.isArray(events) ? latestPromptText(events) : undefined
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
