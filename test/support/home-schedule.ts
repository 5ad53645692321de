/**
 * Seeded, replayable crash schedules over the SHIPPED home code
 * (docs/architecture.md §8): each simulated `dsh` process is composed as
 * `home/mount.ts` composes a real one: a `StoreSupervisor` over a
 * `SqliteHomeStore` connection of its own (all on one store file), a real
 * `HomeRuntime` (with its `Holdings`, `Adoption`, `OrphanWatches`) that
 * joins again when the supervisor reopens or moves the store, and a real
 * `guardController` wrapped by `failClosed`. Only the process's
 * surroundings are simulated:
 * - rc.8 agents and their logs (`SessionLog`, `SimAgent` of
 *   test/support/rc8-sim.ts, built from `@deepseek-ai/dsh-agent@0.1.0-rc.8`
 *   `Inbox` and `@deepseek-ai/dsh-agent-loop@0.1.0-rc.8` `ReactLoopAgent`);
 * - the inner controller port a real process has (rc.8 `agents.resume`, then
 *   `followup`/`steer`: `adapters/controller.ts`), reduced to a resume from
 *   the log on disk and an admission into the agent's inbox;
 * - `sessions.flush` (a promise the schedule resolves, rejects, or never
 *   settles when the process dies), the liveness probe (the real
 *   `judgeAlive` over a simulated `/proc`: a SIGKILLed process is gone, a
 *   zombie still answers `kill(pid, 0)` and its `/proc/<pid>/stat` says
 *   `Z`, read by the real `parseState`), the clock (`Date.now` ticks once
 *   per reading; with store faults `setTimeout` runs on it too, so the
 *   supervisor's and the store steps' retries replay exactly) and the
 *   runtime's timer (a `tick` step, `home/runtime-clock.ts`).
 * A send runs the real decision (`tools/send/gather.ts` `gatherAndDecide`,
 * reading the target's own `inbound` choice from the store), then the
 * guard's `resolve` and `admit`. The user's choice is set through the real
 * channel (`home/channel.ts` `inbound.set`).
 *
 * Steps interleave: a step starts real async work (a wake, a flush-awaiting
 * record, an adoption) and the schedule lets it run to its next await before
 * drawing the next step. A SIGKILL is armed, sometimes, inside a step: it
 * throws at one of the process's store calls or log appends, and the
 * process is gone from then on (no cleanup, its unwritten log tail lost).
 * Store faults are steps of their own schedules (`fault`), below the
 * supervisor as a real connection meets them: `busy` (the next 1–4 store
 * calls or openings of a process fail with SQLite's `database is locked`,
 * as past the busy wait), `zombie` (a SIGKILLed holder stays a zombie until
 * a later step reaps it), `replace` (the store file is deleted and a new one
 * made; each running process's store watch notices before the next step,
 * docs/architecture.md §8 "When the store fails" names the window before as
 * unprotected; what only the old file held is excused from DELIVERY).
 *
 * After every step: ONE HOLDER (a session is held live by at most one living
 * process, and the store agrees), ONE MESSAGE STATE (no id twice in a log;
 * `recorded` at seq N means at seq N of the log on disk; a message refused
 * by the store only for the target's choice), INBOUND (nothing sent while
 * the target's own choice is `refuse` is posted or reaches its log). Then a
 * calm phase (LIVENESS), and a recovery by a long-lived host that adopts
 * every session with waiting messages: DELIVERY (each message with a store
 * row, one admitted into a session held in the sending process included,
 * exactly once in its target's log; one admitted locally without a row at
 * most once) and ORDER per sender, target and mode.
 *
 * On PostgreSQL (a world of test/support/pg-schedule-world.ts, `world.pg`)
 * each process opens the store as `home/store-choice.ts` does for
 * `store: postgres://…`: the shipped `pgSite`, so a `PgSync` worker thread
 * and a `PgHomeStore` per opening, under the same supervisor, runtime and
 * guard. Every process is a process of one simulated machine, so the worker
 * judges the others by pid + start time as on a real machine, through
 * `home/pg/simulated-machine.ts` (the verdicts of the same `alive` the
 * SQLite stores are given, and the schedule's clock, written before each
 * store call); a SIGKILLed process's worker thread is terminated, its
 * connections with it. The `down` fault cuts every process's connections
 * to the server for a few steps (test/support/pg-side.ts); the checker reads
 * the rows on a connection of its own, past the cut. Every step is drawn as
 * on SQLite: a seed's schedule is the same on either store as long as both
 * answer alike.
 *
 * With `withdraws: true` a sender's user also withdraws messages (the real
 * channel's `messages.withdraw`, docs/architecture.md §8 "Withdraw"), and
 * two more invariants hold: WITHDRAWN (a message withdrawn is never in its
 * target's log and stays withdrawn; a message pending in the store's queue
 * is withdrawn unless a claim of it was handed back) and NOT CLAIMED (a
 * message claimed or recorded is never withdrawn). Off by default, so every other schedule draws the same
 * steps from its seed as before.
 *
 * @module test/support/home-schedule
 */

import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { answerChannel, approvalDecided, OPEN_TURN_RECENT_MS, deliveryState, failClosed, gatherAndDecide, holdMessage, truncateChars, guardController, HomeRuntime, judgeAlive, openHomeStore, parseStartTime, parseState, RETRY_BUSY_MS, SqliteHomeStore, storeFault, storeFaultWhy, StoreSupervisor, sqliteSite, storePaths, DEFAULT_SETTINGS, type ControllerPort, type HomeStore, type HostUserMessage, type ProcessTag, type StoreWatch } from '../../src/testing.js'
import { onTheLoop } from '../../src/home/off-loop.js'
import type { PgHomeStore } from '../../src/home/pg/pg-home-store.js'
import { pgSite, type PgSite } from '../../src/home/pg/pg-site.js'
import { setSimulatedClock, setSimulatedProcess } from '../../src/home/pg/simulated-machine.js'
import type { StoreSite } from '../../src/home/store-site.js'
import { mulberry32 } from './prng.js'
import { SessionLog, SimAgent } from './rc8-sim.js'
import { connection, openCrashWorld, type CrashWorld, type PgWorld } from './schedule-world.js'

/** The channel's home view, for a host whose home no session's shell can write (src/home/home-reach.ts). */
const NO_REACH = (): { path: string, sandboxRoot: undefined, kind: undefined } => ({ path: '/home', sandboxRoot: undefined, kind: undefined })

/** A SIGKILL (or, for a dead process, any later act of its code): thrown from a crash point. */
class Crash extends Error {}

/** A broken invariant. */
export class InvariantBroken extends Error {}

/**
 * The schedule's faults: `none`; `busy` (a process's next 1–4 store calls
 * fail with `database is locked`); `zombie` (a SIGKILLed holder stays a
 * zombie until reaped); `replace` (the store file is deleted under running
 * processes, and a new one made); `full` (a process's next 1–4 write
 * transitions fail with `database or disk is full`, rolled back, as SQLite
 * does on `SQLITE_FULL`); `down` (PostgreSQL only: the server out of reach
 * of every simulated process for the next 1–4 steps, its connections reset
 * and new ones refused, test/support/pg-side.ts).
 */
export type StoreFault = 'none' | 'busy' | 'zombie' | 'replace' | 'full' | 'down'

/**
 * What ORDER is checked against: `store`, the messages that went through the
 * store, in the order they entered it (a held message enters when its user
 * delivers it); `sent`, the same messages in the order their sender sent
 * them; `all`, also those admitted straight into an agent live in the
 * sending process, in send order. Each is pinned by a seed that once broke
 * it (test/unit/home-schedule.test.ts): `sent` by a user delivering held
 * messages in another order than they were sent; `all` by a holder
 * re-admitting an earlier stored message after a crash behind a later one
 * admitted locally (that one now has a row in posting order too,
 * `home/local-delivery.ts`).
 */
export type OrderOver = 'store' | 'sent' | 'all'

/**
 * What `recorded` at seq N is checked against: the log on disk (the
 * invariant), or only the log in its writer's memory (`in-memory`: weaker,
 * so that a broken variant shows what it loses to a SIGKILL, not only that
 * it recorded early).
 */
export type RecordedMeans = 'persisted' | 'in-memory'

/** One message a sender sent, as the sender was told. */
interface Sent {
  readonly id: string
  readonly sender: string
  readonly target: string
  readonly mode: 'queue' | 'steer'
  /** `store`: posted to the store (remote); `local`: admitted into an agent live in the sending process. */
  via?: 'store' | 'local'
  /** Refused for the target's inbound choice. */
  refused?: boolean
  /** Kept for the target's user (its choice was `hold`). */
  held?: boolean
  /** The target's own choice when the send started. */
  readonly choiceAtStart: string | undefined
  /** Its sender's user withdrew it (the store said `withdrawn`). */
  withdrawn?: boolean
  /** Sent before the store file was deleted (the `replace` fault): what only the old file held is not seen again. */
  beforeReplace?: boolean
}

type ToolDeps = Parameters<typeof gatherAndDecide>[2]

/** The runtime's store watch, reduced to nothing: the schedule ticks each runtime itself. */
const QUIET_WATCH = { listen: () => () => undefined, poke: () => undefined, stop: () => undefined } as unknown as StoreWatch

const key = (tag: ProcessTag): string => `${tag.pid}.${tag.start}`

