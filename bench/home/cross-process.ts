/**
 * The package path across OS processes (docs/architecture.md §8): a sender
 * in this process and an owner in another (`./owner.ts`) share one
 * temporary `DSH_HOME` and its store, `cross-session/store.sqlite`.
 *
 * The sender is wired as src/home/mount.ts wires a headless process: the
 * store from `openHomeStore`, a `StoreWatch`, the `HomeRuntime` (short-lived)
 * and the guard. Each message is one `sessions_send` as the tool makes it
 * after its checks: `resolve` (the store names the owner as holder: a
 * remote target), `admit` (one `post`), `waitRecorded` (the row, re-read on
 * each change the watch notices). The owner notices the post, claims it,
 * admits it into its live agent (./agent.ts), records it once the agent's
 * log holds it, and marks it answered when the agent's turn ends.
 *
 * Figures: post → recorded as the sender sees it (from just before `admit`
 * to `waitRecorded` returning `recorded at seq N`), split at the owner's
 * admission and its log's `user/message` (one clock: epoch ms from
 * `performance.timeOrigin`, one machine); store port calls, transactions
 * and statements per message on each side (./instrument.ts); then the
 * owner's CPU (`process.cpuUsage`) over two idle windows, its live sessions
 * held and the store watched: the first from 2 s after the last message,
 * where work left over from the burst can land (seen on this machine,
 * under load, as up to 0.6 % with ~100 more context switches of the
 * owner's threads than in a quiet window, the same store calls and no GC
 * pause), and the next, three times as long, the steady state of an idle
 * host, which the budget reads.
 *
 * @module bench/home/cross-process
 */

import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { buildFrame } from '../../src/framing.js'
import { failClosed } from '../../src/home/fail-closed.js'
import { guardController } from '../../src/home/guard.js'
import { isAlive, selfTag } from '../../src/harness/process-tag.js'
import { HomeRuntime } from '../../src/home/runtime.js'
import { openHomeStore, storePaths } from '../../src/home/store-open.js'
import { STORE_POLL_MS, StoreWatch } from '../../src/home/store-watch.js'
import type { ControllerPort } from '../../src/ports.js'
import { DEFAULT_SETTINGS } from '../../src/settings/resolve.js'
import { requestIdFor } from '../../src/tools/send/arguments.js'
import type { HomeRow } from '../table.js'
import { clock } from './agent.js'
import { countStore, perItem, type StoreCounts } from './instrument.js'
import { summarize, type Summary } from './stats.js'

/** Live top-level sessions the owner holds besides the target, as a busy web host would. */
const IDLE_SESSIONS = 19
/** The sender's bound on each wait: the package's default `recordWaitMs` (src/settings.ts). */
const WAIT_MS = DEFAULT_SETTINGS.recordWaitMs

/** Result of {@link runCrossProcessBench}. */
export interface CrossProcessResult {
  messages: number
  recorded: number
  /** Post → recorded, as the sender's `waitRecorded` returns it, ms. */
  postToRecorded: Summary
  /** The same, split: post → owner admits it; admission → its log holds it; log → the sender has the record. */
  phases: { noticed: Summary, logged: Summary, back: Summary }
  /** The guard's `resolve` before each post (store `view`), ms. */
  resolve: Summary
  /** Per message: this process (sender) and the owner, over the sends (owner: until its turns ended). */
  sender: StoreCounts
  owner: StoreCounts
  /** The owner idle: its live sessions held, the store watched, the sender's runtime still running. */
  idle: {
    liveSessions: number
    /** Recorded messages the store held meanwhile (the ones just sent). */
    storedMessages: number
    /** From 2 s after the last message (V8's own work after the burst falls here). */
    afterBurst: IdleWindow
    /** The next window: the steady state of an idle host. */
    settled: IdleWindow
  }
}

/** One idle window of the owner (`process.cpuUsage`, `process.resourceUsage`, a `gc` PerformanceObserver). */
export interface IdleWindow {
  windowMs: number
  cpuMs: number
  userMs: number
  systemMs: number
  /** Owner CPU as a share of one core, percent. */
  percent: number
  /** Context switches of its threads: voluntary (they slept), involuntary (preempted). */
  wakeups: { voluntary: number, involuntary: number }
  /** V8 collections: how many, and their pauses, ms. */
  gc: { count: number, ms: number }
  /** What it asked of its store. */
  counts: StoreCounts
}

