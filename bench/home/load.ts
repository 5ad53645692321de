/**
 * Many processes posting at once against one home store
 * (docs/architecture.md §8): an owner process (./owner.ts, a long-lived
 * host holding the target and 19 idle live sessions) and {@link PROCESSES}
 * posting processes (./poster.ts, each wired as a headless `dsh` is) on one
 * temporary `DSH_HOME`. The posters are started together, wait until every
 * one has its store, and are then told `go` at once; each sends its
 * messages one after another as `sessions_send` does (`resolve`, `admit`,
 * `waitRecorded`). Then, all at once again, each sends
 * {@link PACED_MESSAGES} more at a model's pace ({@link PACED_EVERY_MS}).
 * A bystander (./bystander.ts) measures the scheduling floor of both phases.
 *
 * Figures: failed posts (with their reasons), messages recorded, messages
 * the target's log holds more than once (duplicates), the longest
 * event-loop stall (`perf_hooks.monitorEventLoopDelay`) of every process —
 * each poster over its whole life (from before it opened the store) and
 * over the posting alone, the owner over the posting — and the store
 * transactions (`BEGIN IMMEDIATE`) of every process during the posting per
 * delivered message. The machine's CPU model, core count and load average
 * go with them: on a shared machine a stall includes time the process
 * waited for a core.
 *
 * @module bench/home/load
 */

import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { StoreCounts } from './instrument.js'
import { BUSY_TIMEOUT_MS } from '../../src/home/store-open.js'

/**
 * Resolution of every process's event-loop delay histogram, ms: a stall is measured whole whatever the resolution,
 * and 26 processes each waking every few ms would load a small machine themselves.
 */
export const LOOP_RESOLUTION_MS = 20
/** Posting processes started at once. */
export const PROCESSES = 24
/**
 * The paced phase: each poster sends this many more messages, one every {@link PACED_EVERY_MS}, all posters at once
 * (a model's sends are a tool call each, seconds apart; 24 senders at this pace are 48 messages a second).
 */
export const PACED_MESSAGES = 10
export const PACED_EVERY_MS = 500
/** Live sessions the owner holds besides the target. */
const IDLE_SESSIONS = 19
/** Bound on each phase (all ready, all done), ms: a stuck child fails the bench instead of hanging it. */
const PHASE_MS = 600_000

/** Stall figures of one process, ms. */
export interface Stall {
  max: number
  p99: number
  /** Of it at most: the longest wait inside the store for another process's write lock (`BEGIN IMMEDIATE`). */
  lockWait: number
  /** The longest `COMMIT` (with `synchronous = FULL`, a disk sync on the event loop). */
  commit: number
  /** The same two on the process's store worker thread (off the event loop, src/home/off-loop.ts), over its life. */
  offLoop?: { lockWait: number, commit: number }
}

/** What one poster reported. */
export interface PosterReport {
  pid: number
  failures: string[]
  /** Admitted: posted to the store (the rest were refused). */
  accepted: number
  recorded: number
  ms: number
  transactions: number
  stall: { life: Stall, posting: Stall }
}

/** Result of {@link runLoadBench}. */
export interface LoadResult {
  processes: number
  perProcess: number
  posted: number
  failed: number
  /** Distinct failure reasons, with how many times each. */
  reasons: Record<string, number>
  accepted: number
  recorded: number
  /** Distinct messages the target's log holds, and how many of them it holds more than once. */
  delivered: { distinct: number, duplicates: number }
  posters: PosterReport[]
  owner: { stall: Stall, transactions: number }
  /** The paced phase ({@link PACED_MESSAGES}): each poster's report, the holder's stall and the bystander's over it. */
  paced: { posters: PosterReport[], owner: Stall, bystander: { max: number, p99: number }, loadBefore: number[] }
  /** The scheduling floor (./bystander.ts): a process doing nothing but measuring its event-loop delay over the posting, ms. */
  bystander: { max: number, p99: number }
  /** Every process's transactions during the posting, per delivered message. */
  transactionsPerDelivered: number
  /** Wall time of the posting (the slowest poster), ms. */
  wallMs: number
  machine: { cpu: string, cores: number, loadBefore: number[], loadAfter: number[] }
}

/** What the owner reports since its mark. */
interface OwnerReport {
  counts: StoreCounts
  stall: Stall
  /** Cumulative: every message its target's log holds. */
  delivered: { distinct: number, duplicates: number }
}

/** One child speaking JSON lines on stdout. */
interface Lines {
  child: ChildProcess
  next<T>(): Promise<T>
  say(line: string): void
}

