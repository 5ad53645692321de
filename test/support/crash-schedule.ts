/**
 * A seeded, replayable crash schedule of the home store protocol
 * (docs/architecture.md §8), for test/unit/home-crash.test.ts.
 *
 * Several simulated `dsh` processes share ONE real SQLite store file (made by
 * `openHomeStore`), each a `SqliteHomeStore` on a connection of its own
 * (pooled: a dead process's connection serves a later process) with the
 * liveness probe "not in the shared `dead` set". Each session has one
 * simulated log with rc.8's
 * semantics (`@deepseek-ai/dsh-agent@0.1.0-rc.8` lib/index.js `Inbox`,
 * `@deepseek-ai/dsh-agent-loop@0.1.0-rc.8` lib/index.js `ReactLoopAgent`):
 * - `followup` / `steer` append an `agent/inbox/spliced` insertion
 *   (next-turn / next-step) and wake the driver; an id already pending is
 *   refused, as `Inbox.validate` refuses it;
 * - a turn claims next-step input plus one queued turn with a pure-deletion
 *   splice and only later, in a separate step, appends each claimed
 *   message's `user/message` (the `await` between `preStep`'s claim and the
 *   append is where a SIGKILL loses it);
 * - a cancel or a disposal cancels every pending insertion (a splice with
 *   `outcome: 'canceled'`, next-step first) and ends a running turn aborted;
 * - a turn that fails ends `error` and parks the rest of the inbox until the
 *   next wake (`ReactLoopAgent.kick` starts no driver after it);
 * - a SIGKILL leaves the log as it is ON DISK; the next resume closes a
 *   cut-off turn (`@deepseek-ai/dsh-session@0.1.0-rc.8` `interruptedTurnClosers`)
 *   and replays every splice, so an insertion neither claimed nor cancelled
 *   is pending again, and runs only once something wakes the agent.
 *
 * Each log is an in-memory part over a persisted prefix, as rc.8 writes a
 * live session (`@deepseek-ai/dsh-session-persistence@0.1.0-rc.8`
 * lib/index.js `SessionWriteBehind`): an append goes to memory; a
 * background write (within `DEFAULT_WRITE_BATCH_MAX_DELAY_MS`, 200 ms)
 * puts a prefix of what is pending on disk; `sessions.flush` resolves once
 * everything appended so far is on disk (it drains to quiescence), and so
 * does a disposal (`retireCore`) or a clean exit (the write path's
 * disposal effect) — after the `agent/disposed` listeners ran
 * (`@deepseek-ai/dsh-agent-loop@0.1.0-rc.8` lib/index.js: `detachAgent`,
 * then `detachSession`). A SIGKILL loses the unpersisted tail, and the next
 * holder resumes from the prefix.
 *
 * Each process runs the protocol as `home/runtime.ts`, `home/holding.ts` and
 * `home/guard.ts` do, with the package's own code for every decision:
 * `acquire` → wake (resume, `markLive`, `reofferUnanswered`) → drain
 * (`claim`, `admitClaimed`) → `settle` (what joined the log is found) →
 * the awaited `sessions.flush` → `recordFound` → `release` / `leave`; a
 * plugin reload starts a new runtime in a living process
 * (`HomeRuntime.start`: `unclaimAll`). A crash can hit between any two
 * steps and inside a step before any store transition, log append or write
 * to disk (SIGKILL: no cleanup).
 *
 * After every step: ONE HOLDER (at most one living process thinks it holds
 * a session, and the store, read through a separate connection, agrees) and
 * ONE MESSAGE STATE (no id twice as a `user/message`; `recorded` at seq N
 * means in the log ON DISK at seq N, not only in a process's memory;
 * nothing leaves the store before it is recorded).
 * Messages held for their target's user (docs/tools.md#inbound-messages)
 * take part too: a `hold` step keeps one (`holdForApproval`), a `decide`
 * step delivers or refuses one, or expires what is due (`decide`,
 * `expireApprovals`), from any process. After every step: ONE DECISION (a
 * held message is decided at most once, and the store's state is the one
 * the deciding process was told) and NOTHING EARLY (a message not
 * delivered has no `messages` row and is in no log); a delivered one joins
 * the posted messages, so DELIVERY and ORDER below cover it.
 * Then a calm phase (no posts, no crashes) checks LIVENESS: nothing waits
 * for a session live in a living process. Last, every process ends and a
 * recovery process holds every session and drains it: each message is in
 * its target's log exactly once (DELIVERY), in posting order per sender,
 * target and mode (ORDER).
 *
 * @module test/support/crash-schedule
 */

import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { mulberry32 } from './prng.js'
import { admitClaimed, BUSY_TIMEOUT_MS, deliveryState, openHomeStore, recordFound, reofferUnanswered, RETAIN_MS, settle, SqliteHomeStore, storePaths, type HeldSession, type HomeStore, type HostAgent, type HostUserMessage, type ProcessTag, type StoredMessage } from '../../src/testing.js'

export { mulberry32 }

/**
 * The protocol under test, or a variant changed on purpose:
 * - `no-log-check`: a claimed message is admitted without asking the log
 *   where it stands (broken: a re-claimed message is delivered twice);
 * - `blind-acquire`: taking a session judges every other holder dead
 *   (broken: two living holders);
 * - `retake-own-claims`: a claim also re-takes this process's own claims,
 *   in flight here (harmless as long as the log check sees them in the
 *   inbox or in the running turn);
 * - `record-before-flush`: what `settle` found is recorded at once, before
 *   the log is on disk, as the holder did before `recordFound` waited for
 *   `sessions.flush` (broken: a SIGKILL loses a message the store says is
 *   recorded);
 * - `record-at-untrack`: `untrack` records what was found, on the belief
 *   that the disposal has written the log (broken: rc.8 starts that drain
 *   only after the `agent/disposed` listeners ran);
 * - `hold-posts`: holding a message also posts it (broken: a held message
 *   reaches its target before its user delivered it).
 */
export type Variant = 'real' | 'no-log-check' | 'blind-acquire' | 'retake-own-claims' | 'record-before-flush' | 'record-at-untrack' | 'hold-posts'

/**
 * What `recorded` at seq N is checked against: the log on disk (the
 * invariant), or only the log in the writer's memory (`in-memory`: weaker,
 * so that a self-check can show what a broken protocol loses, not only that
 * it recorded early).
 */
export type RecordedMeans = 'persisted' | 'in-memory'

/** A SIGKILL: thrown from inside a step; the process gets no cleanup. */
class Crash extends Error {}

/** A broken invariant. */
export class InvariantBroken extends Error {}

