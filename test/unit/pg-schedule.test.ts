/**
 * Crash schedules over the shipped home code (test/support/home-schedule.ts)
 * on the PostgreSQL store (docs/architecture.md §8 "Several machines"): each
 * simulated `dsh` process opens the store through the shipped `pgSite` (a
 * `PgSync` worker thread and a `PgHomeStore`) under the shipped supervisor,
 * with a real `HomeRuntime` and guard, on a schema of this file's own on the
 * test server (test/support/pg-schedule-world.ts). The schedules draw their
 * steps from their seeds as the SQLite ones do, and after every step ONE
 * HOLDER, ONE MESSAGE STATE, INBOUND, NOTHING EARLY, ONE NOTICE, FROM THE
 * DISK hold; after a calm phase LIVENESS; after a recovery host adopted
 * every session ORPHAN LOOK, DELIVERY and ORDER; with withdraws, WITHDRAWN
 * and NOT CLAIMED.
 *
 * Liveness: every process is a process of one simulated machine, judged by
 * pid + start time in the worker as on a real machine, through the slots of
 * `home/pg/simulated-machine.ts` (the first test shows the worker reads
 * them). Faults: the server out of reach of every process for a few steps
 * (`down`: a gate under their connections cut, test/support/pg-side.ts).
 *
 * A worker thread takes about half a second to start (`--import tsx`), and
 * each process starts one, so this file runs tens of seeds, not thousands.
 * Without a fault, each seed is also run on SQLite, and must take the very
 * same steps there (SAME STEPS: both stores answering alike, a seed's
 * schedule is the same; a store that answers a step otherwise, where the
 * runtime then repairs it and every other invariant holds, is caught).
 * `PG_SCHEDULE_SEED=<n>` replays one seed here with its steps printed
 * (`PG_SCHEDULE_FAULT=down`, `PG_SCHEDULE_OFF_LOOP=1`, `PG_SCHEDULE_WITHDRAWS=1`);
 * `PG_SCHEDULE_SEEDS=<count>` runs that many of each kind, `PG_SCHEDULE_FROM=<n>`
 * from seed `n` on.
 *
 * @module test/unit/pg-schedule
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PgSync } from '../../src/home/pg/pg-sync.js'
import { setSimulatedClock, setSimulatedProcess, simulatedMachine } from '../../src/home/pg/simulated-machine.js'
import { runHomeSchedule, type StoreFault } from '../support/home-schedule.js'
import { openPgCrashWorld } from '../support/pg-schedule-world.ts'
import { openCrashWorld, type CrashWorld } from '../support/schedule-world.js'
import { pgUrl, testSchema } from '../support/pg-target.ts'

const url = pgUrl()
const STEPS = 30
/** Seeds of each kind below (the plain ones twice as many). */
const SEEDS = Number(process.env.PG_SCHEDULE_SEEDS ?? 6)
const replaySeed = process.env.PG_SCHEDULE_SEED === undefined ? undefined : Number(process.env.PG_SCHEDULE_SEED)
/** The first seed of each kind (`PG_SCHEDULE_FROM`, to look further than the seeds run here). */
const FROM = Number(process.env.PG_SCHEDULE_FROM ?? 1)

interface Kind {
  readonly fault: StoreFault
  readonly offLoop: boolean
  readonly withdraws: boolean
}

const ends: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const end of ends.splice(0).reverse()) await end()
})

/** A world on the test server, ended after the file. */
async function pgWorld(): Promise<CrashWorld> {
  const world = await openPgCrashWorld(url!)
  ends.push(async () => {
    world.close()
    await world.drop()
  })
  return world
}

/**
 * The steps of `seed` on SQLite (a fresh store file, its first pid `firstPid` as on the PostgreSQL world: sessions are
 * named after it), as the trace prints them, notice ids left out (they are random).
 */
async function onSqlite(seed: number, kind: Kind, firstPid: number): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'xs-pg-twin-'))
  const world = openCrashWorld(home)
  world.nextPid = firstPid
  const trace: string[] = []
  try {
    await runHomeSchedule(world, seed, { steps: STEPS, trace, ...kind })
  } catch {
    // The SQLite schedules are held to their invariants in test/unit/home-schedule.test.ts: here only the steps matter.
  } finally {
    world.close()
    rmSync(home, { recursive: true, force: true })
  }
  return unrandom(trace)
}

