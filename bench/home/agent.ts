/**
 * An in-memory live agent for the home bench, shaped like rc.8's as this
 * package reads it (`@deepseek-ai/dsh-agent@0.1.0-rc.8` lib/index.js `Inbox`
 * and `@deepseek-ai/dsh-agent-loop@0.1.0-rc.8` lib/index.js, the facts
 * src/home/log-state.ts follows): an admission appends
 * `agent/inbox/spliced` at once; an idle agent then starts a turn on a
 * later tick, which takes the inbox out (a second splice), appends each
 * message as its own `user/message`, and ends with `turn/end` `completed`.
 * Every append is reported to `onEvent`, as the harness emits
 * `session/event` (which src/home/mount.ts hands to the runtime).
 *
 * There is no model: a turn takes two ticks, so the figures measured over
 * it are this package's own cost.
 *
 * @module bench/home/agent
 */

import type { HostAgent, HostUserMessage } from '../../src/harness/host.js'

/** A bench agent: the live agent plus when each message was admitted and recorded (epoch ms, sub-ms). */
export interface BenchAgent extends HostAgent {
  readonly events: unknown[]
  readonly admittedAt: Map<string, number>
  readonly recordedAt: Map<string, number>
}

/** High-resolution wall clock, comparable across processes on one machine (epoch ms). */
export function clock(): number {
  return performance.timeOrigin + performance.now()
}

/** A live top-level session `id` created at `createdAt`. */
export function benchAgent(id: string, createdAt: number, onEvent: (sessionId: string) => void): BenchAgent {
  const events: unknown[] = []
  const inbox: HostUserMessage[] = []
  let status: 'idle' | 'running' = 'idle'
  let turn = 0
  const header = { version: 1, id, createdAt, cwd: '/work/bench' }
  const admittedAt = new Map<string, number>()
  const recordedAt = new Map<string, number>()
  const append = (type: string, data: unknown): void => {
    events.push({ seq: events.length, time: Date.now(), type, data })
    onEvent(id)
  }
  const runTurn = (): void => {
    if (inbox.length === 0) {
      status = 'idle'
      return
    }
    status = 'running'
    turn++
    append('turn/start', { turn })
    const taken = inbox.splice(0)
    append('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: taken.length, inserted: [] })
    for (const message of taken) {
      append('user/message', message)
      recordedAt.set(message.id, clock())
    }
    setImmediate(() => {
      append('turn/end', { turn, reason: { kind: 'completed' } })
      runTurn()
    })
  }
  // A steer is taken into the next turn here too: there is no step to join.
  const admit = (message: HostUserMessage): void => {
    admittedAt.set(message.id, clock())
    append('agent/inbox/spliced', { target: 'next-turn', start: inbox.length, inserted: [message] })
    inbox.push(message)
    if (status === 'idle') {
      status = 'running'
      setImmediate(runTurn)
    }
  }
  return {
    id,
    session: { id, header, events },
    get status() { return status },
    events,
    admittedAt,
    recordedAt,
    followup: admit,
    steer: admit,
    whenIdle: async () => undefined,
  }
}