type Target = 'next-turn' | 'next-step'
interface LogEvent {
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
class SimInbox {
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

/**
 * `Holdings.persistFound` under way for one session (`home/per-session.ts`
 * `PerSession.coalesce`): the batch its awaited `sessions.flush` records once
 * it resolves, and whether it was asked for again meanwhile.
 */
interface Flush {
  batch: Set<string> | undefined
  /** The completed turn end found before the flush started (recorded as answered with the batch). */
  answeredAt?: number | undefined
  again: boolean
}
interface LiveHold {
  readonly phase: 'live'
  readonly agent: SimAgent
  readonly held: HeldSession
  readonly flush: Flush
}
/**
 * A flush still awaited after its session was let go here or its runtime
 * replaced (a plugin reload): `Holdings.persistFound` holds on to the
 * bookkeeping and the store it started with, and records through them once
 * it resolves (a record the store refuses unless this process claims the
 * message again).
 */
interface Outliving {
  readonly sessionId: string
  readonly agent: SimAgent
  readonly store: HomeStore
  readonly held: HeldSession
  readonly batch: Set<string>
  readonly answeredAt: number | undefined
  /** Asked for again meanwhile (a reload): the old runtime runs it once more, for what it had found since. */
  readonly again: boolean
}
type Hold = { readonly phase: 'waking' } | LiveHold

/** One posted message, as its sender knows it. */
interface Posted {
  readonly id: string
  readonly sender: string
  readonly target: string
  readonly mode: 'queue' | 'steer'
}

/** One message held for its target's user, and how it was decided (as the deciding process was told). */
interface HeldMessage extends Posted {
  decided?: 'delivered' | 'refused' | 'expired'
}

/** Shared by every schedule of one run: one store file, its connections, pids never reused. */
export interface CrashWorld {
  readonly home: string
  readonly dead: Set<string>
  nextPid: number
  readonly checker: Checker
  /** Connections not in use by a living simulated process. */
  readonly idle: DatabaseSync[]
  /** How often each path of interest was taken, over every schedule (the test asserts the run was not vacuous). */
  readonly covered: Map<string, number>
  /** Close every connection (after the last schedule: each living process's connection is back in the pool). */
  close(): void
}

/** Reads the store through its own connection, the way another process sees it. */
class Checker {
  private readonly holders: StatementSync
  private readonly messages: StatementSync
  private readonly version: StatementSync
  private readonly top: StatementSync
  private last = -1
  constructor(db: DatabaseSync) {
    this.version = db.prepare('PRAGMA data_version')
    this.top = db.prepare('SELECT MAX(n) AS n FROM messages')
    this.holders = db.prepare('SELECT session_id, pid, start, state FROM holders WHERE session_id IN (?, ?, ?)')
    this.messages = db.prepare('SELECT n, message_id, target, state, seq, answered_seq, reason FROM messages WHERE n > ?')
    this.approvals = db.prepare('SELECT message_id, state FROM approvals WHERE message_id LIKE ?')
    this.inbound = db.prepare('SELECT mode FROM inbound WHERE session_id = ?')
    this.anyHolders = db.prepare('SELECT session_id, pid, start, state FROM holders WHERE session_id IN (SELECT value FROM json_each(?))')
    this.watches = db.prepare('SELECT message_id, target, state, turn_end_seq, outcome FROM watches WHERE message_id LIKE ?')
  }

  private readonly anyHolders: StatementSync
  private readonly watches: StatementSync

  /** The holder rows of any number of sessions. */
  holdersOf(sessions: readonly string[]): Array<{ session_id: string, pid: number | null, start: number | null, state: string }> {
    return this.anyHolders.all(JSON.stringify(sessions)) as never
  }

  /** Watches whose watched message id starts with `prefix` (a schedule's own). */
  watchRows(prefix: string): Array<{ message_id: string, target: string, state: string, turn_end_seq: number | null, outcome: string | null }> {
    return this.watches.all(`${prefix}%`) as never
  }

  private readonly inbound: StatementSync

  /** A session's own inbound choice, as the store has it now. */
  inboundOf(sessionId: string): string | undefined {
    return (this.inbound.get(sessionId) as { mode: string } | undefined)?.mode
  }

  private readonly approvals: StatementSync

  /** Held messages whose id starts with `prefix` (a schedule's own), and their states. */
  approvalRows(prefix: string): Array<{ message_id: string, state: string }> {
    return this.approvals.all(`${prefix}%`) as never
  }

  /** Whether another connection committed since the last call (`PRAGMA data_version`). */
  changed(): boolean {
    const { data_version: version } = this.version.get() as { data_version: number }
    const changed = version !== this.last
    this.last = version
    return changed
  }

  holderRows(sessions: readonly string[]): Array<{ session_id: string, pid: number | null, start: number | null, state: string }> {
    return this.holders.all(sessions[0]!, sessions[1] ?? '', sessions[2] ?? '') as never
  }

  /** Messages posted after `after` (a schedule's own: those of earlier schedules are recorded and swept). */
  messageRows(after: number): Array<{ n: number, message_id: string, target: string, state: string, seq: number | null, answered_seq: number | null, reason: string | null }> {
    return this.messages.all(after) as never
  }

  /** The last posting order used so far. */
  lastOrder(): number {
    return (this.top.get() as { n: number | null }).n ?? 0
  }
}

/**
 * A connection as `home/store-open.ts` configures it (the file is already
 * WAL), whose statements are prepared once per SQL text: the store prepares
 * on every call, and preparing is most of a transition's cost here. A
 * statement is reset before each run, so reusing it changes nothing else.
 */
export function connection(file: string): DatabaseSync {
  const sqlite = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite')
  const db = new sqlite.DatabaseSync(file)
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  db.exec('PRAGMA synchronous = FULL')
  const prepared = new Map<string, StatementSync>()
  const prepare = db.prepare.bind(db)
  db.prepare = (sql: string) => {
    let statement = prepared.get(sql)
    if (statement === undefined) prepared.set(sql, statement = prepare(sql))
    return statement
  }
  return db
}

/**
 * Open the world of a run on `home`: the store file made by `openHomeStore`,
 * then a pool of connections, each used by one living simulated process at a
 * time (a dead process's connection is handed to a later one: between two
 * steps no transaction is open, as a SIGKILLed process's locks are gone).
 */
export function openCrashWorld(home: string, covered = new Map<string, number>()): CrashWorld {
  openHomeStore(home, { pid: 1, start: 1 }, () => false).close()
  const { file } = storePaths(home)
  const checker = connection(file)
  const idle: DatabaseSync[] = []
  const close = (): void => {
    for (const db of [checker, ...idle]) db.close()
    idle.length = 0
  }
  return { home, dead: new Set(), nextPid: 10_000, checker: new Checker(checker), idle, covered, close }
}

const key = (tag: ProcessTag): string => `${tag.pid}.${tag.start}`

/** Every method of `store` first passes the process's crash point. */
function crashable(store: HomeStore, op: () => void, variant: Variant): HomeStore {
  return new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown
      if (typeof value !== 'function') return value
      if (name === 'claim' && variant === 'retake-own-claims') {
        // Changed on purpose: also re-takes this process's own claims (in flight here).
        return (sessionId: string) => {
          op()
          target.unclaimAll()
          return target.claim(sessionId)
        }
      }
      return (...args: unknown[]) => {
        op()
        return (value as (...rest: unknown[]) => unknown).apply(target, args)
      }
    },
  })
}