/** A tick of `process`'s runtime (its reconcile: `home/runtime.ts`), which also retries what a locked store refused before. */
function tickOf(process: Proc): Promise<void> | void {
  process.lockedSinceTick = false
  return process.runtime.tick()
}

/** Fields 5 to 21 of a `/proc/<pid>/stat` line (ppid to the last field before the start time), all 0 here. */
const STAT_FIELDS_5_TO_21 = Array.from({ length: 17 }, () => '0').join(' ')

/** How long a held message waits for its user, in readings of the schedule's clock (a few steps' worth). */
const HOLD_EXPIRY_MS = 1500

/** Let every async continuation that can run now run (no timers are involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 4; i++) await new Promise<void>(resolve => setImmediate(resolve))
}

/** One simulated `dsh` process around the shipped runtime and guard. */
class Proc {
  readonly tag: ProcessTag
  readonly longLived: boolean
  readonly agents = new Map<string, SimAgent>()
  readonly flushes: Array<{ readonly agent: SimAgent, readonly resolve: () => void, readonly reject: (error: Error) => void }> = []
  readonly logged: string[] = []
  runtime!: HomeRuntime
  guard!: ControllerPort
  store!: HomeStore
  private readonly connections: DatabaseSync[] = []
  /** Operations left before the SIGKILL armed for this step. */
  budget: number | undefined
  /** How many of the next store calls fail with `database is locked` (the `busy` fault: a lock held past the wait). */
  busy = 0
  /** How many of the next write transitions fail with `database or disk is full` (the `full` fault). */
  full = 0
  /** A store call met the `busy` fault since this process's last tick began: a write it could not make waits for its reconcile. */
  lockedSinceTick = false
  /** Gone: every later call of its code throws. */
  dead = false
  private readonly run: HomeSchedule

  constructor(run: HomeSchedule, pid: number, longLived: boolean) {
    this.run = run
    this.tag = { pid, start: 1 }
    this.longLived = longLived
  }

  readonly op = (): void => {
    if (this.dead || (this.budget !== undefined && this.budget-- <= 0)) {
      this.dead = true
      throw new Crash('SIGKILL')
    }
  }

  /**
   * Every store method first passes the crash point (and the `busy` fault: SQLite's `database is locked` as past the
   * busy wait, the store left as it was). Below the supervisor, as the SQLite connection is in a real process.
   */
  private crashable(store: SqliteHomeStore, pooled: boolean): SqliteHomeStore {
    return new Proxy(store, {
      get: (target, name) => {
        const value = Reflect.get(target, name) as unknown
        if (typeof value !== 'function') return value
        // A pooled connection goes back to the pool when the process is gone, not when its store is closed.
        if (name === 'close') {
          return pooled ? () => this.run.closeReplies(target) : () => {
            this.run.closeReplies(target)
            target.close()
          }
        }
        // With `offLoop` the store's own `…OffLoop` method runs; its transition is a step of the runner (`workerFor`).
        if (this.run.offLoop && typeof name === 'string' && name.endsWith('OffLoop')) return (value as (...rest: unknown[]) => unknown).bind(target)
        return (...args: unknown[]) => {
          this.op()
          this.busyNow(String(name))
          this.fullNow(String(name))
          return (value as (...rest: unknown[]) => unknown).apply(target, args)
        }
      },
    })
  }

  /** The `busy` fault, once armed: the next store calls (or openings) meet another process's lock past the wait. */
  private busyNow(where: string): void {
    if (this.busy <= 0) return
    this.busy--
    this.lockedSinceTick = true
    this.run.cover(`busy in ${where}`)
    throw Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5, errstr: 'database is locked' })
  }

  /**
   * The `full` fault, once armed: the next write transitions fail as SQLite fails one on `SQLITE_FULL` (the
   * transaction rolled back, nothing written); reads still work.
   */
  private fullNow(where: string): void {
    if (this.full <= 0 || READS.has(where)) return
    this.full--
    this.lockedSinceTick = true
    this.run.cover(`full in ${where}`)
    throw Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13, errstr: 'database or disk is full' })
  }

  /**
   * What the supervisor opens (`home/mount.ts`: `openHomeStore` of the home): a pooled connection to the world's file
   * while it is the file at the path, else the file now at the path, made by `openHomeStore` if it is gone.
   */
  /**
   * With `offLoop`: the store's worker thread (src/home/off-loop.ts `OffLoopRunner`) as steps of the schedule, each
   * transition passing this process's crash point and store faults when it runs (`HomeSchedule.offLoopCall`).
   */
  private workerFor(store: SqliteHomeStore): SqliteHomeStore {
    if (!this.run.offLoop) return store
    store.runOffLoopWith({
      run: <T>(method: string, _args: readonly unknown[], here: () => T) => this.run.offLoopCall(this, store, method, () => {
        this.op()
        this.busyNow(method)
        this.fullNow(method)
        return here()
      }) as Promise<T>,
      times: async () => undefined,
      close: () => this.run.closeReplies(store),
    })
    return store
  }

  private openOne(busyMs: number): SqliteHomeStore {
    if (this.dead) throw Object.assign(new Error('the process is gone'), { code: 'EIO' })
    this.busyNow('open')
    const world = this.run.world
    const alive = (tag: ProcessTag): boolean => this.run.alive(tag)
    if (this.run.replaced) {
      const store = this.workerFor(openHomeStore(world.home, this.tag, alive, line => this.logged.push(line), Date.now, busyMs))
      this.opened.push(store)
      return this.crashable(store, false)
    }
    const { file } = storePaths(world.home)
    const db = world.idle.pop() ?? connection(file)
    this.connections.push(db)
    return this.crashable(this.workerFor(new SqliteHomeStore(db, file, this.tag, alive)), true)
  }

  /** Stores opened on a file made after a `replace` (closed when the process is gone). */
  private readonly opened: SqliteHomeStore[] = []
  /** The process's supervisors (one per runtime start, as `home/mount.ts` makes one per start). */
  private readonly supervisors: StoreSupervisor[] = []

  /** The supervised store, as `home/mount.ts` opens it (`home/store-supervisor.ts`). */
  private openStore(): HomeStore {
    const pg = this.run.world.pg
    const site = pg === undefined ? sqliteSite(busyMs => this.openOne(busyMs), storePaths(this.run.world.home).file) : this.pgStoreSite(pg)
    const supervisor = new StoreSupervisor(site, this.tag, line => this.logged.push(line))
    this.supervisors.push(supervisor)
    supervisor.start(RETRY_BUSY_MS)
    this.supervisor = supervisor
    // A SIGKILLed process runs no more code: its calls end there, even where its closed supervisor would refuse them
    // as unavailable (and a retry would wait for a store that no process of it will ever use).
    return new Proxy(supervisor.store, {
      get: (target, name) => {
        const value = Reflect.get(target, name) as unknown
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          if (this.dead) throw new Crash('SIGKILL')
          return (value as (...rest: unknown[]) => unknown).apply(target, args)
        }
      },
    })
  }

  supervisor!: StoreSupervisor

  /** The PostgreSQL site of the last start (what its stores hear: a lease lost and taken again). */
  private pgSiteNow: PgSite | undefined

  /**
   * What `home/store-choice.ts` opens for `store: postgres://…`: the shipped `pgSite` (a `PgSync` worker thread and a
   * `PgHomeStore` per opening), this process a process of the world's simulated machine (its liveness and clock,
   * `home/pg/simulated-machine.ts`), each store it opens crashable. No corpus rows (a process whose SQLite store
   * cannot be used: nothing here reads them).
   */
  private pgStoreSite(pg: PgWorld): StoreSite {
    const site = pgSite({ url: pg.url, shown: 'the test server', home: this.run.world.home, self: this.tag, machine: 'schedule',
      rows: () => undefined, log: line => this.logged.push(line), schema: pg.schema, simulated: pg.machine })
    this.pgSiteNow = site
    const real = new WeakMap<object, PgHomeStore>()
    return {
      where: site.where,
      open: busyMs => {
        if (this.dead) throw Object.assign(new Error('the process is gone'), { code: 'EIO' })
        let store: PgHomeStore
        try {
          store = site.open(busyMs)
        } catch (error: unknown) {
          if (isStoreFault(error)) this.run.cover('store fault in open')
          throw error
        }
        const crashable = this.crashablePg(store)
        real.set(crashable, store)
        return crashable
      },
      holds: store => site.holds(real.get(store)!),
    }
  }

  /**
   * Every method of a PostgreSQL store first passes the crash point, and tells the simulated machine which processes
   * live and what time it is (`HomeSchedule.publish`). A store fault (the server out of reach) is the process's as a
   * locked SQLite store is: what it could not write waits for its reconcile. The three `…OffLoop` transitions run as
   * the SQLite store runs them without a worker (`home/off-loop.ts` `onTheLoop`: the same transition on the store's
   * worker thread, its answer awaited at once), or, with `offLoop`, as steps of the runner (`HomeSchedule.offLoopCall`),
   * so that a replay is exact.
   */
  private crashablePg(store: PgHomeStore): HomeStore {
    const faulted = <T>(name: string, run: () => T): T => {
      this.run.publish()
      try {
        return run()
      } catch (error: unknown) {
        if (isStoreFault(error)) {
          this.lockedSinceTick = true
          this.run.cover(`store fault in ${name}`)
        }
        throw error
      }
    }
    return new Proxy(store, {
      get: (target, name) => {
        const value = Reflect.get(target, name) as unknown
        if (typeof value !== 'function') return value
        // SIGKILLed or closed: the worker thread is terminated, its connections end, the server rolls back what was open.
        if (name === 'close') {
          return () => {
            this.run.closeReplies(target)
            target.close()
          }
        }
        if (typeof name === 'string' && name.endsWith('OffLoop')) {
          const method = name.slice(0, -'OffLoop'.length) as 'post' | 'claim' | 'recordAll'
          const sync = target[method] as (...rest: unknown[]) => unknown
          return (...args: unknown[]) => {
            if (this.run.offLoop) {
              return this.run.offLoopCall(this, target, method, () => {
                this.op()
                return faulted(method, () => sync.apply(target, args))
              })
            }
            this.op()
            return onTheLoop(() => faulted(method, () => sync.apply(target, args)))
          }
        }
        return (...args: unknown[]) => {
          this.op()
          return faulted(String(name), () => (value as (...rest: unknown[]) => unknown).apply(target, args))
        }
      },
    })
  }

  /** `HomeRuntime` + `guardController` as `home/mount.ts` composes them, over this process's surroundings. */
  start(): void {
    this.store = this.openStore()
    const logs = this.run.logs
    const runtime = new HomeRuntime(this.store, QUIET_WATCH, {
      agents: { get: id => this.agents.get(id), list: () => [...this.agents.values()], resume: () => Promise.reject(new Error('the guard resumes through its inner port')) },
      log: line => this.logged.push(line),
      longLived: () => this.longLived,
      // rc.8 `sessions.flush`: resolves once everything appended so far is on disk.
      flush: agent => new Promise<void>((resolve, reject) => {
        this.op()
        const log = logs.get(agent.id)!
        this.flushes.push({ agent: agent as SimAgent, resolve: () => { log.persist(); resolve() }, reject })
      }),
      // rc.8 `sessionPersistence.readFrom(id, 0)`: the log as on disk.
      listEvents: async id => {
        this.op()
        const log = logs.get(id)
        return log === undefined ? [] : log.events.slice(0, log.persisted)
      },
      clock: { every: () => () => undefined, atExit: hook => { this.exitHook = hook; return () => { this.exitHook = undefined } } },
    })
    this.runtime = runtime
    // As home/mount.ts: a held message this process expired tells its sender, if it asked.
    runtime.expired = approval => approvalDecided(runtime.store, approval, line => this.logged.push(line))
    // As home/mount.ts: the guard fails closed on a store fault, and the runtime joins again once the store is back or moved.
    this.guard = failClosed(guardController(this.inner(), runtime, {
      isLocal: id => this.agents.has(id),
      agentOf: id => this.agents.get(id),
      listEvents: async id => {
        this.op()
        const log = logs.get(id)
        return log === undefined ? [] : log.events.slice(0, log.persisted)
      },
      log: line => this.logged.push(line),
    }))
    this.supervisor.listen(() => runtime.rejoin())
    // As home/mount.ts: a lease found run out was taken again by the worker; the runtime marks its holds again. (Never
    // heard in a schedule, shorter than a lease: said, for a run that lasted that long.)
    this.pgSiteNow?.listen(event => {
      if (!('leaseLost' in event) || this.dead) return
      this.run.cover('lease lost and taken again')
      runtime.rejoin()
    })
    runtime.start()
  }

  exitHook: (() => void) | undefined

  /** The rc.8 side of the controller (`adapters/controller.ts` over `agents`), reduced. */
  private inner(): ControllerPort {
    return {
      resolve: async (sessionId, options) => {
        this.op()
        const live = this.agents.get(sessionId)
        if (live !== undefined) return { ok: true, value: { sessionId, woke: false, running: live.status === 'running' } }
        if (!options.mayWake) return { ok: false, reason: { kind: 'not-live' } }
        const agent = this.run.resume(sessionId, this)
        this.agents.set(sessionId, agent)
        // `agent/created` (home/mount.ts): the runtime tracks every session that goes live here.
        this.runtime.track(agent)
        return { ok: true, value: { sessionId, woke: true, running: false } }
      },
      admit: async (target, prompt) => {
        this.op()
        const agent = this.agents.get(target.sessionId)
        if (agent === undefined) return { ok: false, reason: { kind: 'not-live' } }
        const message: HostUserMessage = { id: prompt.requestId, role: 'user', content: [{ type: 'text', text: prompt.text }], source: { kind: 'plugin' } }
        if (prompt.mode === 'queue') agent.followup(message)
        else agent.steer(message)
        return { ok: true, value: { mode: prompt.mode, running: agent.status === 'running' } }
      },
      releaseWoken: async target => {
        this.dispose(target.sessionId)
        return 'put-back-to-sleep'
      },
      waitRecorded: async () => undefined,
      markDelivered: () => undefined,
    }
  }

  /** rc.8 disposes the agent (its inbox cancelled), `agent/disposed` lets it go, then its log is written. */
  dispose(sessionId: string): void {
    const agent = this.agents.get(sessionId)
    if (agent === undefined) return
    agent.dispose()
    this.agents.delete(sessionId)
    this.runtime.untrack(sessionId)
    // `killAtDrain`: the SIGKILL comes between the `agent/disposed` listeners and rc.8's drain of the log.
    if (this.run.killsAtDrain()) {
      this.dead = true
      throw new Crash('SIGKILL before the disposal drain')
    }
    this.op()
    this.run.logs.get(sessionId)!.persist()
    this.run.logs.get(sessionId)!.writer = undefined
  }

  /** The process is gone: its connections go back to the pool (a SIGKILLed process's locks are gone with it). */
  disconnect(): void {
    for (const supervisor of this.supervisors.splice(0)) supervisor.close()
    for (const store of this.opened.splice(0)) store.close()
    this.run.world.idle.push(...this.connections.splice(0))
  }
}

