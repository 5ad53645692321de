/**
 * What the home reads of its host's context and events: the agent of an
 * `agent/created` / `agent/disposed` event, the session of a `session/event`,
 * a session's stored events, whether the host is long-lived; and a listener
 * that never throws a store fault into the host's event.
 *
 * @module dsh-cross-session/home/host-events
 */

import type { HostAgent } from '../harness/host.js'
import { StoreUnavailableError } from './store-fault.js'

/** The slice of the context read here. */
interface ContextView {
  get(name: string): unknown
}

/** The agent an `agent/created` / `agent/disposed` listener was given (`{ agent }`, rc.8 `AgentRegistry`). */
export function agentOf(args: readonly unknown[]): HostAgent | undefined {
  for (const arg of args) {
    const agent = (arg as { agent?: unknown } | null)?.agent
    if (typeof agent === 'object' && agent !== null && typeof (agent as { id?: unknown }).id === 'string') return agent as HostAgent
  }
  return undefined
}

/** The session id a `session/event` listener was given (its first argument is the session, rc.8 `dsh-session`). */
export function sessionIdOf(args: readonly unknown[]): string | undefined {
  const id = (args[0] as { id?: unknown } | null | undefined)?.id
  return typeof id === 'string' ? id : undefined
}

/**
 * A long-lived host is one that serves the web UI: rc.8 `dsh web` composes
 * `@deepseek-ai/dsh-host-webserver` (service `webServer`); a headless run
 * does not, and ends as soon as its own session is idle. Asked per use,
 * never once at activation: a plugin row may apply before the profile's
 * own rows have provided their services.
 */
export function isLongLivedHost(ctx: ContextView): boolean {
  return ctx.get('webServer') !== undefined
}

/**
 * An rc.8 one-shot run (`dsh --profile headless "task"`): its
 * `@deepseek-ai/dsh-headless@0.1.0-rc.8` lib/startup.js provides
 * `headlessStartup` (the task), which its runner injects. Asked per use.
 */
export function isHeadlessRun(ctx: ContextView): boolean {
  return ctx.get('headlessStartup') !== undefined
}

/** A session's stored events (rc.8 `sessionPersistence.readFrom(id, 0)`), when the host has it now. */
export function persistedEvents(ctx: ContextView): ((sessionId: string) => Promise<unknown[]>) | undefined {
  const persistence = ctx.get('sessionPersistence') as { readFrom?: (id: string, fromSeq: number) => Promise<{ events?: unknown }> }
    | undefined
  if (typeof persistence?.readFrom !== 'function') return undefined
  return async sessionId => {
    const read = await persistence.readFrom!(sessionId, 0)
    return Array.isArray(read?.events) ? read.events as unknown[] : []
  }
}

/** Run a listener's work; a store fault is never thrown into the host's event (the reconcile tries again). */
export function quietly(work: () => void, log: (message: string) => void): void {
  try {
    work()
  } catch (error: unknown) {
    if (!(error instanceof StoreUnavailableError)) log(`the cross-session store could not be updated: ${String(error)}`)
  }
}
