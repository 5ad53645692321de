/**
 * rc.8 sessions simulated for the crash schedules and the owner's unit
 * tests: one session's log ({@link SessionLog}), its inbox ({@link SimInbox})
 * and its agent ({@link SimAgent}), built from the published rc.8 code:
 * - `@deepseek-ai/dsh-agent@0.1.0-rc.8` lib/index.js `Inbox`: `followup` /
 *   `steer` append an `agent/inbox/spliced` insertion (next-turn / next-step)
 *   and wake the driver; an id already pending is refused (`Inbox.validate`);
 *   `claim` takes every next-step item plus one queued turn with a
 *   pure-deletion splice; a removal by `splice` is a cancellation
 *   (`outcome: 'canceled'`), `clear` cancels next-step first;
 * - `@deepseek-ai/dsh-agent-loop@0.1.0-rc.8` lib/index.js `ReactLoopAgent`:
 *   a turn claims its input (`preStep`) and only later, in a separate step,
 *   appends each claimed message's `user/message` (the `await` between is
 *   where a SIGKILL loses it); a cancel or a disposal cancels every pending
 *   insertion and ends a running turn aborted; a turn that fails ends
 *   `error` and parks the rest of the inbox until the next wake (`kick`
 *   starts no driver after it);
 * - `@deepseek-ai/dsh-session@0.1.0-rc.8` lib/index.js
 *   `interruptedTurnClosers`: a resume closes a cut-off turn, and replaying
 *   every splice makes an insertion neither claimed nor cancelled pending
 *   again (it runs only once something wakes the agent);
 * - `@deepseek-ai/dsh-session-persistence@0.1.0-rc.8` lib/index.js
 *   `SessionWriteBehind`: an append goes to memory; a background write
 *   (within `DEFAULT_WRITE_BATCH_MAX_DELAY_MS`, 200 ms) puts a prefix of it
 *   on disk; `sessions.flush` and a disposal drain everything appended so
 *   far; a SIGKILL loses the unpersisted tail ({@link SessionLog.lose}).
 *
 * test/unit/rc8-sim.test.ts replays a log written here through rc.8's own
 * loader, so the simulation is checked against rc.8.
 *
 * @module test/support/rc8-sim
 */

import type { HeldSession, HostAgent, HostUserMessage } from '../../src/testing.js'

type Target = 'next-turn' | 'next-step'
export interface LogEvent {
  readonly seq: number
  readonly type: string
  readonly time: number
  readonly data: Record<string, unknown>
}
interface Splice {
  readonly target: Target
  readonly start: number
  readonly removedCount?: number
  readonly inserted: HostUserMessage[]
  readonly outcome?: 'canceled'
}

/**
 * One session's log: the persisted prefix (its file on disk) and, after it,
 * what the process that has it live appended and rc.8 has not written yet.
 */
export class SessionLog {
  readonly id: string
  /** In log order: `events[0, persisted)` on disk, the rest only in the writer's memory. */
  readonly events: LogEvent[] = []
  /** How many of {@link events} are on disk. */
  persisted = 0
  /** The simulated process whose live agent appends to it (its unpersisted tail dies with it). */
  writer: object | undefined
  private readonly users = new Set<string>()
  private readonly broken: string[]
  constructor(id: string, broken: string[]) {
    this.id = id
    this.broken = broken
  }

  /** Events appended and not yet on disk. */
  get unpersisted(): number {
    return this.events.length - this.persisted
  }

  /** A write of rc.8's persistence: the first `upTo` events (all by default) are on disk. */
  persist(upTo = this.events.length): void {
    this.persisted = Math.max(this.persisted, Math.min(upTo, this.events.length))
  }

  /**
   * Its writer was SIGKILLed: what was not on disk is gone.
   * @returns the ids of the `user/message`s lost with it.
   */
  lose(): string[] {
    const lost = this.events.splice(this.persisted).filter(event => event.type === 'user/message').map(event => event.data.id as string)
    for (const id of lost) this.users.delete(id)
    this.writer = undefined
    return lost
  }

  append(type: string, data: Record<string, unknown>): void {
    if (type === 'user/message') {
      const id = data.id as string
      if (this.users.has(id)) this.broken.push(`ONE MESSAGE STATE: ${id} appears twice as a user/message in ${this.id}`)
      this.users.add(id)
    }
    this.events.push({ seq: this.events.length + 1, type, time: Date.now(), data })
  }