type Action = 'spawn' | 'send' | 'inbound' | 'decide' | 'turn' | 'tick' | 'flush' | 'write' | 'release' | 'exit' | 'kill' | 'reload' | 'fault'

const WEIGHTS: ReadonlyArray<readonly [Action, number]> = [
  ['spawn', 4], ['send', 14], ['inbound', 3], ['decide', 3], ['turn', 30], ['tick', 10], ['flush', 10], ['write', 4],
  ['release', 3], ['exit', 1.2], ['kill', 2], ['reload', 0.8], ['fault', 2],
]
const TOTAL = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0)

// ---- Withdraw steps (only with `withdraws: true`) ----
/** The steps of a schedule with withdraws: the same, and `withdraw`. */
const WITHDRAW_WEIGHTS: ReadonlyArray<readonly [Action | 'withdraw', number]> = [...WEIGHTS, ['withdraw', 6]]
const WITHDRAW_TOTAL = WITHDRAW_WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0)

/** The steps of a schedule of the `down` fault (PostgreSQL): the server goes out of reach four times as often as another fault comes. */
const DOWN_WEIGHTS: ReadonlyArray<readonly [Action, number]> = WEIGHTS.map(([action, weight]) => [action, action === 'fault' ? 4 * weight : weight])
const DOWN_TOTAL = DOWN_WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0)
// ---- end of withdraw steps ----

/** A transition a process asked of its store's worker thread, not yet answered (`offLoop`). */
interface Reply {
  readonly process: Proc
  readonly store: object
  readonly what: string
  readonly transition: () => unknown
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
  /** Set once it ran: its transaction committed (or failed) before its answer. */
  outcome?: { readonly ok: true, readonly value: unknown } | { readonly ok: false, readonly error: unknown }
}

/** One schedule over the shared store file. */
export class HomeSchedule {
  readonly world: CrashWorld
  readonly fault: StoreFault
  readonly logs = new Map<string, SessionLog>()
  readonly broken: string[] = []
  readonly trace: string[] = []
  readonly sessions: string[]
  readonly senders: string[]
  /** Targets and senders: a sender is a session too (its notices are delivered into its log). */
  readonly everyone: string[]
  private readonly prefix: string
  readonly sent: Sent[] = []
  readonly processes: Proc[] = []
  /** SIGKILLed processes not yet reaped (the `zombie` fault). */
  readonly zombies = new Set<string>()
  replaced = false
  /** The calm phase or the recovery: no more SIGKILLs. */
  calmed = false
  crashes = 0
  private readonly rng: () => number
  private readonly maxProcesses: number
  private readonly firstOrder: number
  private readonly inFlight = new Set<Promise<void>>()
  /** Where each sender session is live. */
  private readonly senderIn = new Map<string, Proc>()
  private readonly recordedSeq = new Map<string, number>()
  /** Decisions on held messages seen in the store (final; a store file replaced later no longer holds them). */
  private readonly decidedSeen = new Map<string, string>()
  /** What `recorded` is checked against (see {@link RecordedMeans}). */
  recordedMeans: RecordedMeans = 'persisted'
  /**
   * How often a disposal is cut off by a SIGKILL after `agent/disposed` and before rc.8 drains the log (0: only as
   * often as any other crash point; drawn only when above 0, so every other schedule draws the same steps).
   */
  killAtDrain = 0

