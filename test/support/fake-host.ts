/**
 * A fake dsh host shaped like the real rc.8 services (PRODUCT.md §2):
 * `ctx.tools.register`, `ctx.sessionQuery` (records `{header, live,
 * persisted}`, `readTitleSnapshots` observations, `readSurface` snapshots,
 * `SESSION_QUERY_SESSION_NOT_FOUND` errors), `ctx.agents` (`get`, `resume`
 * returning a handle, `currentInitiator`), an Agent with `status`,
 * `followup`, `steer`, `session.events`, and Cordis's `inject`, `effect`,
 * `get`, `logger`. Used to drive `src/plugin.ts` as the harness would.
 *
 * @module test/support/fake-host
 */

import type { HostAgent, HostToolDefinition, HostUserMessage } from '../../src/testing.js'
import type { PluginContext } from '../../src/plugin.js'

export interface FakeAgent extends HostAgent {
  received: Array<{ via: 'followup' | 'steer', message: HostUserMessage }>
  session: { id: string, header: Record<string, unknown>, events: unknown[] }
  status: 'idle' | 'running'
}

export interface PersistedSession {
  header: Record<string, unknown>
  title?: string
  events: unknown[]
}

function notFound(id: string): Error {
  return Object.assign(new Error(`session "${id}" not found`), { code: 'SESSION_QUERY_SESSION_NOT_FOUND' })
}

/** Build a live agent over a session (records what it is sent, logs it like the inbox does). */
export function fakeAgent(header: Record<string, unknown>, events: unknown[] = []): FakeAgent {
  const agent: FakeAgent = {
    id: header.id as string,
    status: 'idle',
    received: [],
    session: { id: header.id as string, header, events },
    // As rc.8 logs it: the durable inbox insertion at once; the message's own
    // user/message when a step claims it (at once for an idle agent or a
    // steer, only after the current turn for a queue to a running one). An
    // idle agent's turn then ends at once, completed.
    followup(message) {
      agent.received.push({ via: 'followup', message })
      events.push({ seq: events.length + 1, type: 'agent/inbox/spliced', data: { target: 'next-turn', inserted: [message] } })
      if (agent.status === 'idle') {
        events.push({ seq: events.length + 1, type: 'user/message', data: message })
        events.push({ seq: events.length + 1, type: 'turn/end', data: { turn: events.length, reason: { kind: 'completed' } } })
      }
    },
    steer(message) {
      agent.received.push({ via: 'steer', message })
      events.push({ seq: events.length + 1, type: 'agent/inbox/spliced', data: { target: 'next-step', inserted: [message] } })
      events.push({ seq: events.length + 1, type: 'user/message', data: message })
      if (agent.status === 'idle') events.push({ seq: events.length + 1, type: 'turn/end', data: { turn: events.length, reason: { kind: 'completed' } } })
    },
    whenIdle: async () => undefined,
  }
  return agent
}

export class FakeHost {
  readonly registered = new Map<string, HostToolDefinition>()
  readonly logs: Array<{ level: string, message: string }> = []
  readonly persisted = new Map<string, PersistedSession>()
  readonly live = new Map<string, FakeAgent>()
  readonly calls: string[] = []
  readonly disposers: Array<() => void> = []
  initiator: FakeAgent | undefined
  services: Record<string, unknown> = {}
  resumeDisposed: string[] = []