function unrandom(trace: readonly string[]): string {
  return trace.join('\n').replace(/notice:[A-Za-z0-9_-]{21}/g, 'notice:…')
}

/** One seed on a fresh PostgreSQL world, with its steps. */
async function replay(seed: number, kind: Kind): Promise<{ error: unknown, trace: string[] }> {
  const world = await pgWorld()
  const trace: string[] = []
  try {
    await runHomeSchedule(world, seed, { steps: STEPS, trace, ...kind })
    return { error: undefined, trace }
  } catch (error: unknown) {
    return { error, trace }
  }
}

/** Where two traces part: the steps before, and each trace's next lines. */
function parting(sqlite: string, pg: string): string {
  const [a, b] = [sqlite.split('\n'), pg.split('\n')]
  let at = 0
  while (at < a.length && a[at] === b[at]) at++
  const lines = (trace: string[]): string => trace.slice(at, at + 6).map(line => `    ${line}`).join('\n')
  return `after step line ${at} (${a.slice(Math.max(0, at - 3), at).join(' / ')}):\n  SQLite:\n${lines(a)}\n  PostgreSQL:\n${lines(b)}`
}

/**
 * Seeds `FROM`… (`count` of them) of `kind` on one PostgreSQL world; the first that breaks an invariant fails the test with its steps
 * (replayed on a fresh world). Without a fault, SAME STEPS too: the seed's schedule on SQLite takes the very same steps
 * with the very same outcomes (one machine, so nothing of what only PostgreSQL does applies: every half of the store
 * keeps the SQLite store's outcomes, docs/architecture.md §8 "Several machines"); this catches a store that answers a
 * step otherwise where the runtime then repairs it. @returns how often each path was taken.
 */
async function seeds(count: number, kind: Kind): Promise<{ covered: Map<string, number>, sent: number, crashes: number }> {
  const covered = new Map<string, number>()
  const world = await pgWorld()
  Object.assign(world, { covered })
  let sent = 0
  let crashes = 0
  for (let seed = FROM; seed < FROM + count; seed++) {
    const trace: string[] = []
    const firstPid = world.nextPid
    try {
      const stats = await runHomeSchedule(world, seed, { steps: STEPS, trace, ...kind })
      sent += stats.sent
      crashes += stats.crashes
    } catch (error: unknown) {
      const again = await replay(seed, kind)
      const flags = `${kind.fault === 'none' ? '' : ` PG_SCHEDULE_FAULT=${kind.fault}`}${kind.offLoop ? ' PG_SCHEDULE_OFF_LOOP=1' : ''}${kind.withdraws ? ' PG_SCHEDULE_WITHDRAWS=1' : ''}`
      expect.fail(`schedule ${seed} on PostgreSQL broke an invariant: ${(error as Error).message}\n(replay: PG_SCHEDULE_SEED=${seed}${flags}; `
        + `the replay ${again.error === undefined ? 'passed' : `broke ${(again.error as Error).message}`})\n${again.trace.join('\n')}`)
    }
    if (kind.fault !== 'none') continue
    const [sqlite, pg] = [await onSqlite(seed, kind, firstPid), unrandom(trace)]
    if (sqlite !== pg) expect.fail(`SAME STEPS: schedule ${seed} took other steps on PostgreSQL than on SQLite, ${parting(sqlite, pg)}`)
  }
  return { covered, sent, crashes }
}

const times = (covered: ReadonlyMap<string, number>, what: RegExp): number =>
  [...covered].filter(([key]) => what.test(key)).reduce((sum, [, count]) => sum + count, 0)

describe.skipIf(url === undefined || replaySeed === undefined)('one seed on PostgreSQL, replayed', () => {
  it(`seed ${replaySeed}`, async () => {
    const kind: Kind = { fault: (process.env.PG_SCHEDULE_FAULT ?? 'none') as StoreFault, offLoop: process.env.PG_SCHEDULE_OFF_LOOP === '1',
      withdraws: process.env.PG_SCHEDULE_WITHDRAWS === '1' }
    const { error, trace } = await replay(replaySeed!, kind)
    console.info(trace.join('\n'))
    expect(error).toBeUndefined()
  }, 600_000)
})