  /**
   * Whether a process's `post`, `claim` and `recordAll` run on its store's worker thread (home/off-loop.ts): each is
   * answered at a later step of its own, its transaction run when asked or when answered (drawn); a SIGKILL in between
   * loses the answer (and the transaction, if it had not run); a store closed in between rejects it as a store fault.
   */
  offLoop = false
  private readonly replies: Reply[] = []

  /** A transition asked of `store`'s worker by `process` (see {@link offLoop}). */
  offLoopCall(process: Proc, store: object, what: string, transition: () => unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      // A process that is gone runs nothing more (its worker died with it).
      if (process.dead) throw new Crash('SIGKILL')
      const reply: Reply = { process, store, what, transition, resolve, reject }
      // Run now (its answer comes later) or when answered; a SIGKILL in it rejects this promise with the crash.
      if (this.rng() < 0.5) this.runReply(reply)
      this.replies.push(reply)
      this.cover(`off the loop: ${what} ${reply.outcome === undefined ? 'run when answered' : 'run, answered later'}`)
    })
  }

  private runReply(reply: Reply): void {
    try {
      reply.outcome = { ok: true, value: reply.transition() }
    } catch (error: unknown) {
      if (error instanceof Crash) throw error
      reply.outcome = { ok: false, error }
    }
  }

  /** The worker answers `reply` (running its transaction first if it had not run). */
  private answer(reply: Reply): void {
    this.replies.splice(this.replies.indexOf(reply), 1)
    this.as(reply.process, `worker answers ${reply.what}`, () => {
      try {
        if (reply.outcome === undefined) this.runReply(reply)
      } catch (error: unknown) {
        // A SIGKILL while it ran: what waited for it ends with the process.
        reply.reject(error)
        throw error
      }
      const outcome = reply.outcome!
      if (outcome.ok) reply.resolve(outcome.value)
      else reply.reject(outcome.error)
    })
  }

  /** `store` was closed: what its worker had not answered is rejected as a store fault (a process that is gone, as gone). */
  closeReplies(store: object): void {
    for (const reply of this.replies.filter(each => each.store === store)) {
      this.replies.splice(this.replies.indexOf(reply), 1)
      reply.reject(reply.process.dead ? new Crash('gone') : storeFault('the cross-session store is unavailable (the store was closed)', 'the store was closed'))
    }
  }

  /** Whether this disposal is SIGKILLed before its drain (see {@link killAtDrain}). */
  killsAtDrain(): boolean {
    return this.killAtDrain > 0 && !this.calmed && this.rng() < this.killAtDrain
  }

  private readonly tracing: boolean

  readonly orderOver: OrderOver

  /** Whether a sender's user also withdraws messages (`withdraw` steps). */
  readonly withdraws: boolean

  constructor(world: CrashWorld, seed: number, fault: StoreFault, tracing: boolean, orderOver: OrderOver = 'store', withdraws = false) {
    this.withdraws = withdraws
    this.world = world
    this.fault = fault
    this.orderOver = orderOver
    this.tracing = tracing
    this.rng = mulberry32(seed)
    const prefix = `h${seed}-${world.nextPid}`
    this.sessions = Array.from({ length: 2 + this.int(2) }, (_, index) => `${prefix}-s${index}`)
    this.senders = Array.from({ length: 2 + this.int(2) }, (_, index) => `${prefix}-from${index}`)
    this.maxProcesses = 2 + this.int(3)
    this.everyone = [...this.sessions, ...this.senders]
    for (const sessionId of this.everyone) this.logs.set(sessionId, new SessionLog(sessionId, this.broken))
    this.prefix = `${prefix}-`
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

  /** The liveness probe every store uses: the real `judgeAlive` over the simulated `/proc`. */
  alive(tag: ProcessTag): boolean {
    const dead = this.world.dead.has(key(tag))
    // `kill(pid, 0)` answers ESRCH and there is no `/proc/<pid>`: gone.
    if (dead && !this.zombies.has(key(tag))) return judgeAlive(tag, { signal: 'dead', start: undefined })
    // A zombie still answers `kill(pid, 0)` and keeps its `/proc/<pid>/stat`, as Linux writes it (proc(5)): field 3, the
    // state, is `Z`; field 22 the start time. Read by the shipped parsers.
    const stat = `${tag.pid} (dsh) ${dead ? 'Z' : 'S'} 1 ${STAT_FIELDS_5_TO_21} ${tag.start} 0 0`
    return judgeAlive(tag, { signal: 'alive', start: parseStartTime(stat), state: parseState(stat) })
  }

  /**
   * On PostgreSQL: tell the store's worker threads what a process of this machine reads before a transition (the
   * store's clock: one reading of the schedule's clock; and which processes live, each judged by {@link alive}, in
   * `home/pg/simulated-machine.ts`'s slots), as the worker judges a process of its own machine by pid + start time.
   */
  publish(): void {
    const machine = this.world.pg?.machine
    if (machine === undefined) return
    setSimulatedClock(machine, Date.now())
    for (const process of this.processes) setSimulatedProcess(machine, process.tag, this.alive(process.tag))
  }

  /** Steps left with the server out of reach (the `down` fault). */
  private downSteps = 0

  /** After a step: the server out of reach is reachable again once its steps are over. */
  stepped(): void {
    if (this.downSteps > 0 && --this.downSteps === 0) this.reachable()
  }

  /** The server is reachable again (the gate opened: test/support/pg-side.ts). */
  reachable(): void {
    if (this.downSteps > 0) this.note('the server is reachable again')
    this.downSteps = 0
    this.world.pg?.gate(true)
  }

  /** The simulated clock, ms: `Date.now` ticks once per reading (timestamps never repeat, a replay is exact). */
  clock = 0
  /** Timers set while the schedule runs with store faults (the supervisor's retry, a retried store step's pause). */
  private readonly timers = new Map<number, { readonly due: number, readonly fire: () => void }>()
  private nextTimer = 1

  /** `setTimeout` on the simulated clock: fired between steps once due, in order (so a replay is exact). */
  setTimer(fire: () => void, ms: number): { id: number, unref(): unknown, ref(): unknown, hasRef(): boolean } {
    const id = this.nextTimer++
    this.timers.set(id, { due: this.clock + Math.ceil(Math.max(0, ms)), fire })
    const timer = { id, unref: () => timer, ref: () => timer, hasRef: () => false }
    return timer
  }

  clearTimer(id: number): void {
    this.timers.delete(id)
  }

  /** Fire the timers due (`all`: time passes until every timer set has fired, as in the calm phase). */
  private async fireTimers(all: boolean): Promise<boolean> {
    let fired = false
    for (let round = 0; round < 200; round++) {
      const next = [...this.timers].sort(([a, x], [b, y]) => x.due - y.due || a - b)[0]
      if (next === undefined || (!all && next[1].due > this.clock)) break
      if (next[1].due > this.clock) this.clock = next[1].due
      this.timers.delete(next[0])
      next[1].fire()
      fired = true
      await settle()
    }
    return fired
  }

  living(): Proc[] {
    return this.processes.filter(process => !process.dead && !this.world.dead.has(key(process.tag)))
  }

  /** The session resumed in `process` from its log on disk. */
  resume(sessionId: string, process: Proc): SimAgent {
    const log = this.logs.get(sessionId)!
    const writer = log.writer as Proc | undefined
    if (writer !== undefined && writer !== process && !writer.dead && writer.agents.has(sessionId)) this.fail(`ONE HOLDER: p${process.tag.pid} resumes ${sessionId}, live in p${writer.tag.pid}`)
    if (log.unpersisted > 0) this.fail(`the model: ${sessionId} resumed with ${log.unpersisted} events its last writer neither wrote nor lost`)
    log.writer = process
    this.cover('resumed')
    return new SimAgent(log, process.op, text => this.note(text))
  }

  spawn(longLived = this.rng() < 0.3): Proc {
    const process = new Proc(this, this.world.nextPid++, longLived)
    this.processes.push(process)
    this.note(`spawn p${process.tag.pid}${longLived ? ' (long-lived)' : ''}`)
    this.as(process, 'start', () => process.start())
    return process
  }

  /** SIGKILL: no cleanup; what its logs had not written is gone; its flushes never settle. */
  kill(process: Proc, zombie = false): void {
    process.dead = true
    // Its code is gone: what waited for its worker's answers ends with it (never answered; unrun transactions never run).
    for (const reply of this.replies.filter(each => each.process === process)) {
      this.replies.splice(this.replies.indexOf(reply), 1)
      reply.reject(new Crash('SIGKILL'))
    }
    this.world.dead.add(key(process.tag))
    if (zombie) this.zombies.add(key(process.tag))
    for (const log of this.logs.values()) {
      if (log.writer !== process) continue
      if (log.lose().length > 0) this.cover('SIGKILL lost a user/message')
    }
    process.agents.clear()
    process.flushes.length = 0
    process.disconnect()
    this.crashes++
  }

  /** A clean exit: each agent disposed (its log written), the flushes awaited settle, then the exit hook (`leave`). */
  exit(process: Proc): void {
    for (const sessionId of [...process.agents.keys()]) process.dispose(sessionId)
    for (const flush of process.flushes.splice(0)) flush.resolve()
    process.exitHook?.()
    process.dead = true
    this.world.dead.add(key(process.tag))
    process.disconnect()
  }

  /** Run `work` as a step of `process`, with a SIGKILL armed inside it sometimes; async work goes on in the background. */
  as(process: Proc, what: string, work: () => void | Promise<void>): void {
    this.note(`p${process.tag.pid} ${what}`)
    process.budget = this.calmed ? undefined : this.rng() < 0.04 ? this.int(4) : undefined
    const crashed = (error: unknown): void => {
      if (error instanceof Crash || process.dead) return
      if (error instanceof InvariantBroken) this.broken.push(error.message)
      else if (!isStoreFault(error)) this.broken.push(`p${process.tag.pid} ${what} threw: ${String((error as Error).stack ?? error)}`)
    }
    try {
      const done = work()
      if (done instanceof Promise) {
        const tracked = done.catch(crashed).finally(() => this.inFlight.delete(tracked))
        this.inFlight.add(tracked)
      }
    } catch (error: unknown) {
      crashed(error)
    } finally {
      process.budget = undefined
    }
  }

  /** After a step: a process whose code hit its SIGKILL is killed now. */
  reap(): void {
    for (const process of this.processes) {
      if (process.dead && !this.world.dead.has(key(process.tag))) {
        this.note(`  SIGKILL p${process.tag.pid}`)
        this.cover('SIGKILL inside a step')
        this.kill(process)
      }
    }
  }

  private action(): Action | 'withdraw' {
    // Only a schedule of a fault no SQLite schedule has draws from other weights: every SQLite schedule draws as before.
    const [weights, total] = this.withdraws ? [WITHDRAW_WEIGHTS, WITHDRAW_TOTAL] : this.fault === 'down' ? [DOWN_WEIGHTS, DOWN_TOTAL] : [WEIGHTS, TOTAL]
    let roll = this.rng() * total
    for (const [action, weight] of weights) {
      roll -= weight
      if (roll < 0) return action
    }
    return 'send'
  }

  /** One random step; @returns whether anything was done. */
  step(): boolean {
    const living = this.living()
    if (living.length === 0) {
      this.spawn()
      return true
    }
    const answerable = this.replies.filter(reply => !reply.process.dead)
    if (this.offLoop && answerable.length > 0 && this.rng() < 0.35) {
      this.answer(this.pick(answerable)!)
      return true
    }
    const process = this.pick(living)!
    const action = this.action()
    this.cover(action)
    switch (action) {
      case 'spawn':
        if (living.length >= this.maxProcesses) return false
        this.spawn()
        return true
      case 'send':
        return this.send(process)
      case 'withdraw':
        return this.withdraw(process)
      case 'inbound': {
        const target = this.pick(this.sessions)!
        const mode = this.pick(['refuse', 'hold', 'accept', null] as const)!
        // The target's user, in the web UI of any process (the real channel).
        this.as(process, `inbound ${target} ${mode}`, async () => {
          const answered = await answerChannel({ runtime: process.runtime, sessions: {} as never, inbound: () => 'accept', decided: () => undefined, log: () => undefined, home: NO_REACH }, 'inbound.set', { sessionId: target, mode }, new AbortController().signal)
          if (answered.ok) this.cover(`inbound ${mode}`)
        })
        return true
      }
      case 'decide': {
        const held = this.pick(this.sent.filter(message => message.held === true))
        if (held === undefined) return false
        const decision = this.rng() < 0.6 ? 'deliver' : 'refuse'
        // The target's user clicks Deliver or Refuse in the web UI of any process (the real channel, as home/mount.ts serves it).
        this.as(process, `${decision} ${held.id}`, async () => {
          const host = { runtime: process.runtime, sessions: {} as never, inbound: () => 'accept' as const, decided: (approval: Parameters<typeof approvalDecided>[1]) => approvalDecided(process.runtime.store, approval, line => process.logged.push(line)), log: (line: string) => process.logged.push(line), home: NO_REACH }
          const answered = await answerChannel(host, 'approvals.decide', { messageId: held.id, decision }, new AbortController().signal)
          if (!answered.ok) return
          const { state, reason } = answered.value as { state: string, reason?: string }
          if (reason === undefined) this.cover(`held message ${state}`)
          const stored = this.world.checker.approvalRows(held.id).find(row => row.message_id === held.id)?.state
          // A withdrawn message is stored `refused` with reason `withdrawn` (src/home/store-withdraw.ts).
          if (stored !== state && !(state === 'withdrawn' && stored === 'refused')) this.fail(`ONE DECISION: ${decision} of ${held.id} answered ${state}; the store says ${stored ?? 'nothing'}`)
        })
        return true
      }
      case 'turn': {
        const live = this.pick(living.flatMap(each => [...each.agents.values()].filter(agent => agent.status === 'running').map(agent => [each, agent] as const)))
        if (live === undefined) return false
        const [owner, agent] = live
        this.as(owner, `turn ${agent.id}`, () => {
          agent.step()
          // rc.8 emits `session/event` as it appends; here most of the time.
          if (this.rng() < 0.7) owner.runtime.onSessionEvent(agent.id)
        })
        return true
      }
      case 'tick':
        this.as(process, 'tick', () => tickOf(process))
        return true
      case 'flush': {
        const flush = process.flushes.shift()
        if (flush === undefined) return false
        const ok = this.rng() >= 0.08
        this.as(process, `flush ${flush.agent.id}${ok ? '' : ' (rejected)'}`, () => {
          process.op()
          if (ok) flush.resolve()
          else flush.reject(new Error('write failed'))
        })
        return true
      }
      case 'write': {
        const log = this.pick([...this.logs.values()].filter(each => each.writer === process && each.unpersisted > 0))
        if (log === undefined) return false
        const upTo = log.persisted + 1 + this.int(log.unpersisted)
        this.as(process, `write ${log.id} up to seq ${upTo}`, () => {
          process.op()
          log.persist(upTo)
        })
        return true
      }
      case 'release': {
        const sessionId = this.pick([...process.agents.keys()])
        if (sessionId === undefined) return false
        this.as(process, `release ${sessionId}`, () => process.dispose(sessionId))
        return true
      }
      case 'exit':
        this.as(process, 'exit', () => this.exit(process))
        return true
      case 'kill':
        this.note(`p${process.tag.pid} SIGKILL${this.fault === 'zombie' ? ' (a zombie until reaped)' : ''}`)
        this.kill(process, this.fault === 'zombie')
        return true
      case 'reload':
        // A plugin reload: the old runtime stops, a new one starts on a new connection, the agents still live.
        this.as(process, 'reload', () => {
          process.runtime.stop()
          process.start()
        })
        return true
      case 'fault':
        return this.storeFault(process)
    }
  }

  private storeFault(process: Proc): boolean {
    switch (this.fault) {
      case 'busy':
        process.busy = 1 + this.int(4)
        this.note(`p${process.tag.pid}: its next ${process.busy} store calls find the store locked past the wait`)
        return true
      case 'full':
        process.full = 1 + this.int(4)
        this.note(`p${process.tag.pid}: its next ${process.full} write transitions find the disk full`)
        return true
      case 'zombie': {
        const zombie = this.pick([...this.zombies])
        if (zombie === undefined) return false
        this.note(`zombie ${zombie} reaped`)
        this.zombies.delete(zombie)
        this.cover('zombie reaped')
        return true
      }
      case 'down': {
        const pg = this.world.pg
        if (pg === undefined || this.downSteps > 0) return false
        // From now until the end of the next 1–4 steps: connections reset, new ones refused (test/support/pg-side.ts).
        this.downSteps = 2 + this.int(4)
        this.note(`the server is out of reach, for the next ${this.downSteps - 1} steps`)
        pg.gate(false)
        this.cover('server out of reach')
        return true
      }
      case 'replace':
        if (this.replaced) return false
        this.note('the store file is deleted')
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${storePaths(this.world.home).file}${suffix}`, { force: true })
        // A process starting now makes the new file; every running one moves to it once it notices (home/store-supervisor.ts).
        this.world.moved()
        for (const message of this.sent) message.beforeReplace = true
        this.replaced = true
        // Each store watch's next poll (home/store-watch.ts, every second) notices it before the next step: the window
        // before that is documented unprotected (docs/architecture.md §8, "When the store fails").
        for (const other of this.living()) this.as(other, 'store watch poll', () => void other.runtime.store.changed())
        this.cover('store replaced')
        return true
      default:
        return false
    }
  }

  /** A sender sends through `process`: the real decision, then the guard. */
  private send(anyProcess: Proc): boolean {
    const sender = this.pick(this.senders)!
    // A sender session is live in one process at a time; when that one is gone it is resumed in another.
    let process = this.senderIn.get(sender)
    if (process === undefined || process.dead) {
      process = anyProcess
      this.senderIn.set(sender, process)
    }
    const target = this.pick(this.sessions)!
    const mode = this.rng() < 0.7 ? 'queue' as const : 'steer' as const
    const id = `${target}-m${this.sent.length}`
    const choiceAtStart = this.ownChoice(target)
    const message: Sent = { id, sender, target, mode, choiceAtStart }
    this.sent.push(message)
    const mayWake = this.rng() < 0.85
    const notify = this.rng() < 0.35
    this.as(process, `send ${id} → ${target} (${mode})`, async () => {
      const signal = new AbortController().signal
      const call: Parameters<typeof gatherAndDecide>[1] = { caller: { sessionId: sender, header: { id: sender, createdAt: 1 }, latestRelay: () => undefined }, callId: id, signal }
      const deps: Parameters<typeof gatherAndDecide>[2] = {
        sessions: { lookup: async (sessionId: string) => ({ header: { id: sessionId, createdAt: 1 }, live: false }), readTitles: async () => new Map() } as unknown as ToolDeps['sessions'],
        controller: process.guard,
        settings: { ...DEFAULT_SETTINGS, visibility: 'all' as const, inbound: 'accept' as const, holdExpiryMs: HOLD_EXPIRY_MS },
        limits: { check: () => ({ kind: 'ok' as const, hop: 1 }) } as unknown as ToolDeps['limits'],
        inbound: process.store,
        log: (line: string) => process.logged.push(line),
      }
      const decided = await gatherAndDecide({ callerId: sender, targetId: target, body: `text of ${id}`, allowResume: mayWake }, call, deps)
      this.note(`  ${id}: ${decided.kind}`)
      if (decided.kind === 'refused') {
        message.refused = decided.inbound === true
        if (decided.inbound === true) this.cover('send refused: inbound')
        return
      }
      if (decided.kind === 'hold') {
        // The real hold (tools/send/hold.ts): kept for the target's user; nothing of the target is touched.
        const out = { callerId: sender, targetId: target, mode, hop: decided.hop, requestId: id, body: `text of ${id}` }
        const text = await holdMessage({ out, cut: truncateChars(out.body, 4000), notify }, call, deps)
        message.held = text.includes('held for its user\'s approval')
        this.note(`  ${text.split('\n')[0]!}`)
        if (message.held) this.cover('sent held')
        return
      }
      const resolved = await process.guard.resolve(target, { mayWake, signal })
      if (!resolved.ok) {
        this.cover(`send not resolved: ${resolved.reason.kind}`)
        return
      }
      // With `notify`, the watch is registered before the admission (tools/send/deliver.ts `watchAnswer`), withdrawn when not accepted.
      const watched = notify && process.guard.watchAnswer?.({ requestId: id, senderSessionId: sender, targetId: target, hop: 1, mayWake: true, maxHops: 8, perMinute: 100, ttlMs: 3_600_000 }) === true
      const admitted = await process.guard.admit(resolved.value, { requestId: id, mode, text: `text of ${id}`, provenance: { senderSessionId: sender, hop: 1 }, signal })
      if (!admitted.ok) {
        if (watched) process.guard.unwatchAnswer?.(id)
        return
      }
      message.via = resolved.value.remote === undefined ? 'local' : 'store'
      this.cover(`sent ${message.via}${resolved.value.remote?.handoff === true ? ' (hand-over)' : resolved.value.woke ? ' (woke)' : ''}`)
    })
    return true
  }

  // ---- Withdraw steps (only with `withdraws: true`) ----
  /** A sender's user withdraws one of its messages in the web UI of any process (the real channel, as home/mount.ts serves it). */
  private withdraw(process: Proc): boolean {
    const message = this.pick(this.sent.filter(each => each.refused !== true))
    if (message === undefined) return false
    this.as(process, `withdraw ${message.id}`, async () => {
      const host = { runtime: process.runtime, sessions: {} as never, inbound: () => 'accept' as const, decided: () => undefined, log: (line: string) => process.logged.push(line), home: NO_REACH }
      // Read in the same synchronous run as the transition (nothing else runs in between): where it was when withdrawn.
      const before = this.world.checker.messageRows(this.firstOrder).find(row => row.message_id === message.id)
      const answered = await answerChannel(host, 'messages.withdraw', { messageId: message.id, sender: message.sender }, new AbortController().signal)
      if (!answered.ok) return
      const { state, where } = answered.value as { state: string, where?: { kind: string } }
      this.note(`  ${message.id}: ${state}${where === undefined ? '' : ` (${where.kind})`}, was ${before?.state ?? 'not in the queue'}`)
      if (state === 'withdrawn') {
        if (before !== undefined && (before.state === 'claimed' || before.state === 'recorded')) this.fail(`NOT CLAIMED: ${message.id} was withdrawn while ${before.state}`)
        if (this.logs.get(message.target)!.userIndex(message.id) >= 0) this.fail(`WITHDRAWN: ${message.id} was withdrawn and is in ${message.target}'s log`)
        message.withdrawn = true
        this.cover(`withdrawn (${before === undefined ? 'held' : 'pending'})`)
        return
      }
      // Pending and never claimed: the withdraw wins; pending after a claim was handed back: it may be in the log, so it loses.
      if (before?.state === 'pending' && state === 'too-late' && where?.kind !== 'handed-back') this.fail(`WITHDRAWN: ${message.id} was pending in the queue and the withdraw answered too late (${where?.kind ?? '?'})`)
      this.cover(`withdraw ${state}${where === undefined ? '' : `: ${where.kind}`}`)
    })
    return true
  }

  /** WITHDRAWN: a withdrawn message stays withdrawn in the store and never reaches its target's log. */
  private checkWithdrawn(messages: ReadonlyMap<string, { state: string, reason: string | null }>): void {
    for (const message of this.sent) {
      if (message.withdrawn !== true) continue
      const row = messages.get(message.id)
      if (row !== undefined && (row.state !== 'refused' || row.reason !== 'withdrawn')) this.fail(`WITHDRAWN: ${message.id} was withdrawn and is ${row.state} in the store`)
      if (this.logs.get(message.target)!.userIndex(message.id) >= 0) this.fail(`WITHDRAWN: ${message.id} was withdrawn and reached ${message.target}'s log`)
    }
  }
  // ---- end of withdraw steps ----

  /** The target's own choice as the store has it now (read through the checker's connection). */
  private ownChoice(target: string): string | undefined {
    return this.world.checker.inboundOf(target)
  }

  /** The invariants, against the store as another connection reads it, and the logs. */
  check(): void {
    if (this.broken.length > 0) this.fail(this.broken[0]!)
    const checker = this.world.checker
    const rows = new Map(checker.holdersOf(this.everyone).map(row => [row.session_id, row]))
    for (const sessionId of this.everyone) {
      const holders = this.living().filter(process => process.runtime.holds(sessionId))
      if (holders.length > 1) this.fail(`ONE HOLDER: ${sessionId} is held by ${holders.map(process => `p${process.tag.pid}`).join(' and ')}`)
      const row = rows.get(sessionId)
      const stored = row?.pid === null || row?.pid === undefined || !this.alive({ pid: row.pid, start: row.start ?? 0 }) ? undefined : row
      const holder = holders[0]
      if (holder !== undefined && stored?.pid !== holder.tag.pid) this.fail(`ONE HOLDER: p${holder.tag.pid} holds ${sessionId} live; the store says ${stored === undefined ? 'nobody living' : `p${stored.pid}`}`)
      // A `waking` row belongs to a wake under way in its process; a `live` row to a process that holds the session.
      // A runtime started while its store could not be used holds nothing yet: its process still has the session live, as
      // the row says, and the runtime holds it again once the supervisor opens the store (`rejoin`, home/runtime.ts).
      const down = stored === undefined ? undefined : this.living().find(process => process.tag.pid === stored.pid && process.agents.has(sessionId) && !process.supervisor.status().open)
      // A release that met a locked store, or one made while the process's store is down, leaves the row as it was
      // (memory changes only after the write): the process's next tick, or its rejoin, lets it go (its reconcile,
      // home/runtime.ts); LIVENESS after the calm phase holds it to that.
      const unreleased = stored === undefined || holder !== undefined ? undefined
        : this.living().find(process => process.tag.pid === stored.pid && (process.lockedSinceTick || !process.supervisor.status().open))
      if (down !== undefined) this.cover('store down: the row of a session live here kept until the rejoin')
      else if (unreleased !== undefined) this.cover('store locked or down: a release left to the reconcile')
      else if (holder === undefined && stored !== undefined && stored.state === 'live' && !this.zombies.has(`${stored.pid}.${stored.start}`)) this.fail(`ONE HOLDER: the store says p${stored.pid} holds ${sessionId} live; it does not`)
    }
    const messages = new Map(checker.messageRows(this.firstOrder).map(row => [row.message_id, row]))
    const approvals = new Map(this.sent.some(message => message.held === true) ? checker.approvalRows(this.prefix).map(row => [row.message_id, row.state]) : [])
    for (const [id, state] of approvals) if (state !== 'held' && !this.decidedSeen.has(id)) this.decidedSeen.set(id, state)
    for (const message of this.sent) {
      const row = messages.get(message.id)
      const log = this.logs.get(message.target)!
      const reached = row !== undefined || log.userIndex(message.id) >= 0
      const decided = message.held === true || message.choiceAtStart === 'hold' ? this.decidedSeen.get(message.id) ?? approvals.get(message.id) : undefined
      // A send decided after a store fault reads the choice then: held under it, and delivered by its user, is consent.
      if (message.choiceAtStart === 'refuse' && this.ownChoice(message.target) === 'refuse' && reached && decided !== 'delivered') {
        this.fail(`INBOUND: ${message.id} was sent while ${message.target}'s own choice was refuse, and ${row === undefined ? 'reached its log' : `is ${row.state} in the store`}`)
      }
      // NOTHING EARLY: a held message reaches the store's messages and the log only once its user delivered it.
      if (message.choiceAtStart === 'hold' && this.ownChoice(message.target) === 'hold' && message.held !== true && reached) this.fail(`INBOUND: ${message.id} was sent while ${message.target}'s own choice was hold, and reached it without being held`)
      if (message.held === true && decided !== 'delivered' && reached) this.fail(`NOTHING EARLY: ${message.id} is ${decided ?? 'gone'} for its user and ${row === undefined ? 'in its target\'s log' : `${row.state} in the store`}`)
      if (row === undefined) continue
      const before = this.recordedSeq.get(message.id)
      if (before !== undefined && (row.state !== 'recorded' || row.seq !== before)) this.fail(`ONE MESSAGE STATE: ${message.id} was recorded at seq ${before}, now ${row.state} ${row.seq}`)
      if (row.state !== 'recorded') continue
      const seq = row.seq ?? 0
      const event = log.events[seq - 1]
      if (event?.type !== 'user/message' || event.data.id !== message.id) this.fail(`ONE MESSAGE STATE: the store says ${message.id} is recorded at seq ${seq}; the log has ${event?.type ?? 'nothing'} there`)
      if (this.recordedMeans === 'persisted' && seq > log.persisted) this.fail(`ONE MESSAGE STATE: the store says ${message.id} is recorded at seq ${seq}; the log on disk ends at seq ${log.persisted}`)
      this.recordedSeq.set(message.id, seq)
    }
    // A notice is a message too: recorded means at that seq of its target's log on disk.
    for (const row of messages.values()) {
      if (!row.message_id.startsWith('notice:') || row.state !== 'recorded') continue
      const log = this.logs.get(row.target)
      const event = log?.events[(row.seq ?? 0) - 1]
      if (log === undefined || event?.type !== 'user/message' || event.data.id !== row.message_id || (this.recordedMeans === 'persisted' && (row.seq ?? 0) > log.persisted)) this.fail(`ONE MESSAGE STATE: the store says ${row.message_id} is recorded at seq ${row.seq}; ${row.target}'s log ${log === undefined ? 'is not this schedule\'s' : `has ${event?.type ?? 'nothing'} there, on disk up to ${log.persisted}`}`)
    }
    this.checkNotices(new Set(messages.keys()))
    this.checkWithdrawn(messages)
  }

  /**
   * ONE NOTICE: a watch is `noticed` exactly when its one notice row exists.
   * FROM THE DISK: a noticed watch names the first turn end after its message
   * in the target's log on disk, with that turn's outcome.
   */
  private checkNotices(rows: ReadonlySet<string>): void {
    for (const watch of this.world.checker.watchRows(this.prefix)) {
      const notice = rows.has(`notice:${watch.message_id}`)
      if ((watch.state === 'noticed') !== notice) this.fail(`ONE NOTICE: watch ${watch.message_id} is ${watch.state} and its notice row ${notice ? 'exists' : 'is absent'}`)
      if (watch.state !== 'noticed') continue
      // A held message refused or expired tells its sender so without any turn (home/approval-notices.ts: turn end 0).
      if (watch.turn_end_seq === 0 && (watch.outcome === 'refused' || watch.outcome === 'expired')) continue
      const log = this.logs.get(watch.target)!
      const at = log.userIndex(watch.message_id)
      const end = at < 0 ? undefined : log.events.slice(at).find(event => event.type === 'turn/end')
      if (end === undefined || end.seq !== watch.turn_end_seq || end.seq > log.persisted) {
        this.fail(`FROM THE DISK: watch ${watch.message_id} noticed turn end ${watch.turn_end_seq}; ${watch.target}'s log ${end === undefined ? 'holds no turn end after the message' : `has it at ${end.seq}, on disk up to ${log.persisted}`}`)
      }
      this.cover('noticed')
    }
  }

  /** Let what runs in the background run, then reap and check. */
  async after(): Promise<void> {
    await settle()
    await this.fireTimers(this.calmed)
    this.reap()
    this.check()
  }

  /** The store watch of each other living process sees the step's commits (`home/store-watch.ts`): most tick now. */
  async watched(): Promise<void> {
    for (const process of this.living()) if (this.rng() < 0.5) this.as(process, 'tick (store watch)', () => tickOf(process))
    await this.after()
  }

  /** No more faults, sends or crashes: every living process runs until nothing moves; then nothing waits for a session live in a living process. */
  async calm(): Promise<void> {
    this.note('calm')
    this.calmed = true
    this.reachable()
    // A zombie is dead (its code runs no more): a session it holds must not stay held until it is reaped.
    const rows = this.world.checker.holdersOf(this.everyone)
    const zombie = rows.find(row => row.pid !== null && this.zombies.has(`${row.pid}.${row.start}`))
    if (zombie !== undefined && this.alive({ pid: zombie.pid!, start: zombie.start ?? 0 })) this.fail(`LIVENESS: ${zombie.session_id} stays held by p${zombie.pid}, a zombie (killed, not yet reaped), judged alive`)
    this.zombies.clear()
    for (const process of this.living()) {
      process.busy = 0
      process.full = 0
    }
    await this.quiesce(() => this.living(), 'LIVENESS')
    const live = new Set(this.living().flatMap(process => [...process.agents.keys()].filter(id => process.runtime.holds(id))))
    const stalled = this.world.checker.messageRows(this.firstOrder).filter(row => (row.state === 'pending' || row.state === 'claimed') && live.has(row.target))
    if (stalled.length > 0) this.fail(`LIVENESS: ${stalled.map(row => `${row.message_id} ${row.state}`).join(', ')} still wait for a session live in a living process`)
  }

  /** One round as the processes' own loops run it: flushes settle, turns run, a tick. @returns whether anything moved. */
  private async round(processes: Proc[]): Promise<boolean> {
    let moved = this.inFlight.size > 0
    for (const reply of this.replies.filter(each => processes.includes(each.process))) {
      moved = true
      this.answer(reply)
    }
    for (const process of processes) {
      for (const flush of process.flushes.splice(0)) {
        moved = true
        this.as(process, `flush ${flush.agent.id}`, () => flush.resolve())
      }
      // A resolved flush's continuation runs before the agent's next append (rc.8 appends from later I/O callbacks).
      await settle()
      for (const agent of [...process.agents.values()]) {
        while (agent.status === 'running' && agent.step()) moved = true
        this.as(process, `settle ${agent.id}`, () => process.runtime.onSessionEvent(agent.id))
      }
      this.as(process, 'tick', () => tickOf(process))
    }
    await settle()
    if (moved || this.inFlight.size > 0 || processes.some(process => process.flushes.length > 0 || [...process.agents.values()].some(agent => agent.status === 'running'))) return true
    // Something posted meanwhile (a notice, an expiry's notice) for a session live here: the next tick delivers it.
    const live = new Set(processes.flatMap(process => [...process.agents.keys()]))
    return this.world.checker.messageRows(this.firstOrder).some(row => row.state === 'pending' && live.has(row.target))
  }

  /** Rounds until three in a row move nothing (an adoption or a wake starts in one round and lands in the next). */
  private async quiesce(processes: () => Proc[], what: string): Promise<void> {
    for (let round = 0, idle = 0; idle < 3; round++) {
      if (round > 300) this.fail(`${what}: the processes did not settle in 300 rounds`)
      idle = await this.round(processes()) ? 0 : idle + 1
      await this.after()
    }
  }

  /** Every process ends; a long-lived recovery host adopts every session with waiting messages and runs until nothing moves. */
  async recover(): Promise<void> {
    for (const process of this.living()) {
      if (this.rng() < 0.5) this.kill(process)
      else this.as(process, 'exit', () => this.exit(process))
    }
    this.zombies.clear()
    await this.after()
    this.note('recovery')
    const recovery = this.spawn(true)
    await this.orphanLook(recovery)
    // Time passes: every message still held for its user expires (its sender told, if it asked), as a tick would.
    this.as(recovery, 'expire what is held', () => {
      for (const approval of recovery.store.expireApprovals(Number.MAX_SAFE_INTEGER)) recovery.runtime.expired?.(approval)
    })
    // A replaced store file lost which holders died: a log a dead writer left in an open turn blocks a wake until that
    // turn is no longer recent (home/open-turn.ts), so time passes that long first.
    if (this.fault === 'replace') this.clock += OPEN_TURN_RECENT_MS
    // It wakes every session through its guard (a sender too: a notice may wait for it without leave to wake it).
    for (const sessionId of this.everyone) this.as(recovery, `wake ${sessionId}`, async () => { await recovery.guard.resolve(sessionId, { mayWake: true, signal: new AbortController().signal }) })
    await this.quiesce(() => [recovery], 'recovery')
    const waiting = this.world.checker.messageRows(this.firstOrder).filter(row => row.state === 'pending' || row.state === 'claimed')
    if (waiting.length > 0) this.fail(`recovery left ${waiting.map(row => `${row.message_id} ${row.state} for ${row.target}`).join(', ')} (live there: ${[...recovery.agents.keys()].join(', ')}; ${recovery.logged.join(' / ')})`)
    for (const sessionId of [...recovery.agents.keys()]) recovery.dispose(sessionId)
    const rows = this.world.checker.messageRows(this.firstOrder)
    // A message still waiting when its target's user chose `refuse` is refused, never delivered (docs/tools.md, "Inbound messages").
    const refusedByUser = new Set(rows.filter(row => row.state === 'refused' && row.reason === 'inbound-refused').map(row => row.message_id))
    this.finalCheck(new Map(rows.map(row => [row.message_id, row.n])), refusedByUser)
    for (const row of rows) if (row.message_id.startsWith('notice:') && this.logs.get(row.target)!.userIndex(row.message_id) < 0) this.fail(`DELIVERY: ${row.message_id} never reached ${row.target}`)
    for (const watch of this.world.checker.watchRows(this.prefix)) {
      if (watch.state === 'watching' && this.logs.get(watch.target)!.userIndex(watch.message_id) >= 0) this.fail(`LIVENESS: watch ${watch.message_id} still watching after its message's turn ran`)
    }
    recovery.store.sweep(Date.now(), 0)
    recovery.exitHook?.()
    this.world.dead.add(key(recovery.tag))
    recovery.dead = true
    recovery.disconnect()
  }

  /**
   * ORPHAN LOOK: every process that held a target is gone, and a long-lived
   * host's tick reads the log on disk of each watched session without a
   * living holder (`home/orphan-watches.ts`): afterwards no watch of such a
   * session whose message and a later turn end are on disk is still
   * `watching` (nothing wakes a session for a watch).
   */
  private async orphanLook(host: Proc): Promise<void> {
    const watching = new Set(this.world.checker.watchRows(this.prefix).filter(watch => watch.state === 'watching').map(watch => watch.message_id))
    this.as(host, 'tick (orphan look)', () => tickOf(host))
    await this.after()
    const held = new Set(this.world.checker.holdersOf(this.everyone)
      .filter(row => row.pid !== null && this.alive({ pid: row.pid, start: row.start ?? 0 })).map(row => row.session_id))
    for (const watch of this.world.checker.watchRows(this.prefix)) {
      if (held.has(watch.target)) continue
      if (watch.state !== 'watching') {
        if (watching.has(watch.message_id)) this.cover('orphan look noticed')
        continue
      }
      const log = this.logs.get(watch.target)!
      const onDisk = log.events.slice(0, log.persisted)
      const at = onDisk.findIndex(event => event.type === 'user/message' && event.data.id === watch.message_id)
      if (at >= 0 && onDisk.slice(at).some(event => event.type === 'turn/end')) this.fail(`ORPHAN LOOK: watch ${watch.message_id} is still watching; its turn ended in ${watch.target}'s log on disk, which nobody living holds`)
    }
  }

  /** DELIVERY and ORDER. */
  private finalCheck(stored: ReadonlyMap<string, number>, refusedByUser: ReadonlySet<string>): void {
    const last = new Map<string, number>()
    const inOrder = this.orderOver === 'store' ? [...this.sent].sort((a, b) => (stored.get(a.id) ?? 0) - (stored.get(b.id) ?? 0)) : this.sent
    for (const message of inOrder) {
      const log = this.logs.get(message.target)!
      const index = log.userIndex(message.id)
      if (message.withdrawn === true) {
        if (index >= 0) this.fail(`WITHDRAWN: ${message.id} was withdrawn and is in ${message.target}'s log`)
        continue
      }
      if (refusedByUser.has(message.id)) {
        if (index >= 0) this.fail(`INBOUND: ${message.id} was refused at its target's switch to refuse and is in ${message.target}'s log`)
        this.cover('refused while waiting, at a switch to refuse')
        continue
      }
      if (stored.has(message.id) && index < 0) this.fail(`DELIVERY: ${message.id} went through the store and never reached ${message.target} (${deliveryState(log.events, message.id).kind} in its log)`)
      if (message.beforeReplace === true && !stored.has(message.id) && index < 0) {
        // Documented (docs/architecture.md §8, "When the store fails"): a message only the deleted file held is lost.
        this.cover('lost with the deleted store file')
        continue
      }
      if (message.via === 'store' && !stored.has(message.id) && index < 0) this.fail(`DELIVERY: ${message.id} was accepted through the store and is neither in it nor in ${message.target}'s log`)
      if (index >= 0 && message.via === undefined && !stored.has(message.id)) this.cover('delivered, its sender gone before the answer')
      // `store` and `sent`: the messages with a store row (see `OrderOver`).
      if (index < 0 || (this.orderOver !== 'all' && !stored.has(message.id))) continue
      const lane = `${message.sender}→${message.target} ${message.mode}`
      if ((last.get(lane) ?? -1) > index) this.fail(`ORDER: ${message.id} (${lane}) is in the log before a message its sender sent earlier`)
      last.set(lane, index)
    }
  }

  /** Wait for everything in flight (a process that died leaves promises that never settle: dropped). */
  drop(): void {
    this.inFlight.clear()
  }
}