/** Admission without the log check: broken on purpose. */
function admitBlindly(store: HomeStore, agent: HostAgent, claimed: readonly StoredMessage[]): string[] {
  for (const message of claimed) {
    const delivered: HostUserMessage = { id: message.messageId, role: 'user', content: [{ type: 'text', text: message.text }], source: { kind: 'plugin' } }
    try {
      if (message.mode === 'queue') agent.followup(delivered)
      else agent.steer(delivered)
    } catch {
      store.unclaim(message.messageId)
    }
  }
  return claimed.map(message => message.messageId)
}

/** One simulated `dsh` process: a connection to the store, its live agents, the runtime's bookkeeping. */
class SimProcess {
  readonly tag: ProcessTag
  store!: HomeStore
  private db: DatabaseSync | undefined
  /** `blind-acquire`: inside an acquire. */
  private taking = false
  readonly holds = new Map<string, Hold>()
  /** Flushes awaited for sessions let go here or held by a replaced runtime. */
  readonly outliving: Outliving[] = []
  /** Operations left before a SIGKILL armed for the current step. */
  budget: number | undefined
  /** Set once the armed SIGKILL hit: every later operation of the step fails too (a catch in the code under test cannot go on). */
  killed = false
  readonly op = (): void => {
    if (this.killed || (this.budget !== undefined && this.budget-- <= 0)) {
      this.killed = true
      throw new Crash('SIGKILL')
    }
  }

  private readonly run: Schedule
  constructor(run: Schedule, pid: number) {
    this.run = run
    this.tag = { pid, start: 1 }
    this.connect()
  }

  /** A connection of its own (from the pool), and a store over it judging liveness by the shared `dead` set. */
  connect(): void {
    const world = this.run.world
    const { file } = storePaths(world.home)
    const db = world.idle.pop() ?? connection(file)
    this.db = db
    const blind = this.run.variant === 'blind-acquire'
    const store = new SqliteHomeStore(db, file, this.tag, tag => !(blind && this.taking) && !world.dead.has(key(tag)))
    this.store = crashable(store, this.op, this.run.variant)
    if (blind) {
      const acquire = this.store.acquire.bind(this.store)
      this.store.acquire = (sessionId: string) => {
        this.taking = true
        try {
          return acquire(sessionId)
        } finally {
          this.taking = false
        }
      }
    }
  }

  /** The process is gone (or a new runtime replaces the store): its connection goes back to the pool. */
  disconnect(): void {
    if (this.db !== undefined) this.run.world.idle.push(this.db)
    this.db = undefined
  }

  /**
   * A plugin reload: a new runtime, on a connection of its own, with the
   * same pid and start time and its agents still live. The old runtime's
   * flushes still resolve, and record through its store.
   */
  reload(): void {
    for (const [sessionId, hold] of this.holds) if (hold.phase === 'live') this.outlive(sessionId, hold)
    this.disconnect()
    this.connect()
    this.start()
  }

  private outlive(sessionId: string, hold: LiveHold): void {
    const { batch, again } = hold.flush
    if (batch !== undefined) this.outliving.push({ sessionId, agent: hold.agent, store: this.store, held: hold.held, batch, answeredAt: hold.flush.answeredAt, again })
  }

  /**
   * The next flush that outlived its hold resolves: if the agent is still
   * live here its log is now on disk (a disposed one's was drained), then
   * the old bookkeeping records its batch through the old store (and, asked
   * again, what it found since, after the next flush).
   * @returns whether there was one.
   */
  resolveOutliving(): boolean {
    const flight = this.outliving.shift()
    if (flight === undefined) return false
    this.op()
    if (this.live(flight.sessionId)?.agent === flight.agent) this.run.logs.get(flight.sessionId)!.persist()
    if (recordFound(flight.store, flight.held, flight.batch, flight.answeredAt)) this.run.cover('recorded by a flush that outlived its hold')
    if (flight.again) recordFound(flight.store, flight.held, undefined, flight.held.answeredAt)
    return true
  }

  /**
   * `HomeRuntime.start`: join, sweep, let go of rows not live here, return
   * claims in flight, hold what is live. A new runtime's bookkeeping starts
   * empty: what the old one had found goes back to `pending` with its claim.
   */
  start(): void {
    this.store.join(false)
    this.store.sweep(Date.now(), RETAIN_MS)
    for (const sessionId of this.store.heldHere()) if (this.live(sessionId) === undefined) this.store.release(sessionId, 'released')
    this.store.unclaimAll()
    for (const [sessionId, hold] of [...this.holds]) {
      if (hold.phase !== 'live') continue
      this.holds.delete(sessionId)
      this.track(hold.agent)
    }
  }

  live(sessionId: string): LiveHold | undefined {
    const hold = this.holds.get(sessionId)
    return hold?.phase === 'live' ? hold : undefined
  }

  /** Hold `agent` live here (the store already agreed). */
  hold(agent: SimAgent): LiveHold {
    const hold: LiveHold = { phase: 'live', agent, held: heldSession(agent.session.events, agent.id), flush: { batch: undefined, again: false } }
    this.holds.set(agent.id, hold)
    return hold
  }

  /** `Holdings.track`. */
  track(agent: SimAgent): boolean {
    const held = this.store.markLive(agent.id)
    if (!held.ok) return false
    this.hold(agent)
    return true
  }

  /** `Holdings.drainNow`. */
  drain(sessionId: string): number {
    const hold = this.live(sessionId)
    if (hold === undefined) return 0
    const claimed = this.store.claim(sessionId)
    if (claimed.length === 0) return 0
    const states = claimed.map(message => deliveryState(hold.agent.session.events, message.messageId).kind)
    for (const state of states) this.run.cover(`claimed, found ${state}`)
    this.run.note(`  claimed ${claimed.map((message, index) => `${message.messageId} (${states[index]})`).join(', ')}`)
    // admitClaimed logs only when an admission throws; after the armed SIGKILL that is the crash itself.
    const logged = (message: string): void => {
      if (!this.killed) this.run.fail(`admitClaimed logged: ${message}`)
    }
    const admitted = this.run.variant === 'no-log-check' ? admitBlindly(this.store, hold.agent, claimed) : admitClaimed(this.store, hold.agent, hold.held, claimed, logged)
    for (const messageId of admitted) hold.held.awaiting.add(messageId)
    settle(this.store, hold.agent, hold.held)
    this.persistFound(hold)
    return claimed.length
  }

  /** `Holdings.onSessionEvent` (rc.8 `session/event`, or the tick's scan). */
  settle(sessionId: string): void {
    const hold = this.live(sessionId)
    if (hold === undefined) return
    settle(this.store, hold.agent, hold.held)
    this.persistFound(hold)
  }

  /**
   * `Holdings.persistFound`: one awaited `sessions.flush` at a time, asked
   * for again while one is under way; `record-before-flush` records at once.
   */
  private persistFound(hold: LiveHold): void {
    if (hold.held.found.size === 0 && hold.held.answeredAt === undefined) return
    if (this.run.variant === 'record-before-flush') {
      recordFound(this.store, hold.held, undefined, hold.held.answeredAt)
      return
    }
    if (hold.flush.batch !== undefined) hold.flush.again = true
    else this.startFlush(hold)
  }

