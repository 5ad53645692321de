/**
 * Crash schedules over the shipped home code (test/support/home-schedule.ts):
 * 10,000 seeded schedules of 2–4 simulated `dsh` processes, each a real
 * `HomeRuntime` and `guardController` on one real SQLite store, sessions
 * with rc.8-shaped logs, senders sending through the real decision and the
 * guard, the targets' users setting `inbound` through the real channel, and
 * a SIGKILL possible inside any step. After every step: ONE HOLDER, ONE
 * MESSAGE STATE, INBOUND; after a calm phase: LIVENESS; after a recovery
 * host adopted every session: DELIVERY and ORDER.
 *
 * Store faults are steps of their own schedules, met by the shipped
 * supervisor (`home/store-supervisor.ts`) and fail-closed guard
 * (`home/fail-closed.ts`) that each simulated process is composed with: a
 * store locked past the busy wait, a full disk, a holder that is a zombie until reaped,
 * the store file deleted under running processes. Each keeps every
 * invariant (`HOME_FAULT_SEEDS` seeds each, 300 by default).
 *
 * The broken variants break the shipped code, not the simulation: a step of
 * `home/owner-delivery.ts` is replaced, through vitest's module mock, for
 * the holder (`home/holding.ts`) that imports it.
 *
 * The 10,000 seeds run in child processes (2 to 4); a failing seed is
 * replayed here with its steps printed. `HOME_SEED=<n>` runs only that seed
 * here and prints its steps; `HOME_SEEDS=<count>` runs fewer.
 *
 * @module test/unit/home-schedule
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { HeldSession, HomeStore, HostAgent, HostUserMessage, ProcessTag } from '../../src/testing.js'
import { openCrashWorld } from '../support/schedule-world.js'
import { runHomeSchedule, type HomeSeedsSummary, type OrderOver, type RecordedMeans, type StoreFault } from '../support/home-schedule.js'

/** The shipped step a broken variant replaces (none: the shipped code as it is). */
type Variant = 'none' | 'no-log-check' | 'record-before-flush' | 'notice-before-flush' | 'blind-acquire' | 'retake-own-claims'
  | 'record-at-untrack' | 'hold-posts' | 'no-orphan-look' | 'keep-dropped-claims'
const broken = vi.hoisted(() => ({ variant: 'none' as Variant }))

vi.mock('../../src/home/store-sqlite.js', async importOriginal => {
  const real = await importOriginal<typeof import('../../src/home/store-sqlite.js')>()
  type Request = Parameters<InstanceType<typeof real.SqliteHomeStore>['holdForApproval']>[0]
  class SqliteHomeStore extends real.SqliteHomeStore {
    // Taking a session judges every other holder dead, in the guard's look (`view`) and in its `acquire`: two living
    // holders. (Blind in `acquire` alone it is not reached here: the guard reads `view` in the same synchronous run.)
    override acquire(sessionId: string): ReturnType<InstanceType<typeof real.SqliteHomeStore>['acquire']> {
      return this.blind(() => super.acquire(sessionId))
    }

    override view(sessionId: string): ReturnType<InstanceType<typeof real.SqliteHomeStore>['view']> {
      return this.blind(() => super.view(sessionId))
    }

    private blind<T>(work: () => T): T {
      if (broken.variant !== 'blind-acquire') return work()
      const judged = this as unknown as { alive: (tag: ProcessTag) => boolean, self: ProcessTag }
      const alive = judged.alive
      judged.alive = tag => tag.pid === judged.self.pid && tag.start === judged.self.start
      try {
        return work()
      } finally {
        judged.alive = alive
      }
    }

    // A claim also re-takes this process's own claims (in flight here): harmless while the log check sees them.
    override claim(sessionId: string): ReturnType<InstanceType<typeof real.SqliteHomeStore>['claim']> {
      if (broken.variant === 'retake-own-claims') this.unclaimAll()
      return super.claim(sessionId)
    }

    // What a claim answered after its runtime stopped took is kept claimed by this process, not handed back.
    override handBack(messageIds: readonly string[]): void {
      if (broken.variant !== 'keep-dropped-claims') super.handBack(messageIds)
    }

    // Keeping a message for its target's user also posts it: it reaches the target before its user delivered it.
    override holdForApproval(request: Request): ReturnType<InstanceType<typeof real.SqliteHomeStore>['holdForApproval']> {
      const held = super.holdForApproval(request)
      if (broken.variant === 'hold-posts' && held.ok && !held.duplicate) {
        const { messageId, target, sender, hop, mode, text } = request
        this.post({ messageId, target, sender, hop, mode, text, mayWake: true })
      }
      return held
    }
  }
  return { ...real, SqliteHomeStore }
})