/** Store methods that only read (a full disk fails writes alone). */
const READS = new Set(['view', 'board', 'corpus', 'longLivedHost', 'isLongLived', 'pendingFor', 'waiting', 'heldHere', 'message', 'adoptable',
  'changed', 'bytes', 'inboundOf', 'approvals', 'approval', 'traffic', 'watchOf', 'watchesOf', 'watchedTargets', 'rebuilt', 'close', 'self'])

/** A store fault (`home/store-fault.ts`: locked past the wait, unavailable while the supervisor retries): no bug. */
function isStoreFault(error: unknown): boolean {
  return storeFaultWhy(error) !== undefined
}

/** What a run of schedules found. */
export interface HomeSeedsSummary {
  readonly schedules: number
  readonly sent: number
  readonly crashes: number
  readonly failures: ReadonlyArray<{ readonly seed: number, readonly message: string }>
  readonly covered: Record<string, number>
}

/**
 * Run the schedule of `seed` on `world`: `steps` random steps, each
 * followed by the invariants, then the calm phase and the recovery.
 * @throws {InvariantBroken} with the broken invariant (`trace` gets the steps).
 */
export async function runHomeSchedule(world: CrashWorld, seed: number, options: { steps?: number, fault?: StoreFault, orderOver?: OrderOver, recordedMeans?: RecordedMeans, killAtDrain?: number, trace?: string[], withdraws?: boolean, offLoop?: boolean } = {}): Promise<{ sent: number, crashes: number }> {
  const schedule = new HomeSchedule(world, seed, options.fault ?? 'none', options.trace !== undefined, options.orderOver, options.withdraws)
  schedule.offLoop = options.offLoop ?? false
  schedule.recordedMeans = options.recordedMeans ?? 'persisted'
  schedule.killAtDrain = options.killAtDrain ?? 0
  const realNow = Date.now
  const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, random: Math.random }
  schedule.clock = realNow()
  Date.now = () => ++schedule.clock
  // With store faults the shipped code pauses before a retry: on the schedule's clock, so a replay is exact.
  if (schedule.fault !== 'none') {
    // The retry's pauses are drawn at random (home/store-retry.ts): from the seed too.
    Math.random = mulberry32(seed + 0x5eed)
    globalThis.setTimeout = ((fire: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => schedule.setTimer(() => fire(...args), ms ?? 0)) as unknown as typeof setTimeout
    globalThis.clearTimeout = ((timer: unknown) => {
      if (typeof timer === 'object' && timer !== null && 'id' in timer) schedule.clearTimer((timer as { id: number }).id)
      else real.clearTimeout(timer as Parameters<typeof clearTimeout>[0])
    }) as typeof clearTimeout
  }
  try {
    schedule.spawn()
    await schedule.after()
    const steps = options.steps ?? 30
    for (let done = 0, tries = 0; done < steps && tries < steps * 10; tries++) {
      if (!schedule.step()) continue
      done++
      await schedule.after()
      await schedule.watched()
      schedule.stepped()
    }
    await schedule.calm()
    await schedule.recover()
    return { sent: schedule.sent.length, crashes: schedule.crashes }
  } finally {
    Date.now = realNow
    globalThis.setTimeout = real.setTimeout
    globalThis.clearTimeout = real.clearTimeout
    Math.random = real.random
    schedule.drop()
    options.trace?.push(...schedule.trace)
    for (const process of schedule.processes) {
      process.dead = true
      world.dead.add(key(process.tag))
      process.disconnect()
    }
    schedule.publish()
    schedule.reachable()
  }
}