  private startFlush(hold: LiveHold): void {
    hold.flush.again = false
    const pending = hold.held.found.size > 0 || hold.held.answeredAt !== undefined
    hold.flush.batch = pending ? new Set(hold.held.found.keys()) : undefined
    hold.flush.answeredAt = hold.held.answeredAt
    if (hold.flush.batch !== undefined) this.run.note(`  flushing ${hold.agent.id} for ${[...hold.flush.batch].join(', ')}`)
  }

  /** Every awaited flush resolves, this runtime's and those that outlived their hold (the calm, the recovery, a clean exit). @returns whether any was awaited. */
  resolveFlushes(): boolean {
    let any = false
    for (const sessionId of [...this.holds.keys()]) while (this.flushed(sessionId, true)) any = true
    while (this.resolveOutliving()) any = true
    return any
  }

  /** Whether a `sessions.flush` of `sessionId` is awaited. */
  flushing(sessionId: string): boolean {
    return this.live(sessionId)?.flush.batch !== undefined
  }

  /**
   * The awaited `sessions.flush` of `sessionId` settles. Resolved: every
   * event appended so far is on disk (rc.8 drains to quiescence), then its
   * batch is recorded, and the job runs once more if it was asked for
   * meanwhile. Rejected: nothing is recorded; what was found waits for the
   * next tick.
   * @returns whether one was awaited.
   */
  flushed(sessionId: string, ok: boolean): boolean {
    const hold = this.live(sessionId)
    const batch = hold?.flush.batch
    if (hold === undefined || batch === undefined) return false
    this.op()
    if (!ok) {
      hold.flush.batch = undefined
      hold.flush.again = false
      return true
    }
    this.run.logs.get(sessionId)!.persist()
    recordFound(this.store, hold.held, batch, hold.flush.answeredAt)
    if (hold.flush.again) this.startFlush(hold)
    else hold.flush.batch = undefined
    return true
  }

  /**
   * `Holdings.untrack`: settle (when the host still lists the agent), let
   * the session go; what was found and not yet recorded returns to pending
   * with its claim (its log is not on disk yet: rc.8's drain starts after
   * `agent/disposed`).
   */
  untrack(sessionId: string, settleFirst: boolean): void {
    const hold = this.holds.get(sessionId)
    if (hold?.phase === 'live') {
      if (settleFirst) settle(this.store, hold.agent, hold.held)
      if (hold.held.found.size > 0) this.run.cover('found at untrack')
      if (this.run.variant === 'record-at-untrack') recordFound(this.store, hold.held)
      this.outlive(sessionId, { ...hold, flush: { ...hold.flush, again: false } })
    }
    this.holds.delete(sessionId)
    this.store.release(sessionId, 'released')
  }

  /** The logs this process writes (all, or `sessionId`'s) go to disk: rc.8's disposal drains them (`retireCore`, the write path's disposal effect). */
  drainLogs(sessionId?: string): void {
    for (const log of this.run.logs.values()) {
      if (log.writer !== this || log.unpersisted === 0 || (sessionId !== undefined && log.id !== sessionId)) continue
      this.op()
      log.persist()
    }
  }

  /** The agent is disposed (rc.8 cancels its inbox), `agent/disposed` runs `untrack`, then rc.8 writes the log to disk. */
  dispose(sessionId: string, settleFirst: boolean): void {
    this.live(sessionId)?.agent.dispose()
    this.untrack(sessionId, settleFirst)
    this.drainLogs(sessionId)
  }
}

type Action = 'spawn' | 'post' | 'hold' | 'decide' | 'acquire' | 'open' | 'wake' | 'drain' | 'settle' | 'flush' | 'write' | 'turn' | 'error' | 'cancel' | 'release' | 'exit' | 'kill' | 'reload' | 'sweep'

/** How often each step is drawn; a drawn step that does not apply draws again. */
const WEIGHTS: ReadonlyArray<readonly [Action, number]> = [
  ['spawn', 4], ['post', 10], ['acquire', 6], ['open', 3], ['wake', 12], ['drain', 12], ['settle', 8], ['flush', 8], ['write', 4],
  ['turn', 30], ['error', 1], ['cancel', 1.5], ['release', 2.5], ['exit', 1.2], ['kill', 2], ['reload', 0.8], ['sweep', 0.5],
  ['hold', 3], ['decide', 3],
]
/** The variants broken on purpose draw without the held-message steps (listed last), so their schedules stay as they were. */
const WITHOUT_HOLDS = WEIGHTS.filter(([action]) => action !== 'hold' && action !== 'decide')
const TOTAL_WEIGHT = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0)
const TOTAL_WITHOUT_HOLDS = WITHOUT_HOLDS.reduce((sum, [, weight]) => sum + weight, 0)

/** One schedule: its sessions, senders, logs and processes on the shared store. */
class Schedule {
  readonly broken: string[] = []
  readonly trace: string[] = []
  readonly logs = new Map<string, SessionLog>()
  readonly sessions: string[]
  readonly senders: string[]
  readonly posted: Posted[] = []
  readonly held: HeldMessage[] = []
  readonly processes: SimProcess[] = []
  private readonly seen = new Map<string, { state: string, seq: number | null }>()
  private readonly swept = new Set<string>()
  /** Messages the store says a completed turn answered whose `turn/end` died with its writer's memory (counted once each). */
  private readonly falselyAnswered = new Set<string>()
  private readonly rng: () => number
  private readonly maxProcesses: number
  crashes = 0
  /** The store's rows of this schedule as last read. */
  private rows: { holders: ReturnType<Checker['holderRows']>, messages: ReturnType<Checker['messageRows']>, approvals: ReturnType<Checker['approvalRows']> } | undefined
  /** The action of the last step drawn. */
  last: Action = 'spawn'
  private readonly firstOrder: number

  readonly world: CrashWorld
  readonly seed: number
  readonly variant: Variant
  private readonly recordedMeans: RecordedMeans
  private readonly tracing: boolean
  constructor(world: CrashWorld, seed: number, variant: Variant, recordedMeans: RecordedMeans, tracing: boolean) {
    this.world = world
    this.seed = seed
    this.variant = variant
    this.recordedMeans = recordedMeans
    this.tracing = tracing
    this.rng = mulberry32(seed)
    const prefix = `k${seed}-${world.nextPid}`
    this.sessions = Array.from({ length: 2 + this.int(2) }, (_, index) => `${prefix}-s${index}`)
    this.senders = Array.from({ length: 2 + this.int(2) }, (_, index) => `${prefix}-from${index}`)
    this.maxProcesses = 3 + this.int(3)
    for (const sessionId of this.sessions) this.logs.set(sessionId, new SessionLog(sessionId, this.broken))
    this.firstOrder = world.checker.lastOrder()
  }

  int(n: number): number {
    return Math.floor(this.rng() * n)
  }

  pick<T>(values: readonly T[]): T | undefined {
    return values.length === 0 ? undefined : values[this.int(values.length)]
  }

  fail(message: string): never {
    throw new InvariantBroken(message)
  }

  cover(what: string): void {
    this.world.covered.set(what, (this.world.covered.get(what) ?? 0) + 1)
  }