  constructor(options: { omit?: string[] } = {}) {
    const host = this
    const all: Record<string, unknown> = {
      tools: {
        register(definition: HostToolDefinition) {
          host.registered.set(definition.name, definition)
          return () => host.registered.delete(definition.name)
        },
      },
      sessionQuery: {
        async listSessions() {
          host.calls.push('sessionQuery.listSessions')
          const rows = new Map<string, unknown>()
          for (const [id, stored] of host.persisted) rows.set(id, { header: stored.header, live: false, persisted: true })
          for (const [id, agent] of host.live) rows.set(id, { header: agent.session.header, live: true, persisted: host.persisted.has(id) })
          return [...rows.values()]
        },
        async readTitleSnapshots(ids: readonly string[]) {
          host.calls.push(`sessionQuery.readTitleSnapshots(${ids.length})`)
          return ids.map(id => {
            const stored = host.persisted.get(id)
            if (stored === undefined && !host.live.has(id)) return { sessionId: id, status: 'rejected', reason: notFound(id) }
            return { sessionId: id, status: 'fulfilled', value: { session: stored?.header, ...(stored?.title === undefined ? {} : { title: { title: stored.title, eventSeq: 1, updatedAt: 1 } }) } }
          })
        },
        async readTitleSnapshot(id: string) {
          host.calls.push('sessionQuery.readTitleSnapshot')
          const agent = host.live.get(id)
          if (agent !== undefined) return { session: agent.session.header }
          const stored = host.persisted.get(id)
          if (stored === undefined) throw notFound(id)
          return { session: stored.header, ...(stored.title === undefined ? {} : { title: { title: stored.title } }) }
        },
        async readSurface(id: string) {
          host.calls.push('sessionQuery.readSurface')
          const agent = host.live.get(id)
          const stored = host.persisted.get(id)
          const source = agent?.session ?? stored
          if (source === undefined) throw notFound(id)
          const events = agent?.session.events ?? stored?.events ?? []
          return { session: source.header, capturedThroughSeq: events.length, events }
        },
      },
      agents: {
        get(id: string) {
          return host.live.get(id)
        },
        currentInitiator() {
          if (host.initiator === undefined) throw new Error('no initiator is active')
          return host.initiator
        },
        async resume(options: { resumeSessionId: string, agentOptions?: unknown }) {
          host.calls.push(`agents.resume(${options.resumeSessionId}, ${JSON.stringify(options.agentOptions ?? null)})`)
          const stored = host.persisted.get(options.resumeSessionId)
          if (stored === undefined) throw notFound(options.resumeSessionId)
          const agent = fakeAgent(stored.header, stored.events)
          host.live.set(agent.id, agent)
          return {
            agent,
            dispose: async () => {
              host.resumeDisposed.push(agent.id)
              host.live.delete(agent.id)
            },
          }
        },
      },
      agentDefaultModel: { currentSelection: () => ({ provider: 'deepseek', model: 'deepseek-v4-flash' }) },
    }
    for (const [name, service] of Object.entries(all)) if (!options.omit?.includes(name)) this.services[name] = service
  }

  /** The Cordis-like context a plugin is applied with. */
  context(): PluginContext {
    const host = this
    const ctx = {
      get tools() { return host.services.tools },
      get sessionQuery() { return host.services.sessionQuery },
      get agents() { return host.services.agents },
      get: (name: string) => host.services[name],
      logger: () => ({
        info: (message: string) => host.logs.push({ level: 'info', message }),
        warn: (message: string) => host.logs.push({ level: 'warn', message }),
      }),
      inject(deps: string[], callback: (inner: PluginContext) => void) {
        if (deps.every(dep => host.services[dep] !== undefined)) callback(ctx as unknown as PluginContext)
      },
      effect(execute: () => () => void) {
        host.disposers.push(execute())
      },
    }
    return ctx as unknown as PluginContext
  }

  /** Run every registered disposer (Cordis fiber disposal). */
  dispose(): void {
    for (const dispose of this.disposers.splice(0).reverse()) dispose()
  }

  /** Add a persisted (cold) top-level session. */
  persist(id: string, createdAt: number, extra: Partial<PersistedSession> & { header?: Record<string, unknown> } = {}): PersistedSession {
    const stored = { events: [], ...extra, header: { version: 1, id, createdAt, cwd: '/work/project', ...extra.header } }
    this.persisted.set(id, stored)
    return stored
  }

  /** Add a live session with its agent. */
  goLive(id: string, createdAt: number, events: unknown[] = []): FakeAgent {
    const agent = fakeAgent({ version: 1, id, createdAt, cwd: '/work/project' }, events)
    this.live.set(id, agent)
    return agent
  }

  /** Execute a registered tool as the harness would, from `agent`'s turn. */
  async run(tool: string, args: unknown, agent: FakeAgent | undefined, callId = `call-${Math.random()}`): Promise<string> {
    const definition = this.registered.get(tool)
    if (definition === undefined) throw new Error(`tool ${tool} is not registered`)
    return definition.execute(args, { ...(agent === undefined ? {} : { agent }), signal: new AbortController().signal, callId })
  }
}