/** Schedules per store file (rows of sessions held once stay in `holders`; a small file keeps every scan short). */
const SCHEDULES_PER_FILE = 250

/** Run seeds `from`, `from + 1`, … (`count`) on store files under `dir`. */
export async function runHomeSeeds(dir: string, from: number, count: number, options: { steps?: number, fault?: StoreFault, between?: () => void, withdraws?: boolean, offLoop?: boolean } = {}): Promise<HomeSeedsSummary> {
  const failures: Array<{ seed: number, message: string }> = []
  const covered = new Map<string, number>()
  let world: CrashWorld | undefined
  let sent = 0
  let crashes = 0
  const done = (): void => {
    if (world === undefined) return
    world.close()
    rmSync(world.home, { recursive: true, force: true })
  }
  for (let seed = from; seed < from + count; seed++) {
    if ((seed - from) % SCHEDULES_PER_FILE === 0 || options.fault === 'replace') {
      done()
      options.between?.()
      world = openCrashWorld(join(dir, `batch-${seed}`), covered)
    }
    try {
      const stats = await runHomeSchedule(world!, seed, options)
      sent += stats.sent
      crashes += stats.crashes
    } catch (error: unknown) {
      if (failures.length < 10) failures.push({ seed, message: error instanceof InvariantBroken ? error.message : String((error as Error).stack ?? error) })
    }
  }
  done()
  return { schedules: count, sent, crashes, failures, covered: Object.fromEntries(covered) }
}