vi.mock('../../src/home/orphan-watches.js', async importOriginal => {
  const real = await importOriginal<typeof import('../../src/home/orphan-watches.js')>()
  class OrphanWatches extends real.OrphanWatches {
    // A long-lived host never reads the log of a watched session nobody holds: its watches wait for a holder that may never come.
    override run(...args: Parameters<InstanceType<typeof real.OrphanWatches>['run']>): Promise<void> {
      return broken.variant === 'no-orphan-look' ? Promise.resolve() : super.run(...args)
    }
  }
  return { ...real, OrphanWatches }
})

vi.mock('../../src/home/holding.js', async importOriginal => {
  const real = await importOriginal<typeof import('../../src/home/holding.js')>()
  const delivery = await import('../../src/home/owner-delivery.js')
  class Holdings extends real.Holdings {
    // What was found is recorded as the session is let go, on the belief that the disposal has written the log
    // (rc.8 starts that drain only after the `agent/disposed` listeners ran).
    override untrack(sessionId: string, how?: Parameters<InstanceType<typeof real.Holdings>['untrack']>[1]): void {
      if (broken.variant === 'record-at-untrack') {
        const inner = this as unknown as { held: Map<string, HeldSession>, agents: Map<string, HostAgent>, store: HomeStore }
        const held = inner.held.get(sessionId)
        const agent = inner.agents.get(sessionId)
        if (held !== undefined && agent !== undefined) {
          delivery.settle(inner.store, agent, held)
          delivery.recordFound(inner.store, held)
        }
      }
      super.untrack(sessionId, how)
    }
  }
  return { ...real, Holdings }
})

vi.mock('../../src/home/owner-delivery.js', async importOriginal => {
  const real = await importOriginal<typeof import('../../src/home/owner-delivery.js')>()
  const notices = await import('../../src/home/notices.js')
  return {
    ...real,
    // Admission without asking the log where a re-claimed message stands: it is delivered again.
    admitClaimed: (...args: Parameters<typeof real.admitClaimed>) => {
      if (broken.variant !== 'no-log-check') return real.admitClaimed(...args)
      const [, agent, , claimed] = args
      for (const message of claimed) {
        const delivered: HostUserMessage = { id: message.messageId, role: 'user', content: [{ type: 'text', text: message.text }], source: { kind: 'plugin' } }
        if (message.mode === 'queue') agent.followup(delivered)
        else agent.steer(delivered)
      }
      return claimed.map(message => message.messageId)
    },
    // What the log shows is recorded at once, before `sessions.flush` has put it on disk.
    settle: (...args: Parameters<typeof real.settle>) => {
      const changed = real.settle(...args)
      const [store, agent, held] = args
      // Its transaction runs in this turn (on the loop: no worker in the schedules); a SIGKILL in it marked the process dead.
      if (broken.variant === 'record-before-flush') void real.recordFound(store, held, undefined, held.answeredAt).catch(() => undefined)
      // A turn end seen in the live log is noticed at once, before `sessions.flush` has put it on disk.
      if (broken.variant === 'notice-before-flush') notices.fireEndedWatches(store, agent)
      return changed
    },
  }
})