function idleWindow(report: OwnerReport): IdleWindow {
  const { wallMs, cpuMs, userMs, systemMs, wakeups, gc, counts } = report
  return { windowMs: wallMs, cpuMs, userMs, systemMs, percent: (cpuMs / wallMs) * 100, wakeups, gc, counts }
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))
const unused = async (): Promise<never> => { throw new Error('local delivery is not used by the bench sender') }
const INNER: ControllerPort = { resolve: unused, admit: unused, releaseWoken: unused, waitRecorded: unused }

interface OwnerReport {
  cpuMs: number
  userMs: number
  systemMs: number
  wakeups: { voluntary: number, involuntary: number }
  wallMs: number
  gc: { count: number, ms: number }
  counts: StoreCounts
  timeline: Record<string, [number, number | null]>
}

/** Run the bench. */
/**
 * The settled window is this many idle windows long: an idle host's ticks allocate a little, and V8 collects it every
 * 10–20 s (a collection of a few ms, measured with the `gc` observer); one short window catches a collection or misses
 * it, a long one averages it in.
 */
const SETTLED_WINDOWS = 3

export async function runCrossProcessBench(options: { messages: number, idleMs: number, log: (line: string) => void }): Promise<CrossProcessResult> {
  const home = mkdtempSync(join(tmpdir(), 'xs-bench-home-'))
  const sessionId = 'session-bench-target'
  const senderId = 'session-bench-sender'
  const flags = process.execArgv.filter(arg => !arg.startsWith('--max-semi') && arg !== '--expose-gc')
  const owner = spawn(process.execPath, [...flags, '--disable-warning=ExperimentalWarning', fileURLToPath(new URL('./owner.ts', import.meta.url)), home, sessionId, String(IDLE_SESSIONS)], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: owner.stdout! })
  const queue: string[] = []
  const waiting: Array<(line: string) => void> = []
  lines.on('line', line => {
    const next = waiting.shift()
    if (next === undefined) queue.push(line)
    else next(line)
  })
  const read = <T>(): Promise<T> => new Promise<string>((resolve, reject) => {
    const line = queue.shift()
    if (line !== undefined) return resolve(line)
    const onExit = (): void => reject(new Error('bench: the owner process exited'))
    owner.once('exit', onExit)
    waiting.push(value => {
      owner.removeListener('exit', onExit)
      resolve(value)
    })
  }).then(line => JSON.parse(line) as T)
  const ask = async <T>(command: string): Promise<T> => {
    owner.stdin!.write(`${command}\n`)
    return await read<T>()
  }
  let runtime: HomeRuntime | undefined
  try {
    const ready = await read<{ ready: boolean, held: number }>()
    if (ready.held !== IDLE_SESSIONS + 1) throw new Error(`bench: the owner holds ${ready.held} sessions, expected ${IDLE_SESSIONS + 1}`)
    const counted = countStore(openHomeStore(home, selfTag(), isAlive, options.log))
    const watch = new StoreWatch(counted.store, storePaths(home).dir)
    runtime = new HomeRuntime(counted.store, watch, { agents: { get: () => undefined, resume: unused, list: () => [] }, log: options.log, longLived: () => false })
    runtime.start()
    // As the plugin mounts it (src/home/mount.ts): a step that meets another process's lock is tried again, loop free.
    const guarded = failClosed(guardController(INNER, runtime, { isLocal: () => false, agentOf: () => undefined, listEvents: undefined }))
    const signal = new AbortController().signal
    await sleep(500)

    options.log(`cross-process: ${options.messages} sequential messages to a session held by pid ${owner.pid}`)
    counted.reset()
    await ask('mark')
    const posts = new Map<string, { postedAt: number, recordedAt?: number }>()
    const resolveMs: number[] = []
    const total: number[] = []
    let recorded = 0
    for (let index = 0; index < options.messages; index++) {
      const started = clock()
      const resolved = await guarded.resolve(sessionId, { mayWake: true, signal })
      if (!resolved.ok || resolved.value.remote === undefined) throw new Error('bench: the store does not name the owner process as the target\'s holder')
      const requestId = requestIdFor(senderId, `call_${index}\u0000${index.toString(16).padStart(16, '0')}`)
      const text = buildFrame({ fromSessionId: senderId, fromTitle: 'Cross-process bench sender', mode: 'queue', hop: 1, body: `bench message ${index}: please re-run the failing migration check and report what changed since the last green build.` }).text
      const postedAt = clock()
      resolveMs.push(postedAt - started)
      const admitted = await guarded.admit(resolved.value, { requestId, mode: 'queue', text, provenance: { senderSessionId: senderId, hop: 1 }, signal })
      if (!admitted.ok) throw new Error(`bench: message ${index} not admitted: ${admitted.reason}`)
      const outcome = await guarded.waitRecorded(resolved.value, requestId, { timeoutMs: WAIT_MS, signal, settleForInbox: false, mailboxMessageId: admitted.value.mailboxMessageId })
      const at = clock()
      posts.set(requestId, { postedAt, ...(outcome?.stage === 'conversation' ? { recordedAt: at } : {}) })
      if (outcome?.stage === 'conversation') {
        recorded++
        total.push(at - postedAt)
      } else {
        options.log(`cross-process: message ${index} not recorded within ${WAIT_MS} ms: ${JSON.stringify(outcome)}`)
      }
    }
    const senderCounts = counted.counts()
    // The owner's last turn ends (and marks its message answered) just after the last record.
    await sleep(1000)
    const sent = await ask<OwnerReport>('report')
    const noticed: number[] = []
    const logged: number[] = []
    const back: number[] = []
    for (const [id, post] of posts) {
      const [admittedAt, loggedAt] = sent.timeline[id] ?? [undefined, null]
      if (admittedAt === undefined || loggedAt === null || post.recordedAt === undefined) continue
      noticed.push(admittedAt - post.postedAt)
      logged.push(loggedAt - admittedAt)
      back.push(post.recordedAt - loggedAt)
    }

    options.log(`cross-process: owner idle, a window of ${options.idleMs} ms, then one of ${SETTLED_WINDOWS * options.idleMs} ms`)
    await sleep(1000)
    await ask('mark')
    await sleep(options.idleMs)
    const afterBurst = await ask<OwnerReport>('report')
    await ask('mark')
    await sleep(SETTLED_WINDOWS * options.idleMs)
    const settled = await ask<OwnerReport>('report')
    return {
      messages: options.messages,
      recorded,
      postToRecorded: summarize(total),
      phases: { noticed: summarize(noticed), logged: summarize(logged), back: summarize(back) },
      resolve: summarize(resolveMs),
      sender: perItem(senderCounts, options.messages),
      owner: perItem(sent.counts, options.messages),
      idle: { liveSessions: IDLE_SESSIONS + 1, storedMessages: recorded, afterBurst: idleWindow(afterBurst), settled: idleWindow(settled) },
    }
  } finally {
    runtime?.stop()
    if (owner.exitCode === null && owner.signalCode === null) {
      const exited = new Promise(resolve => owner.once('exit', resolve))
      owner.stdin!.write('exit\n')
      const hard = setTimeout(() => owner.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(hard)
    }
    rmSync(home, { recursive: true, force: true })
  }
}