  /** Index (0-based) of `id`'s user/message, or -1. */
  userIndex(id: string): number {
    return this.events.findIndex(event => event.type === 'user/message' && event.data.id === id)
  }
}

/** rc.8's `Inbox`, reduced: two lists, replayed from the log, every mutation one durable splice. */
export class SimInbox {
  private readonly lists: Record<Target, HostUserMessage[]> = { 'next-turn': [], 'next-step': [] }
  private readonly log: SessionLog
  private readonly op: () => void
  constructor(log: SessionLog, op: () => void) {
    this.log = log
    this.op = op
    for (const event of log.events) {
      if (event.type !== 'agent/inbox/spliced') continue
      const splice = event.data as unknown as Splice
      this.lists[splice.target].splice(splice.start, splice.removedCount ?? 0, ...splice.inserted)
    }
  }

  get nextTurn(): readonly HostUserMessage[] {
    return this.lists['next-turn']
  }

  get nextStep(): readonly HostUserMessage[] {
    return this.lists['next-step']
  }

  get hasPending(): boolean {
    return this.nextTurn.length > 0 || this.nextStep.length > 0
  }

  /** `Inbox.splice`: a removal is a cancellation. */
  splice(target: Target, start: number, deleteCount: number, inserted: HostUserMessage[]): HostUserMessage[] {
    return this.mutate(target, start, deleteCount, inserted, true)
  }

  /** `Inbox.claim`: every next-step item, plus one queued turn; pure deletions. */
  claim(target: Target): HostUserMessage[] {
    const claimed = this.mutate('next-step', 0, this.nextStep.length, [], false)
    if (target === 'next-turn') claimed.push(...this.mutate('next-turn', 0, 1, [], false))
    return claimed
  }

  /** `Inbox.clear`: next-step first. */
  clear(): void {
    this.splice('next-step', 0, this.nextStep.length, [])
    this.splice('next-turn', 0, this.nextTurn.length, [])
  }

  private mutate(target: Target, start: number, deleteCount: number, inserted: HostUserMessage[], discard: boolean): HostUserMessage[] {
    const list = this.lists[target]
    const at = Math.min(Math.max(start, 0), list.length)
    const count = Math.min(Math.max(deleteCount, 0), list.length - at)
    if (count === 0 && inserted.length === 0) return []
    const pending = new Set([...this.nextTurn, ...this.nextStep].map(message => message.id))
    for (const message of inserted) if (pending.has(message.id)) throw new Error(`message "${message.id}" is already pending`)
    this.op()
    const splice: Splice = { target, start: at, ...(count === 0 ? {} : { removedCount: count }), inserted, ...(discard && count > 0 ? { outcome: 'canceled' as const } : {}) }
    this.log.append('agent/inbox/spliced', splice as unknown as Record<string, unknown>)
    return list.splice(at, count, ...inserted)
  }
}

/** Where a running driver is: before its turn, claimed (the gap), or after a step. */
type Stage = 'start' | 'claimed' | 'stepped'

/** rc.8's `ReactLoopAgent`, reduced to its inbox, its driver and its log. */
export class SimAgent implements HostAgent {
  readonly id: string
  readonly session: { readonly id: string, readonly header: unknown, readonly events: readonly unknown[] }
  readonly inbox: SimInbox
  private driver: { stage: Stage, claimed: HostUserMessage[], turn: number } | undefined
  private lastTurn = 0
  /** Log length when a failed turn parked the inbox (rc.8 wakes no driver after it), until the next wake. */
  parkedAt: number | undefined
  private disposed = false

  private readonly log: SessionLog
  private readonly op: () => void
  private readonly note: (text: string) => void

  /** Resume: close a cut-off turn, then replay the inbox. */
  constructor(log: SessionLog, op: () => void, note: (text: string) => void) {
    this.log = log
    this.op = op
    this.note = note
    this.id = log.id
    this.session = { id: log.id, header: { id: log.id }, events: log.events }
    let open: number | undefined
    let step = false
    for (const event of log.events) {
      if (event.type === 'turn/start') open = this.lastTurn = event.data.turn as number
      else if (event.type === 'turn/end') open = undefined
      if (event.type === 'step/start') step = true
      else if (event.type === 'step/end' || event.type === 'turn/end') step = false
    }
    if (open !== undefined) {
      if (step) this.append('step/end', { turn: open })
      this.append('turn/end', { turn: open, reason: { kind: 'interrupted' } })
    }
    this.inbox = new SimInbox(log, op)
    note(`  resumed ${log.id}: inbox ${[...this.inbox.nextStep, ...this.inbox.nextTurn].map(message => message.id).join(', ') || 'empty'}`)
  }