const SEEDS = Number(process.env.HOME_SEEDS ?? 10_000)
const STEPS = 30
/** Seeds of each store fault (each its own schedules: the seeded schedules above draw no fault). */
const FAULT_SEEDS = Number(process.env.HOME_FAULT_SEEDS ?? 300)
/** Seeds run with a store worker thread's answers as steps of their own (`offLoop`). */
const OFF_LOOP_SEEDS = Number(process.env.HOME_OFF_LOOP_SEEDS ?? 2_000)
const ROOT = join(import.meta.dirname, '..', '..')
const RUNNER = join(ROOT, 'test', 'support', 'home-runner.ts')
const replaySeed = process.env.HOME_SEED === undefined ? undefined : Number(process.env.HOME_SEED)

// tmpfs when there is one: the store syncs every commit, and the schedules test the protocol, not the disk.
const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()
const homes: string[] = []
function freshHome(): string {
  const home = mkdtempSync(join(base, 'xs-home-schedule-'))
  homes.push(home)
  return home
}
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true })
})

/** Run one seed here, on a fresh store, with its steps. */
async function replay(seed: number, fault: StoreFault = 'none', offLoop = false): Promise<{ error: unknown, trace: string[] }> {
  const trace: string[] = []
  const world = openCrashWorld(freshHome())
  try {
    await runHomeSchedule(world, seed, { steps: STEPS, fault, trace, offLoop })
    return { error: undefined, trace }
  } catch (error: unknown) {
    return { error, trace }
  } finally {
    world.close()
  }
}

/** The first seed (from `from`, at most `seeds` of them) whose schedule breaks an invariant, and what it broke. */
async function firstCaught(seeds: number, fault: StoreFault = 'none', from = 1, orderOver: OrderOver = 'store', recordedMeans: RecordedMeans = 'persisted', killAtDrain = 0, offLoop = false): Promise<{ seed: number, message: string } | undefined> {
  for (let seed = from; seed < from + seeds; seed++) {
    const world = openCrashWorld(freshHome())
    try {
      await runHomeSchedule(world, seed, { steps: STEPS, fault, orderOver, recordedMeans, killAtDrain, offLoop })
    } catch (error: unknown) {
      return { seed, message: (error as Error).message }
    } finally {
      world.close()
    }
  }
  return undefined
}