/** Rows of the home table. */
export function crossProcessRows(result: CrossProcessResult): HomeRow[] {
  const part = 'package path, 2 OS processes'
  return [
    { part, case: 'post → the sender has `recorded at seq N`', ms: result.postToRecorded, store: [{ who: 'sender', counts: result.sender }, { who: 'owner', counts: result.owner }] },
    { part, case: '  post → the owner admits it (its store watch, `claim`)', ms: result.phases.noticed },
    { part, case: '  admission → the owner\'s log holds it (agent turn start)', ms: result.phases.logged },
    { part, case: '  log → the sender has it (`record`, the sender\'s store watch)', ms: result.phases.back },
    { part, case: 'guard `resolve` before the post (store `view`)', ms: result.resolve },
  ]
}

function describeWindow(window: IdleWindow): string {
  const calls = Object.entries(window.counts.calls).map(([name, value]) => `${name} ${value}`).join(', ') || 'no calls'
  return `${window.cpuMs.toFixed(1)} ms CPU (user ${window.userMs.toFixed(1)}, system ${window.systemMs.toFixed(1)}) over ${(window.windowMs / 1000).toFixed(1)} s = ${window.percent.toFixed(3)} % of one core; ${window.wakeups.voluntary} voluntary and ${window.wakeups.involuntary} involuntary context switches; V8 GC pauses ${window.gc.ms.toFixed(1)} ms in ${window.gc.count} collections; store calls ${calls}, ${window.counts.transactions} transactions`
}

/** Markdown lines under the table. */
export function crossProcessNotes(result: CrossProcessResult): string[] {
  const { idle } = result
  return [
    `- package path: ${result.recorded}/${result.messages} sequential messages recorded; owner counts cover the sends and its turns' ends (its watch and reconcile ticks included).`,
    `- idle owner (${idle.liveSessions} live sessions held, store watched: fs.watch + ${STORE_POLL_MS} ms \`data_version\` poll, 2 s reconcile; ${idle.storedMessages} recorded messages in the store; the sender's runtime still running):`,
    `  - settled (the budget), the second window: ${describeWindow(idle.settled)};`,
    `  - right after the burst, from 2 s after the last message: ${describeWindow(idle.afterBurst)}.`,
  ]
}