  get status(): 'idle' | 'running' {
    return this.driver === undefined ? 'idle' : 'running'
  }

  followup(message: HostUserMessage): void {
    this.send(message, 'next-turn')
  }

  steer(message: HostUserMessage): void {
    this.send(message, 'next-step')
  }

  async whenIdle(): Promise<void> {}

  /** Wake the driver (`ReactLoopAgent.wakeDriver`): status is `running` at once. */
  wake(): void {
    if (this.driver === undefined && !this.disposed) this.driver = { stage: 'start', claimed: [], turn: this.lastTurn }
    this.parkedAt = undefined
  }

  /** One step of the driver; @returns whether it did something. */
  step(): boolean {
    const driver = this.driver
    if (driver === undefined) return false
    if (driver.stage === 'start') {
      driver.turn = ++this.lastTurn
      this.append('turn/start', { turn: driver.turn })
      driver.claimed = this.inbox.claim('next-turn')
      this.note(`  turn ${driver.turn} claims ${driver.claimed.map(message => message.id).join(', ') || 'nothing'}`)
      if (driver.claimed.length > 0) driver.stage = 'claimed'
      else this.endTurn('completed')
    } else if (driver.stage === 'claimed') {
      this.append('step/start', { turn: driver.turn })
      for (const message of driver.claimed) this.append('user/message', message as unknown as Record<string, unknown>)
      this.append('step/end', { turn: driver.turn })
      driver.stage = 'stepped'
    } else if (this.inbox.nextStep.length > 0) {
      driver.claimed = this.inbox.claim('next-step')
      this.note(`  step claims ${driver.claimed.map(message => message.id).join(', ')}`)
      driver.stage = 'claimed'
    } else {
      this.endTurn('completed')
    }
    return true
  }

  /** `Agent.cancel`: pending input cancelled durably, a running turn aborted. */
  cancel(): void {
    this.inbox.clear()
    const driver = this.driver
    if (driver !== undefined && driver.stage !== 'start') this.append('turn/end', { turn: driver.turn, reason: { kind: 'aborted' } })
    this.driver = undefined
  }

  dispose(): void {
    this.cancel()
    this.disposed = true
  }

  /**
   * The turn fails (a model error, a rejected step): it ends without running
   * what it claimed, and the inbox keeps the rest (rc.8 `turn`: `turn/end`
   * `error`; the driver stops until the next wake).
   */
  fail(): boolean {
    const driver = this.driver
    if (driver === undefined || driver.stage === 'start') return false
    this.append('turn/end', { turn: driver.turn, reason: { kind: 'error' } })
    this.driver = undefined
    this.parkedAt = this.log.events.length
    return true
  }

  private endTurn(kind: string): void {
    this.append('turn/end', { turn: this.driver!.turn, reason: { kind } })
    if (this.inbox.hasPending) this.driver = { stage: 'start', claimed: [], turn: this.lastTurn }
    else this.driver = undefined
  }

  private send(message: HostUserMessage, target: Target): void {
    if (this.disposed) throw new Error('agent disposed')
    this.inbox.splice(target, Infinity, 0, [message])
    this.wake()
  }

  private append(type: string, data: Record<string, unknown>): void {
    this.op()
    this.log.append(type, data)
  }
}

/** A session log and its rc.8-shaped agents, for the unit tests of the owner's side (no crash points). */
export function rc8Session(id: string): { readonly log: SessionLog, readonly broken: string[], resume(): SimAgent } {
  const broken: string[] = []
  const log = new SessionLog(id, broken)
  return { log, broken, resume: () => new SimAgent(log, () => undefined, () => undefined) }
}

/** Fresh delivery bookkeeping for a session that went live with `events` in its log (`Holdings.track`). */
export function heldSession(events: readonly unknown[], target = 'session'): HeldSession {
  return { target, awaiting: new Set(), found: new Map(), scanned: events.length }
}