/** The seeds `[from, from + count)` in a child process. */
function runChild(from: number, count: number, fault: StoreFault = 'none', offLoop = false): Promise<HomeSeedsSummary> {
  return new Promise((resolve, reject) => {
    const args = [RUNNER, freshHome(), String(from), String(count), String(STEPS), fault, ...offLoop ? ['off-loop'] : []]
    const child = spawn(process.execPath, ['--no-warnings', '--import', 'tsx', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('error', reject)
    child.on('exit', code => {
      if (code === 0) resolve(JSON.parse(out) as HomeSeedsSummary)
      else reject(new Error(`the schedule runner for seeds ${from}… exited with ${code}: ${err}`))
    })
  })
}

/** The seeds 1…`count` of `fault`, shared among child processes; a failing seed fails the test with its steps. */
async function seedsInChildren(count: number, fault: StoreFault, offLoop = false): Promise<{ summaries: HomeSeedsSummary[], children: number }> {
  const children = Math.max(2, Math.min(4, availableParallelism()))
  const share = Math.ceil(count / children)
  const summaries = await Promise.all(Array.from({ length: children }, (_, index) => runChild(1 + index * share, Math.min(share, count - index * share), fault, offLoop)))
  const failures = summaries.flatMap(summary => summary.failures).sort((a, b) => a.seed - b.seed)
  if (failures.length > 0) {
    const { seed, message } = failures[0]!
    const { trace } = await replay(seed, fault, offLoop)
    expect.fail(`schedule ${seed} (${fault}${offLoop ? ', off the loop' : ''}) broke an invariant: ${message}\n(failing seeds include ${failures.map(failure => failure.seed).join(', ')}; replay one with HOME_SEED=${seed}${fault === 'none' ? '' : ` HOME_FAULT=${fault}`}${offLoop ? ' HOME_OFF_LOOP=1' : ''})\n${trace.join('\n')}`)
  }
  expect(summaries.reduce((sum, summary) => sum + summary.schedules, 0)).toBe(count)
  return { summaries, children }
}

/** How often `what` was covered over `summaries`. */
function coveredIn(summaries: readonly HomeSeedsSummary[], what: RegExp): number {
  return summaries.reduce((sum, summary) => sum + Object.entries(summary.covered).filter(([key]) => what.test(key)).reduce((each, [, times]) => each + times, 0), 0)
}

describe.runIf(replaySeed !== undefined)('one seed, replayed', () => {
  it(`seed ${replaySeed}`, async () => {
    const { error, trace } = await replay(replaySeed!, (process.env.HOME_FAULT ?? 'none') as StoreFault, process.env.HOME_OFF_LOOP === '1')
    console.info(trace.join('\n'))
    expect(error).toBeUndefined()
  })
})

describe.skipIf(replaySeed !== undefined)('crash schedules over the shipped home code', () => {
  it(`${SEEDS} seeded schedules keep one holder, one message state, the inbound choice, delivery and order`, async () => {
    const started = performance.now()
    const { summaries, children } = await seedsInChildren(SEEDS, 'none')
    const total = (key: 'schedules' | 'sent' | 'crashes'): number => summaries.reduce((sum, summary) => sum + summary[key], 0)
    // Not vacuous: every way a send goes, the user's choice, the persistence gap and SIGKILLs inside steps.
    const covered = new Map<string, number>()
    for (const summary of summaries) for (const [what, times] of Object.entries(summary.covered)) covered.set(what, (covered.get(what) ?? 0) + times)
    const paths = [
      'sent local', 'sent local (woke)', 'sent store', 'sent store (hand-over)', 'send refused: inbound', 'inbound refuse', 'inbound hold', 'sent held',
      'held message delivered', 'held message refused', 'noticed', 'orphan look noticed', 'reload', 'release', 'exit', 'kill', 'SIGKILL inside a step', 'SIGKILL lost a user/message', 'flush', 'write',
    ]
    for (const what of SEEDS < 10_000 ? [] : paths) expect(covered.get(what) ?? 0, what).toBeGreaterThan(10)
    console.info(`home schedules: ${SEEDS} × ${STEPS} steps, ${total('sent')} sends, ${total('crashes')} SIGKILLs, ${children} processes, ${Math.round(performance.now() - started)} ms`)
  }, 1_800_000) // minutes on a 2-core machine; more than 15 when other heavy jobs share its cores

  it(`${OFF_LOOP_SEEDS} seeded schedules with a message's post, claim and record answered by the store's worker thread at a later step keep every invariant`, async () => {
    const started = performance.now()
    const { summaries, children } = await seedsInChildren(OFF_LOOP_SEEDS, 'none', true)
    // Not vacuous: each transition both run when asked and run when answered, with other steps of its process in between.
    for (const what of ['post', 'claim', 'recordAll']) {
      expect(coveredIn(summaries, new RegExp(`^off the loop: ${what} run, answered later$`)), what).toBeGreaterThan(10)
      expect(coveredIn(summaries, new RegExp(`^off the loop: ${what} run when answered$`)), what).toBeGreaterThan(10)
    }
    const total = (key: 'sent' | 'crashes'): number => summaries.reduce((sum, summary) => sum + summary[key], 0)
    console.info(`home schedules off the loop: ${OFF_LOOP_SEEDS} × ${STEPS} steps, ${total('sent')} sends, ${total('crashes')} SIGKILLs, ${children} processes, ${Math.round(performance.now() - started)} ms`)
  }, 1_800_000)

  it('the invariants catch the shipped holder with a step broken: what a claim answered after its runtime stopped took is never handed back', async () => {
    broken.variant = 'keep-dropped-claims'
    try {
      // A runtime of the process stops while its claim is on the worker; the next one holds the session and never admits it.
      expect((await firstCaught(400, 'none', 1, 'store', 'persisted', 0, true))?.message).toMatch(/LIVENESS: (\S+ claimed(, )?)+ still wait/)
    } finally {
      broken.variant = 'none'
    }
  }, 240_000)

  it('the invariants catch the shipped holder with a step broken: admission without the log check delivers twice', async () => {
    broken.variant = 'no-log-check'
    try {
      // LIVENESS too: a re-claimed message the resume restored to the inbox (a local one has a row now) is admitted again,
      // rc.8's inbox refuses an id already pending (test/support/rc8-sim.ts `SimInbox`), and its claim stays stuck.
      expect((await firstCaught(500))?.message).toMatch(/ONE MESSAGE STATE|DELIVERY|recovery left|LIVENESS: \S+ claimed/)
    } finally {
      broken.variant = 'none'
    }
  }, 120_000)

  it('the invariants catch the shipped holder with a step broken: recording before the flush', async () => {
    broken.variant = 'record-before-flush'
    try {
      expect((await firstCaught(500))?.message).toMatch(/ONE MESSAGE STATE: the store says \S+ is recorded at seq \d+; (the log on disk ends at seq \d+|\S+ log has \S+ there, on disk up to \d+)/)
    } finally {
      broken.variant = 'none'
    }
  }, 120_000)

  /** The first seed (of `seeds`) that breaks an invariant with the shipped `variant` step broken. */
  async function caughtWith(variant: Variant, seeds: number, recordedMeans: RecordedMeans = 'persisted', killAtDrain = 0): Promise<string | undefined> {
    broken.variant = variant
    try {
      return (await firstCaught(seeds, 'none', 1, 'store', recordedMeans, killAtDrain))?.message
    } finally {
      broken.variant = 'none'
    }
  }

  it('recording before the flush loses the message, not only records it early: the log in memory alone shows it gone after a SIGKILL', async () => {
    expect(await caughtWith('record-before-flush', 500, 'in-memory')).toMatch(/ONE MESSAGE STATE: the store says \S+ is recorded at seq \d+; (the|\S+'s) log has|DELIVERY/)
  }, 120_000)

  it('the invariants catch the shipped store with a step broken: an acquire that judges every other holder dead makes two holders', async () => {
    expect(await caughtWith('blind-acquire', 300)).toMatch(/ONE HOLDER/)
  }, 120_000)

  // The window is one crash point among many: disposals cut off before their drain half the time make it a few seeds wide.
  it('a SIGKILL between `agent/disposed` and rc.8\'s drain of the log keeps every invariant', async () => {
    expect(await firstCaught(150, 'none', 1, 'store', 'persisted', 0.5)).toBeUndefined()
  }, 120_000)

  it('the invariants catch the shipped holder with a step broken: recording at untrack (rc.8 writes a disposed session\'s log only after `agent/disposed`)', async () => {
    expect(await caughtWith('record-at-untrack', 300, 'persisted', 0.5)).toMatch(/ONE MESSAGE STATE: the store says \S+ is recorded at seq \d+; (the|\S+'s) log (has|on disk ends)/)
  }, 120_000)

  it('the invariants catch the shipped store with a step broken: a held message posted before its user delivered it', async () => {
    expect(await caughtWith('hold-posts', 300)).toMatch(/NOTHING EARLY|INBOUND/)
  }, 120_000)

  it('the invariants catch the shipped long-lived host with a step broken: no look at the watches of a session nobody holds', async () => {
    expect(await caughtWith('no-orphan-look', 300)).toMatch(/ORPHAN LOOK: watch \S+ is still watching/)
  }, 120_000)

  it('a claim that also re-takes this process\'s own claims stays safe: the shipped log check sees them in the inbox or the running turn', async () => {
    expect(await caughtWith('retake-own-claims', 200)).toBeUndefined()
  }, 120_000)

  it('the invariants catch the shipped holder with a step broken: a notice before the flush', async () => {
    broken.variant = 'notice-before-flush'
    try {
      expect((await firstCaught(500))?.message).toMatch(/FROM THE DISK: watch \S+ noticed turn end \d+; \S+ log has it at \d+, on disk up to \d+/)
    } finally {
      broken.variant = 'none'
    }
  }, 120_000)

  // Store faults, through the shipped supervisor and fail-closed guard (each process composed as home/mount.ts does).
  // Not vacuous: the faults were met (a store call refused, the supervisor down at a start, a zombie reaped, a file moved).
  it('a store locked past the wait (the next store calls of a process, its opening included) keeps every invariant', async () => {
    const { summaries } = await seedsInChildren(FAULT_SEEDS, 'busy')
    expect(coveredIn(summaries, /^busy in /)).toBeGreaterThan(FAULT_SEEDS / 2)
  }, 600_000)

  it('a full disk (the next write transitions of a process fail with SQLITE_FULL, rolled back) keeps every invariant', async () => {
    const { summaries } = await seedsInChildren(FAULT_SEEDS, 'full')
    expect(coveredIn(summaries, /^full in /)).toBeGreaterThan(FAULT_SEEDS / 2)
  }, 600_000)

  it('a zombie holder (killed, not yet reaped; /proc says Z) is dead: nothing waits for it', async () => {
    const { summaries } = await seedsInChildren(FAULT_SEEDS, 'zombie')
    expect(coveredIn(summaries, /^zombie reaped$/)).toBeGreaterThan(FAULT_SEEDS / 10)
  }, 600_000)

  // Seed 971 (like test/unit/home-orchestration.test.ts, "order per sender and target across a local admission and a
  // crash"): the next holder must not re-admit a stored message a dead turn took behind a later one admitted locally.
  it('ORDER per sender and target holds across a local admission and a crash (a local admission has a store row in posting order)', async () => {
    expect(await firstCaught(1, 'none', 971, 'all')).toBeUndefined()
  }, 120_000)

  // Seed 2532: the user delivers two held messages of one sender in the other order than they were sent; the later Deliver
  // waits for the earlier decision (`earlier-held`, src/home/store-approvals.ts).
  it('ORDER per sender and target in send order holds across hold and approval', async () => {
    expect(await firstCaught(1, 'none', 2532, 'sent')).toBeUndefined()
  }, 120_000)

  // Seeds found by running the fault schedules at 3,000 seeds each, pinned here:
  // - 1487 (busy, full): a session whose release met the fault stays held here; woken again in a new agent, what the old
  //   agent's cut-off turn took is read again from the new log before a later local send (home/holding.ts `liveAgain`);
  // - 2517 (busy): a watched turn that ends while a flush's records wait out a lock is noticed only once on disk
  //   (home/persist-found.ts: the events there when the flush was called);
  // - 42 (full): a reload whose join met a full disk joins on a later tick, so the claims of the earlier runtime return
  //   to pending (home/runtime.ts);
  // - 559 (replace): a held message its user delivered in a store file deleted later is not "gone" (the checker keeps decisions);
  // - 2899 (busy): a send decided after the fault reads the choice then: held under `hold` and delivered by its user is
  //   consent, though the choice was `refuse` when it was sent and is again (the checker);
  // - 746 (replace): the recovery waits out the open turn of a writer the replaced file no longer knows died (the checker).
  it('seeds once broken under store faults keep every invariant', async () => {
    const pinned = [[1487, 'busy'], [1487, 'full'], [2517, 'busy'], [42, 'full'], [559, 'replace'], [2899, 'busy'], [746, 'replace']] as const
    for (const [seed, fault] of pinned)
      expect(await firstCaught(1, fault, seed)).toBeUndefined()
  }, 120_000)

  it('the store file deleted under running processes: every process moves to the new file, and one holder is kept', async () => {
    const { summaries } = await seedsInChildren(FAULT_SEEDS, 'replace')
    expect(coveredIn(summaries, /^store replaced$/)).toBeGreaterThan(FAULT_SEEDS / 4)
  }, 600_000)
})