function lines(child: ChildProcess, name: string): Lines {
  const queue: string[] = []
  const waiting: Array<{ resolve: (line: string) => void, reject: (error: Error) => void }> = []
  createInterface({ input: child.stdout! }).on('line', line => {
    const next = waiting.shift()
    if (next === undefined) queue.push(line)
    else next.resolve(line)
  })
  child.once('exit', (code, signal) => {
    for (const waiter of waiting.splice(0)) waiter.reject(new Error(`bench: ${name} exited (${code ?? signal})`))
  })
  return {
    child,
    next: <T>() => new Promise<string>((resolve, reject) => {
      const line = queue.shift()
      if (line !== undefined) resolve(line)
      else if (child.exitCode !== null || child.signalCode !== null) reject(new Error(`bench: ${name} exited`))
      else waiting.push({ resolve, reject })
    }).then(line => JSON.parse(line) as T),
    say: line => { child.stdin!.write(`${line}\n`) },
  }
}

async function bounded<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`bench: ${what} took longer than ${PHASE_MS} ms`)), PHASE_MS) })])
  } finally {
    clearTimeout(timer)
  }
}

/** Run the bench: `perProcess` messages from each of {@link PROCESSES} processes. */
export async function runLoadBench(options: { perProcess: number, log: (line: string) => void }): Promise<LoadResult> {
  const home = mkdtempSync(join(tmpdir(), 'xs-bench-load-'))
  const targetId = 'session-load-target'
  const flags = process.execArgv.filter(arg => !arg.startsWith('--max-semi') && arg !== '--expose-gc')
  const start = (script: string, args: string[]): ChildProcess => spawn(process.execPath, [...flags, '--disable-warning=ExperimentalWarning', fileURLToPath(new URL(script, import.meta.url)), ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
  const children: ChildProcess[] = []
  try {
    const owner = lines(start('./owner.ts', [home, targetId, String(IDLE_SESSIONS), 'loop']), 'the owner')
    children.push(owner.child)
    await bounded('the owner to hold its sessions', owner.next())
    const bystander = lines(start('./bystander.ts', []), 'the bystander')
    children.push(bystander.child)
    await bounded('the bystander to start', bystander.next())
    options.log(`load: starting ${PROCESSES} posting processes at once, ${options.perProcess} messages each, to a session held by pid ${owner.child.pid}`)
    const posters = Array.from({ length: PROCESSES }, (_, index) => lines(start('./poster.ts', [home, targetId, String(index), String(options.perProcess)]), `poster ${index}`))
    children.push(...posters.map(poster => poster.child))
    await bounded('every poster to start', Promise.all(posters.map(poster => poster.next())))
    const loadBefore = loadavg()
    owner.say('mark')
    bystander.say('mark')
    await Promise.all([owner.next(), bystander.next()])
    const started = performance.now()
    for (const poster of posters) poster.say('go')
    const reports = await bounded('every poster to post', Promise.all(posters.map(async poster => ({ ...await poster.next<Omit<PosterReport, 'pid'>>(), pid: poster.child.pid! }))))
    const wallMs = performance.now() - started
    // The owner's last turn ends (and marks its message answered) just after the last record.
    await new Promise(resolve => setTimeout(resolve, 1000))
    owner.say('report')
    const sent = await bounded('the owner\'s report', owner.next<OwnerReport>())
    bystander.say('report')
    const floor = await bounded('the bystander\'s report', bystander.next<{ max: number, p99: number }>())
    // Then at a model's pace: the stall of a process is then its own work, not its wait for a core among 26 busy ones.
    owner.say('mark')
    bystander.say('mark')
    await Promise.all([owner.next(), bystander.next()])
    const loadPaced = loadavg()
    for (const poster of posters) poster.say(`pace ${PACED_MESSAGES} ${PACED_EVERY_MS}`)
    const paced = await bounded('every poster to post at a pace', Promise.all(posters.map(async poster => ({ ...await poster.next<Omit<PosterReport, 'pid'>>(), pid: poster.child.pid! }))))
    await new Promise(resolve => setTimeout(resolve, 1000))
    owner.say('report')
    const pacedOwner = await bounded('the owner\'s report', owner.next<OwnerReport>())
    bystander.say('report')
    const pacedFloor = await bounded('the bystander\'s report', bystander.next<{ max: number, p99: number }>())
    const failures = [...reports, ...paced].flatMap(report => report.failures)
    const reasons: Record<string, number> = {}
    for (const failure of failures) reasons[failure] = (reasons[failure] ?? 0) + 1
    const both = [...reports, ...paced]
    const transactions = both.reduce((sum, report) => sum + report.transactions, 0) + sent.counts.transactions + pacedOwner.counts.transactions
    return {
      processes: PROCESSES,
      perProcess: options.perProcess,
      posted: PROCESSES * (options.perProcess + PACED_MESSAGES),
      failed: failures.length,
      reasons,
      accepted: both.reduce((sum, report) => sum + report.accepted, 0),
      recorded: both.reduce((sum, report) => sum + report.recorded, 0),
      delivered: pacedOwner.delivered,
      posters: reports,
      owner: { stall: sent.stall, transactions: sent.counts.transactions + pacedOwner.counts.transactions },
      paced: { posters: paced, owner: pacedOwner.stall, bystander: pacedFloor, loadBefore: loadPaced },
      bystander: floor,
      transactionsPerDelivered: transactions / Math.max(pacedOwner.delivered.distinct, 1),
      wallMs,
      machine: { cpu: cpus()[0]?.model ?? 'unknown CPU', cores: cpus().length, loadBefore, loadAfter: loadavg() },
    }
  } finally {
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue
      const exited = new Promise(resolve => child.once('exit', resolve))
      child.stdin!.write('exit\n')
      const hard = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(hard)
    }
    rmSync(home, { recursive: true, force: true })
  }
}

/** Markdown lines of the result. */
export function loadNotes(result: LoadResult): string[] {
  const { machine } = result
  const worst = (pick: (report: PosterReport) => number, posters = result.posters): string => {
    const values = posters.map(pick).sort((a, b) => b - a)
    return `max ${values[0]?.toFixed(0) ?? '?'} ms, median ${values[values.length >> 1]?.toFixed(0) ?? '?'} ms`
  }
  const reasons = Object.entries(result.reasons).map(([reason, times]) => `${times} × ${reason}`).join('; ')
  return [
    `- ${result.processes} processes posting at once against one home store (a holder process with ${IDLE_SESSIONS + 1} live sessions; each poster wired as a headless dsh, supervised store, fail-closed guard), ${result.perProcess} sequential sends each (resolve, admit, wait for \`recorded\`), ${(result.wallMs / 1000).toFixed(1)} s for all:`,
    `  - failed posts ${result.failed}/${result.posted}${reasons === '' ? '' : ` (${reasons})`}; accepted ${result.accepted}; recorded ${result.recorded}; delivered to the target's log ${result.delivered.distinct}, of them more than once ${result.delivered.duplicates};`,
    `  - longest event-loop stall per poster (\`monitorEventLoopDelay\`): over its whole life from before it opened the store ${worst(report => report.stall.life.max)}; over the posting ${worst(report => report.stall.posting.max)}; the holder over the posting ${result.owner.stall.max.toFixed(0)} ms (p99 ${result.owner.stall.p99.toFixed(0)} ms);`,
    `  - of which waiting on the event loop inside the store for another process's write lock (the longest \`BEGIN IMMEDIATE\` of a transition still run there, waited on the event loop up to the ${BUSY_TIMEOUT_MS} ms \`busy_timeout\`, then retried with the loop free; a wait longer than that is time the process waited for a core): posters over their life ${worst(report => report.stall.life.lockWait)}, the holder ${result.owner.stall.lockWait.toFixed(0)} ms; the longest \`COMMIT\` (its disk sync): posters ${worst(report => report.stall.life.commit)}, the holder ${result.owner.stall.commit.toFixed(0)} ms;`,
    `  - on each process's store worker thread (off the event loop: a message's post, claim and record, src/home/off-loop.ts), over its life: the longest lock wait posters ${worst(report => report.stall.life.offLoop?.lockWait ?? 0)}, the holder ${(result.owner.stall.offLoop?.lockWait ?? 0).toFixed(0)} ms; the longest \`COMMIT\` posters ${worst(report => report.stall.life.offLoop?.commit ?? 0)}, the holder ${(result.owner.stall.offLoop?.commit ?? 0).toFixed(0)} ms;`,
    `  - the scheduling floor: a bystander process doing nothing but measure its own event-loop delay stalled up to ${result.bystander.max.toFixed(0)} ms (p99 ${result.bystander.p99.toFixed(0)} ms) over the same posting (./bystander.ts): at least that much of every stall above is a wait for a core (a process with work to do waits longer: the scheduler favours one that mostly sleeps);`,
    `  - then at a model's pace, every poster at once sending ${PACED_MESSAGES} more, one every ${PACED_EVERY_MS} ms (load average before ${result.paced.loadBefore.map(value => value.toFixed(1)).join(' / ')}): longest event-loop stall per poster ${worst(report => report.stall.posting.max, result.paced.posters)}, the holder ${result.paced.owner.max.toFixed(0)} ms (p99 ${result.paced.owner.p99.toFixed(0)} ms), the bystander ${result.paced.bystander.max.toFixed(0)} ms; longest lock wait ${worst(report => report.stall.posting.lockWait, result.paced.posters)}, longest \`COMMIT\` ${worst(report => report.stall.posting.commit, result.paced.posters)};`,
    `  - store transactions per delivered message, every process: ${result.transactionsPerDelivered.toFixed(2)} (holder ${(result.owner.transactions / Math.max(result.delivered.distinct, 1)).toFixed(2)});`,
    `  - machine: ${machine.cpu}, ${machine.cores} cores, load average before the posting ${machine.loadBefore.map(value => value.toFixed(1)).join(' / ')}, after ${machine.loadAfter.map(value => value.toFixed(1)).join(' / ')} (what a stall holds besides these is the process's own work and time it waited for a core).`,
  ]
}