  note(text: string): void {
    if (this.tracing) this.trace.push(text)
  }

  living(): SimProcess[] {
    return this.processes.filter(process => !this.world.dead.has(key(process.tag)))
  }

  spawn(): SimProcess {
    const process = new SimProcess(this, this.world.nextPid++)
    this.processes.push(process)
    this.note(`spawn p${process.tag.pid}`)
    process.start()
    return process
  }

  /** SIGKILL: no cleanup; the connection is abandoned, and what its logs had not written is gone. */
  kill(process: SimProcess): void {
    this.world.dead.add(key(process.tag))
    if ([...process.holds.values()].some(hold => hold.phase === 'live' && hold.held.found.size > 0)) this.cover('SIGKILL lost found messages')
    for (const log of this.logs.values()) {
      if (log.writer !== process) continue
      if (log.unpersisted > 0) this.cover('SIGKILL lost a tail')
      const lost = log.lose()
      if (lost.length > 0) {
        this.cover('SIGKILL lost a user/message')
        this.note(`  lost with p${process.tag.pid}'s memory: ${lost.join(', ')} (${log.id} on disk up to seq ${log.persisted})`)
      }
    }
    process.holds.clear()
    process.outliving.length = 0
    process.disconnect()
    this.crashes++
  }

  /**
   * A clean exit: rc.8 disposes each agent (cancelling its inbox; then
   * `untrack`, unless the runtime was gone already), its persistence writes
   * every log to disk and the flushes awaited meanwhile resolve (and
   * record), then the exit listener leaves.
   */
  exit(process: SimProcess): void {
    for (const sessionId of [...process.holds.keys()]) {
      process.live(sessionId)?.agent.dispose()
      if (this.rng() < 0.5) process.untrack(sessionId, this.rng() < 0.5)
    }
    process.drainLogs()
    process.resolveFlushes()
    process.store.leave('exited')
    this.world.dead.add(key(process.tag))
    process.holds.clear()
    process.disconnect()
  }

  /** Run `work` as a step of `process`, with a SIGKILL armed inside it sometimes. */
  as(process: SimProcess, what: string, work: () => void): void {
    this.note(`p${process.tag.pid} ${what}`)
    process.budget = this.rng() < 0.04 ? this.int(4) : undefined
    try {
      work()
    } catch (error: unknown) {
      if (!(error instanceof Crash)) throw error
      process.budget = undefined
      process.killed = false
      this.note(`  SIGKILL inside p${process.tag.pid} ${what}`)
      this.cover(`SIGKILL inside ${what.split(' ')[0]}`)
      this.kill(process)
    } finally {
      process.budget = undefined
    }
  }

  /** One random step; @returns whether anything was done (else another is drawn). */
  step(): boolean {
    const living = this.living()
    if (living.length === 0) {
      this.spawn()
      return true
    }
    const process = this.pick(living)!
    const sessionId = this.pick(this.sessions)!
    const hold = process.holds.get(sessionId)
    const action = this.action()
    this.last = action
    switch (action) {
      case 'spawn':
        if (living.length >= this.maxProcesses) return false
        this.spawn()
        return true
      case 'post':
        return this.post(process)
      case 'hold':
        return this.hold(process)
      case 'decide':
        return this.decide(process)
      case 'acquire':
        return this.acquire(process, sessionId)
      case 'open':
        if (hold !== undefined) return false
        // A user opens it here (rc.8 `agent/created`, no wake through this package): `HomeRuntime.track`, then its drain.
        // Modelled only when the store lets it be held (docs/architecture.md §8: the harness's own resumes take no hold).
        this.as(process, `open ${sessionId}`, () => {
          const held = process.store.markLive(sessionId)
          if (held.ok && held.already) this.fail(`ONE HOLDER: markLive of ${sessionId} by p${process.tag.pid} says already held there`)
          if (!held.ok) return
          process.hold(this.resume(sessionId, process))
          process.drain(sessionId)
        })
        return true
      case 'kill':
        this.note(`p${process.tag.pid} SIGKILL`)
        this.kill(process)
        return true
      case 'exit':
        this.as(process, 'exit', () => this.exit(process))
        return true
      case 'reload':
        if ([...process.holds.values()].some(value => value.phase === 'waking')) return false
        // A new runtime of this process (a plugin reload): a new connection, the same pid and start time, its agents still live.
        this.as(process, 'reload', () => process.reload())
        return true
      case 'sweep':
        this.as(process, 'sweep', () => process.store.sweep(Date.now(), 0))
        return true
      default: {
        if (action === 'flush' && process.outliving.length > 0 && this.rng() < 0.5) {
          this.as(process, `flush ${process.outliving[0]!.sessionId} (awaited by a hold that is gone)`, () => process.resolveOutliving())
          return true
        }
        // A step on a held session: any living process's hold.
        const held = this.pick(living.flatMap(other => [...other.holds.keys()].map(id => [other, id] as const)))
        return held !== undefined && this.onHeld(action, held[0], held[1], held[0].holds.get(held[1]))
      }
    }
  }

  /** Draw an action by weight. */
  private action(): Action {
    const real = this.variant === 'real' || this.variant === 'hold-posts'
    let roll = this.rng() * (real ? TOTAL_WEIGHT : TOTAL_WITHOUT_HOLDS)
    for (const [action, weight] of real ? WEIGHTS : WITHOUT_HOLDS) {
      roll -= weight
      if (roll < 0) return action
    }
    return 'post'
  }

  /** A send (or a long-lived host's adoption) takes the session for a wake (`home/guard.ts` step 5). */
  private acquire(process: SimProcess, sessionId: string): boolean {
    const target = this.rng() < 0.5 ? this.pick(process.store.adoptable().filter(id => this.sessions.includes(id))) ?? sessionId : sessionId
    if (process.holds.has(target)) return false
    this.as(process, `acquire ${target}`, () => {
      const held = process.store.acquire(target)
      if (held.ok && held.already) this.fail(`ONE HOLDER: acquire of ${target} by p${process.tag.pid} says already held there, but it does not think so`)
      if (held.ok) process.holds.set(target, { phase: 'waking' })
    })
    return true
  }

  /** The session resumed in `process` from its log on disk (rc.8 closes a cut-off turn and replays the inbox). */
  private resume(sessionId: string, process: SimProcess): SimAgent {
    const log = this.logs.get(sessionId)!
    // Its last writer let it go (its disposal wrote the log) or died (the tail went with it): memory and disk agree.
    if (log.unpersisted > 0) this.fail(`the model: ${sessionId} resumed with ${log.unpersisted} events its last writer neither wrote nor lost`)
    log.writer = process
    return new SimAgent(log, process.op, text => this.note(text))
  }

