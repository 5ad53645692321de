/**
 * Wire the home runtime into one plugin activation (issue 8): start it (one
 * per process and home, shared by every activation in the process), observe
 * `agent/created` / `agent/disposed` on the host context so presence covers
 * every top-level session live here (not only ones this package woke), and
 * wrap the two ports.
 *
 * If the home cannot be used (e.g. a directory is a symlink), the failure is
 * logged and the ports are returned unwrapped: the tools then see only this
 * process, as before this issue.
 *
 * @module dsh-cross-session/home/mount
 */

import type { HostAgent, HostAgents, HostSessionQuery } from '../host.js'
import type { ControllerPort, SessionQueryPort } from '../ports.js'
import { guardController } from './guard.js'
import { resolveHome } from './paths.js'
import { withPresence } from './query.js'
import { HomeRuntime } from './runtime.js'

/** The slice of the Cordis context this module reads. */
interface HomeMountContext {
  readonly agents: HostAgents
  readonly sessionQuery: HostSessionQuery
  get(name: string): unknown
  on?(name: string, listener: (...args: unknown[]) => void): unknown
  effect(execute: () => () => void, label?: string): unknown
}

interface Shared {
  runtime: HomeRuntime
  users: number
}

// One runtime per process and home, even if two copies of this module load.
const REGISTRY_KEY = Symbol.for('dsh-cross-session.home-runtimes')
function registry(): Map<string, Shared> {
  const holder = globalThis as unknown as Record<symbol, Map<string, Shared> | undefined>
  holder[REGISTRY_KEY] ??= new Map()
  return holder[REGISTRY_KEY]
}

/** The agent an `agent/created` / `agent/disposed` listener was given (`{ agent }`, rc.8 `AgentRegistry`). */
function agentOf(args: readonly unknown[]): HostAgent | undefined {
  for (const arg of args) {
    const agent = (arg as { agent?: unknown } | null)?.agent
    if (typeof agent === 'object' && agent !== null && typeof (agent as { id?: unknown }).id === 'string') return agent as HostAgent
  }
  return undefined
}

/**
 * Start (or join) the home runtime and wrap the ports.
 * @returns the wrapped ports, or the given ones when the home is unusable.
 */
export function mountHome(ctx: HomeMountContext, ports: { sessions: SessionQueryPort, controller: ControllerPort }, log: (level: 'info' | 'warn', message: string) => void): { sessions: SessionQueryPort, controller: ControllerPort } {
  const home = resolveHome()
  const runtimes = registry()
  let shared = runtimes.get(home)
  if (shared === undefined) {
    const runtime = new HomeRuntime(home, ctx.agents, message => log('warn', message))
    try {
      runtime.start(typeof ctx.agents.list === 'function' ? ctx.agents.list() : [])
    } catch (error: unknown) {
      runtime.stop()
      log('warn', `cross-process coordination is off: ${String(error)}; sessions live in other dsh processes are not seen`)
      return ports
    }
    shared = { runtime, users: 0 }
    runtimes.set(home, shared)
  }
  const { runtime } = shared
  shared.users++
  ctx.on?.('agent/created', (...args: unknown[]) => {
    const agent = agentOf(args)
    if (agent !== undefined) runtime.track(agent)
  })
  ctx.on?.('agent/disposed', (...args: unknown[]) => {
    const agent = agentOf(args)
    if (agent !== undefined) runtime.untrack(agent.id)
  })
  ctx.effect(() => () => {
    const entry = runtimes.get(home)
    if (entry === undefined || --entry.users > 0) return
    runtimes.delete(home)
    entry.runtime.stop()
  }, 'cross-session.home')
  const persistence = ctx.get('sessionPersistence') as { readFrom?: (id: string, fromSeq: number) => Promise<{ events?: unknown }> } | undefined
  const listEvents = typeof persistence?.readFrom === 'function'
    ? async (sessionId: string) => {
      const read = await persistence.readFrom!(sessionId, 0)
      return Array.isArray(read?.events) ? read.events as unknown[] : []
    }
    : undefined
  if (listEvents === undefined) log('info', 'the host has no sessionPersistence.readFrom: a session mid-turn in a process without this package cannot be detected')
  return {
    sessions: withPresence(ports.sessions, runtime),
    controller: guardController(ports.controller, runtime, sessionId => ctx.agents.get(sessionId) !== undefined, listEvents),
  }
}