describe.skipIf(url === undefined || replaySeed !== undefined)('crash schedules on the PostgreSQL store', () => {
  let started = 0
  beforeAll(() => {
    started = performance.now()
  })
  afterAll(() => console.info(`PostgreSQL schedules: ${Math.round(performance.now() - started)} ms`))

  it('the store\'s worker judges a process of its machine by the simulated machine\'s slots, and reads its clock', async () => {
    const { schema, drop } = await testSchema(url!, 'xs_simulated', false)
    ends.push(drop)
    const machine = simulatedMachine()
    const open = (pid: number): PgSync => {
      const sync = new PgSync({ url: url!, schema, self: { machine: 'm-simulated', pid, start: 7 }, machineName: 'simulated', simulated: machine })
      ends.push(() => sync.close())
      sync.call('prepare', [])
      sync.call('join', [false])
      return sync
    }
    setSimulatedProcess(machine, { pid: 11, start: 7 }, true)
    setSimulatedProcess(machine, { pid: 12, start: 7 }, true)
    const [a, b] = [open(11), open(12)]
    expect(a.call('markLive', ['s'])).toEqual({ ok: true, already: false })
    // Alive in its slot: the session stays its own (no pid 11 runs on this machine with that start time).
    expect(b.call('acquire', ['s'])).toMatchObject({ ok: false })
    // Its slot cleared: dead at once (its lease still runs; a process of this machine is never judged by it).
    setSimulatedProcess(machine, { pid: 11, start: 7 }, false)
    expect(b.call('acquire', ['s'])).toMatchObject({ ok: true })
    setSimulatedClock(machine, 1_234_567)
    expect(b.call('post', [{ messageId: 'clocked', target: 's', sender: 'x', hop: 1, mode: 'queue', text: 'hi', mayWake: true }]))
      .toMatchObject({ ok: true, message: { createdAt: 1_234_567 } })
  }, 60_000)

  it(`${2 * SEEDS} seeded schedules keep one holder, one message state, the inbound choice, liveness, delivery and order`, async () => {
    const kind: Kind = { fault: 'none', offLoop: false, withdraws: false }
    const { covered, sent, crashes } = await seeds(2 * SEEDS, kind)
    // Not vacuous: sends went several ways, processes were SIGKILLed inside steps and others took their sessions over.
    expect(times(covered, /^sent local/)).toBeGreaterThan(0)
    expect(times(covered, /^SIGKILL inside a step$/)).toBeGreaterThan(0)
    expect(times(covered, /^resumed$/)).toBeGreaterThan(2 * SEEDS)
    console.info(`PostgreSQL schedules: ${2 * SEEDS} × ${STEPS} steps, ${sent} sends, ${crashes} SIGKILLs`)
  }, 900_000)

  it(`${SEEDS} seeded schedules with withdraws also keep WITHDRAWN and NOT CLAIMED`, async () => {
    const { covered } = await seeds(SEEDS, { fault: 'none', offLoop: false, withdraws: true })
    expect(times(covered, /^withdraw/)).toBeGreaterThan(0)
  }, 900_000)

  it(`${SEEDS} seeded schedules with a message's post, claim and record answered at a later step keep every invariant`, async () => {
    const { covered } = await seeds(SEEDS, { fault: 'none', offLoop: true, withdraws: false })
    expect(times(covered, /^off the loop: \w+ run, answered later$/)).toBeGreaterThan(0)
    expect(times(covered, /^off the loop: \w+ run when answered$/)).toBeGreaterThan(0)
  }, 900_000)

  it(`${SEEDS} seeded schedules with the server out of reach for a few steps (connections reset, new ones refused) keep every invariant`, async () => {
    const { covered } = await seeds(SEEDS, { fault: 'down', offLoop: false, withdraws: false })
    expect(times(covered, /^server out of reach$/)).toBeGreaterThan(0)
    // The outage was met: store calls refused as store faults, by the shipped worker's words.
    expect(times(covered, /^store fault in /)).toBeGreaterThan(0)
    console.info(`PostgreSQL schedules with the server out of reach: ${times(covered, /^server out of reach$/)} outages, `
      + `${times(covered, /^store fault in /)} store calls refused (${times(covered, /^store fault in open$/)} openings)`)
  }, 900_000)
})