  /** A step on a session `process` holds. */
  private onHeld(action: Action, process: SimProcess, sessionId: string, hold: Hold | undefined): boolean {
    if (hold === undefined) return false
    if (hold.phase === 'waking') {
      if (action !== 'wake') return false
      // `home/guard.ts` steps 6–7: the wake fails (nothing written: `wake-failed`), or the session resumes, is held live, and what a cut-off turn left unanswered is offered again.
      this.as(process, `wake ${sessionId}`, () => {
        process.holds.delete(sessionId)
        if (this.rng() < 0.12) {
          this.note('  the wake failed')
          this.cover('wake failed')
          process.store.release(sessionId, 'wake-failed')
          return
        }
        const agent = this.resume(sessionId, process)
        if (!process.track(agent)) this.fail(`ONE HOLDER: p${process.tag.pid} acquired ${sessionId} but markLive was refused`)
        if (reofferUnanswered(process.store, agent) > 0) this.cover('re-offered unanswered')
      })
      return true
    }
    const { agent } = hold
    switch (action) {
      case 'drain':
        this.as(process, `drain ${sessionId}`, () => process.drain(sessionId))
        return true
      case 'settle':
        this.as(process, `settle ${sessionId}`, () => process.settle(sessionId))
        return true
      case 'flush': {
        // The awaited `sessions.flush` settles; rarely it rejects (a backend write failed).
        if (!process.flushing(sessionId)) return false
        const ok = this.rng() >= 0.08
        this.as(process, `flush ${sessionId}${ok ? '' : ' (rejected)'}`, () => process.flushed(sessionId, ok))
        if (!ok) this.cover('flush rejected')
        return true
      }
      case 'write': {
        // A background write (rc.8's batch deadline): a prefix of what is pending reaches the disk, nothing is recorded.
        const log = this.logs.get(sessionId)!
        if (log.writer !== process || log.unpersisted === 0) return false
        const upTo = log.persisted + 1 + this.int(log.unpersisted)
        this.as(process, `write ${sessionId} up to seq ${upTo}`, () => {
          process.op()
          log.persist(upTo)
        })
        return true
      }
      case 'turn':
        if (agent.status !== 'running') return false
        this.as(process, `turn ${sessionId}`, () => {
          agent.step()
          // rc.8 emits `session/event` as it appends and the runtime settles then; here most of the time.
          if (this.rng() < 0.6) process.settle(sessionId)
        })
        return true
      case 'error':
        if (agent.status !== 'running') return false
        this.as(process, `turn ${sessionId} fails`, () => {
          if (agent.fail()) process.settle(sessionId)
        })
        return true
      case 'cancel':
        // The user cancels (Esc): rc.8 `Agent.cancel` clears the inbox and aborts the turn.
        this.as(process, `cancel ${sessionId}`, () => {
          agent.cancel()
          process.settle(sessionId)
        })
        return true
      case 'release':
        // The session is disposed here (an idle woken session released, a tab closed).
        this.as(process, `release ${sessionId}`, () => process.dispose(sessionId, this.rng() < 0.5))
        return true
      default:
        return false
    }
  }

  /** A sender posts (through any living process) to a random target, in its own order. */
  /** A sender whose target's user holds peer messages: the message is kept for them (`tools/send/hold.ts`). */
  private hold(process: SimProcess): boolean {
    const sender = this.pick(this.senders)!
    const target = this.pick(this.sessions)!
    const message: HeldMessage = { id: `${target}-h${this.held.length}`, sender, target, mode: this.rng() < 0.7 ? 'queue' : 'steer' }
    this.as(process, `hold ${message.id} → ${target} (${message.mode})`, () => {
      const held = process.store.holdForApproval({
        messageId: message.id, target, sender, senderTitle: '', hop: 1, mode: message.mode, text: `text of ${message.id}`, body: message.id,
        mayWake: this.rng() < 0.75, notify: false, expiresAt: Date.now() + 1000 * (1 + this.int(10)),
      })
      if (!held.ok || held.duplicate) this.fail(`hold of ${message.id}: ${JSON.stringify(held)}`)
      if (this.variant === 'hold-posts') process.store.post({ messageId: message.id, target, sender, hop: 1, mode: message.mode, text: `text of ${message.id}`, mayWake: true })
      this.held.push(message)
    })
    return true
  }

  /** The target's user in some process delivers or refuses a held message (`home/channel.ts`), or a process expires what is due (`HomeRuntime.tick`). */
  private decide(process: SimProcess): boolean {
    const message = this.pick(this.rng() < 0.85 ? this.held.filter(held => held.decided === undefined) : this.held)
    const roll = this.rng()
    if (roll < 0.2 || message === undefined) {
      const now = Date.now() + 1000 * this.int(12)
      this.as(process, 'expire held messages', () => {
        for (const expired of process.store.expireApprovals(now)) this.decided(this.held.find(held => held.id === expired.messageId), 'expired')
      })
      return true
    }
    const decision = roll < 0.65 ? 'deliver' : 'refuse'
    this.as(process, `${decision} ${message.id}`, () => {
      const outcome = process.store.decide(message.id, decision, Date.now())
      if (outcome.ok) {
        this.decided(message, decision === 'deliver' ? 'delivered' : 'refused')
        if (decision === 'deliver') this.posted.push(message)
      } else if (outcome.reason === 'stale' && outcome.approval?.state === 'expired' && message.decided === undefined) {
        this.decided(message, 'expired')
      } else if (outcome.reason === 'earlier-held' && message.decided === undefined) {
        // Deliver waits while an earlier message of the same sender to the same target is held (send order, src/home/store-approvals.ts).
        this.cover('deliver waited for an earlier held message')
      } else if (outcome.reason === 'full' || message.decided === undefined) {
        // `stale` (decided already) or `unknown` (decided, then swept) is right only for a message already decided.
        this.fail(`ONE DECISION: ${decision} of ${message.id} answered ${JSON.stringify(outcome)}, the schedule knew it ${message.decided ?? 'held'}`)
      }
    })
    return true
  }

  private decided(message: HeldMessage | undefined, how: NonNullable<HeldMessage['decided']>): void {
    if (message === undefined) return
    if (message.decided !== undefined) this.fail(`ONE DECISION: ${message.id} was ${message.decided}, and now ${how}`)
    message.decided = how
    this.cover(`held message ${how}`)
  }

  /** ONE DECISION and NOTHING EARLY, against the store's rows and the logs. */
  private checkHeld(messageIds: ReadonlySet<string>): void {
    if (this.held.length === 0) return
    const states = new Map(this.rows!.approvals.map(row => [row.message_id, row.state]))
    for (const message of this.held) {
      const state = states.get(message.id)
      // Decided rows go with a sweep; a held one never does.
      if (state === undefined ? message.decided === undefined : state !== (message.decided ?? 'held')) this.fail(`ONE DECISION: ${message.id} is ${state ?? 'gone'} in the store, ${message.decided ?? 'held'} as decided`)
      if (message.decided === 'delivered') continue
      if (messageIds.has(message.id)) this.fail(`NOTHING EARLY: ${message.id} (${message.decided ?? 'held'}) has a messages row`)
      if (this.logs.get(message.target)!.userIndex(message.id) >= 0) this.fail(`NOTHING EARLY: ${message.id} (${message.decided ?? 'held'}) is in ${message.target}'s log`)
    }
  }

  private post(process: SimProcess): boolean {
    const sender = this.pick(this.senders)!
    const target = this.pick(this.sessions)!
    // A retried call posts its id again (idempotent while the store keeps it: swept ones are not retried).
    const again = this.rng() < 0.1 ? this.pick(this.posted.filter(message => !this.swept.has(message.id))) : undefined
    const message = again ?? { id: `${target}-m${this.posted.length}`, sender, target, mode: this.rng() < 0.7 ? 'queue' as const : 'steer' as const }
    this.as(process, `post ${message.id} → ${message.target} (${message.mode})`, () => {
      const posted = process.store.post({ messageId: message.id, target: message.target, sender: message.sender, hop: 1, mode: message.mode, text: `text of ${message.id}`, mayWake: this.rng() < 0.75 })
      if (!posted.ok) this.fail(`post of ${message.id} refused as full`)
      if (posted.duplicate !== (again !== undefined)) this.fail(`post of ${message.id}: duplicate ${posted.duplicate}, expected ${again !== undefined}`)
      if (again === undefined) this.posted.push(message)
    })
    return true
  }

  /**
   * The invariants after a step, against the store as another connection
   * reads it (read again only when some connection committed since: the
   * rows cannot have changed otherwise) and against the logs (a duplicate
   * `user/message` is caught as it is appended).
   */
  check(): void {
    if (this.broken.length > 0) this.fail(this.broken[0]!)
    const { checker, dead } = this.world
    if (checker.changed() || this.rows === undefined) {
      const prefix = `${this.sessions[0]!.slice(0, this.sessions[0]!.lastIndexOf('-'))}-`
      this.rows = { holders: checker.holderRows(this.sessions), messages: checker.messageRows(this.firstOrder), approvals: this.held.length === 0 ? [] : checker.approvalRows(prefix) }
    }
    // ONE HOLDER: at most one living process thinks it holds each session, and the store agrees.
    const rows = new Map(this.rows.holders.map(row => [row.session_id, row]))
    for (const sessionId of this.sessions) {
      const believers = this.living().filter(process => process.holds.has(sessionId))
      if (believers.length > 1) this.fail(`ONE HOLDER: ${sessionId} is held by ${believers.map(process => `p${process.tag.pid}`).join(' and ')}`)
      const row = rows.get(sessionId)
      const holder = row?.pid === null || row?.pid === undefined || dead.has(`${row.pid}.${row.start}`) ? undefined : row
      const believer = believers[0]
      if (believer === undefined && holder !== undefined) this.fail(`ONE HOLDER: the store says p${holder.pid} holds ${sessionId}; it does not think so`)
      if (believer !== undefined && holder?.pid !== believer.tag.pid) this.fail(`ONE HOLDER: p${believer.tag.pid} thinks it holds ${sessionId}; the store says ${holder === undefined ? 'nobody living' : `p${holder.pid}`}`)
      if (believer !== undefined && holder !== undefined && holder.state !== believer.holds.get(sessionId)!.phase) this.fail(`ONE HOLDER: ${sessionId} is ${holder.state} in the store, ${believer.holds.get(sessionId)!.phase} in p${believer.tag.pid}`)
    }
    // ONE MESSAGE STATE: recorded means in the log at that seq; terminal states stay; nothing vanishes before it is recorded.
    const messages = new Map(this.rows.messages.map(row => [row.message_id, row]))
    this.checkHeld(new Set(messages.keys()))
    for (const message of this.posted) {
      const row = messages.get(message.id)
      const before = this.seen.get(message.id)
      if (row === undefined) {
        if (before?.state !== 'recorded') this.fail(`ONE MESSAGE STATE: ${message.id} vanished from the store while ${before?.state ?? 'unseen'}`)
        this.swept.add(message.id)
        continue
      }
      if (row.state === 'refused') this.fail(`ONE MESSAGE STATE: ${message.id} was refused`)
      if (before?.state === 'recorded' && (row.state !== 'recorded' || row.seq !== before.seq)) this.fail(`ONE MESSAGE STATE: ${message.id} was recorded at seq ${before.seq}, now ${row.state} ${row.seq}`)
      if (row.state === 'recorded') {
        const log = this.logs.get(message.target)!
        const seq = row.seq ?? 0
        const event = log.events[seq - 1]
        if (event?.type !== 'user/message' || event.data.id !== message.id) this.fail(`ONE MESSAGE STATE: the store says ${message.id} is recorded at seq ${seq}; the log has ${event === undefined ? 'nothing' : `${event.type} ${String(event.data.id ?? '')}`.trim()} there`)
        if (this.recordedMeans === 'persisted' && seq > log.persisted) this.fail(`ONE MESSAGE STATE: the store says ${message.id} is recorded at seq ${seq}; ${message.target}'s log on disk ends at seq ${log.persisted} (the rest is only in its writer's memory)`)
        // Not an invariant: `answered` is marked from the live log (owner-delivery.ts `settle`), and only the re-offer after a crash reads it.
        if (row.answered_seq !== null && row.answered_seq > log.persisted) this.cover('answered beyond the log on disk')
        if (row.answered_seq !== null && log.events[row.answered_seq - 1]?.type !== 'turn/end' && !this.falselyAnswered.has(message.id)) {
          this.falselyAnswered.add(message.id)
          this.cover('answered by a turn end a SIGKILL lost')
        }
      }
      this.seen.set(message.id, { state: row.state, seq: row.seq })
    }
  }

  /**
   * No more posts or crashes: every living process finishes its wakes and
   * runs as `HomeRuntime.tick` does (drain what waits, settle what its
   * agents append) until nothing moves. Then nothing may still wait for a
   * session live in a living process (a holder that stalls a message is as
   * wrong as one that loses it).
   */
  calm(): void {
    this.note('calm')
    for (let round = 0, moved = true; moved; round++) {
      if (round > 500) this.fail('LIVENESS: the living processes did not settle in 500 rounds')
      moved = false
      for (const process of this.living()) {
        const waiting = process.store.waiting()
        for (const [sessionId, hold] of [...process.holds]) {
          if (hold.phase === 'waking') {
            const agent = this.resume(sessionId, process)
            process.holds.delete(sessionId)
            if (!process.track(agent)) this.fail(`ONE HOLDER: p${process.tag.pid} acquired ${sessionId} but markLive was refused`)
            reofferUnanswered(process.store, agent)
            moved = true
            continue
          }
          if (waiting.has(sessionId) && process.drain(sessionId) > 0) moved = true
          while (hold.agent.step()) {
            moved = true
            process.settle(sessionId)
          }
          process.settle(sessionId)
        }
        if (process.resolveFlushes()) moved = true
      }
      this.check()
    }
    const agents = new Map(this.living().flatMap(process => [...process.holds].flatMap(([id, hold]) => hold.phase === 'live' ? [[id, hold.agent] as const] : [])))
    const stalled = this.posted.filter(message => {
      const agent = agents.get(message.target)
      if (agent === undefined || this.seen.get(message.id)?.state === 'recorded' || this.swept.has(message.id)) return false
      // rc.8 parks the inbox after a failed turn until the next wake, as for a local send: only what was inserted before is excused.
      const inserted = agent.session.events.findLastIndex(event => (event as LogEvent).type === 'agent/inbox/spliced' && ((event as LogEvent).data.inserted as HostUserMessage[]).some(each => each.id === message.id))
      return !(agent.parkedAt !== undefined && inserted >= 0 && inserted < agent.parkedAt && deliveryState(agent.session.events, message.id).kind === 'inbox')
    })
    if (stalled.length > 0) this.fail(`LIVENESS: ${stalled.map(message => `${message.id} ${this.seen.get(message.id)?.state}`).join(', ')} still wait for a session live in a living process`)
  }

  /** End every process, then one recovery process holds each session and drains it until nothing moves. */
  recover(): number {
    for (const process of this.living()) {
      if (this.rng() < 0.5) this.kill(process)
      else this.exit(process)
    }
    this.check()
    this.note('recovery')
    const recovery = this.spawn()
    for (const sessionId of this.sessions) {
      const held = recovery.store.acquire(sessionId)
      if (!held.ok) this.fail(`recovery could not acquire ${sessionId}: held by p${held.holder.tag.pid}`)
      const agent = this.resume(sessionId, recovery)
      if (!recovery.track(agent)) this.fail(`recovery could not mark ${sessionId} live`)
      if (reofferUnanswered(recovery.store, agent) > 0) this.cover('re-offered unanswered')
    }
    // As `HomeRuntime.tick`: drain what the store says waits, and let each agent run; until nothing moves.
    let rounds = 0
    for (let moved = true; moved; rounds++) {
      if (rounds > 500) this.fail('recovery did not reach quiescence in 500 rounds')
      moved = false
      const waiting = recovery.store.waiting()
      for (const sessionId of this.sessions) {
        if (waiting.has(sessionId) && recovery.drain(sessionId) > 0) moved = true
        const { agent } = recovery.live(sessionId)!
        while (agent.step()) {
          moved = true
          recovery.settle(sessionId)
        }
        recovery.settle(sessionId)
      }
      if (recovery.resolveFlushes()) moved = true
      this.check()
    }
    const waiting = this.world.checker.messageRows(this.firstOrder).filter(row => row.state === 'pending' || row.state === 'claimed')
    if (waiting.length > 0) this.fail(`recovery left ${waiting.map(row => `${row.message_id} ${row.state}`).join(', ')}`)
    // The recovery process ends cleanly: its logs are written; the checks below read them as they are on disk.
    recovery.drainLogs()
    this.finalCheck()
    // Keep the shared file small for the next schedules: every recorded message of this one goes.
    recovery.store.sweep(Date.now(), 0)
    recovery.store.leave('exited')
    this.world.dead.add(key(recovery.tag))
    recovery.disconnect()
    return rounds
  }

  /** Every posted message is in its target's log on disk exactly once, and in posting order per sender, target and mode. */
  private finalCheck(): void {
    const last = new Map<string, number>()
    for (const log of this.logs.values()) if (log.unpersisted > 0) this.fail(`the model: ${log.id} has ${log.unpersisted} events not on disk after the recovery`)
    for (const message of this.held) {
      if (message.decided !== 'delivered' && this.logs.get(message.target)!.userIndex(message.id) >= 0) this.fail(`NOTHING EARLY: ${message.id} (${message.decided ?? 'held'}) reached ${message.target}`)
    }
    for (const message of this.posted) {
      const log = this.logs.get(message.target)!
      const index = log.userIndex(message.id)
      if (index < 0) this.fail(`DELIVERY: ${message.id} never reached ${message.target} (${deliveryState(log.events, message.id).kind} in its log)`)
      // A steer overtakes queued input by design (rc.8 `Inbox.claim`: next-step input before the queued turn), so order is per mode.
      const lane = `${message.sender}→${message.target} ${message.mode}`
      if ((last.get(lane) ?? -1) > index) this.fail(`ORDER: ${message.id} (${lane}) is in the log before a message its sender posted earlier`)
      last.set(lane, index)
    }
  }
}

/** What one schedule did. */
export interface ScheduleStats {
  readonly posted: number
  readonly crashes: number
  readonly rounds: number
}

/**
 * Run the schedule of `seed`: `steps` random steps, each followed by the
 * invariants, then the recovery and the final checks.
 * @throws {InvariantBroken} with the broken invariant (re-run with `tracing` for the steps).
 */
export function runSchedule(world: CrashWorld, seed: number, options: { steps?: number, variant?: Variant, recordedMeans?: RecordedMeans, trace?: string[] } = {}): ScheduleStats {
  const schedule = new Schedule(world, seed, options.variant ?? 'real', options.recordedMeans ?? 'persisted', options.trace !== undefined)
  const realNow = Date.now
  // One clock tick per reading: timestamps (and the notices' ids) never repeat, and a replay is exact.
  let clock = realNow()
  Date.now = () => ++clock
  try {
    schedule.spawn()
    const steps = options.steps ?? 40
    for (let done = 0, tries = 0; done < steps && tries < steps * 10; tries++) {
      if (schedule.step()) {
        done++
        schedule.cover(schedule.last)
        schedule.check()
      }
    }
    schedule.calm()
    const rounds = schedule.recover()
    return { posted: schedule.posted.length, crashes: schedule.crashes, rounds }
  } finally {
    Date.now = realNow
    options.trace?.push(...schedule.trace)
    for (const process of schedule.living()) {
      world.dead.add(key(process.tag))
      process.disconnect()
    }
  }
}

/** What a run of many schedules found. */
export interface SeedsSummary {
  readonly schedules: number
  readonly posted: number
  readonly crashes: number
  /** Failing seeds (the first ones) and what broke. */
  readonly failures: ReadonlyArray<{ readonly seed: number, readonly message: string }>
  readonly covered: Record<string, number>
}

/** Schedules per store file: rows of sessions held once stay in `holders` for good, and a small file keeps every scan short. */
const SCHEDULES_PER_FILE = 250

/**
 * Run the schedules of seeds `from`, `from + 1`, … (`count` of them) on store
 * files under `dir`, each removed once its schedules ran.
 * @param options.between - called between two files (the runner stops there once its parent is gone).
 */
export function runSeeds(dir: string, from: number, count: number, options: { steps?: number, variant?: Variant, between?: () => void } = {}): SeedsSummary {
  const failures: Array<{ seed: number, message: string }> = []
  const covered = new Map<string, number>()
  let world: CrashWorld | undefined
  let posted = 0
  let crashes = 0
  const done = (): void => {
    if (world === undefined) return
    world.close()
    rmSync(world.home, { recursive: true, force: true })
  }
  for (let seed = from; seed < from + count; seed++) {
    if ((seed - from) % SCHEDULES_PER_FILE === 0) {
      done()
      options.between?.()
      world = openCrashWorld(join(dir, `batch-${seed}`), covered)
    }
    try {
      const stats = runSchedule(world!, seed, options)
      posted += stats.posted
      crashes += stats.crashes
    } catch (error: unknown) {
      if (failures.length < 10) failures.push({ seed, message: error instanceof InvariantBroken ? error.message : String((error as Error).stack ?? error) })
    }
  }
  done()
  return { schedules: count, posted, crashes, failures, covered: Object.fromEntries(covered) }
}
