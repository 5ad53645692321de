/**
 * The holding side of the cross-process bench: a separate OS process that
 * stands in for a `dsh web` host on the given home. It is wired as
 * src/home/mount.ts wires a real one — the store opened by `openHomeStore`
 * (a message's transitions on its worker thread, `runOffLoop`),
 * a `StoreWatch` on its directory (fs.watch + the 1 s `PRAGMA data_version`
 * poll), the real `HomeRuntime` (2 s reconcile) as a long-lived host, and
 * the guard, which gives the runtime its adoption path — and holds
 * `1 + idle` live top-level sessions (./agent.ts; the first is the target).
 * Every `session/event` of an agent is handed to `runtime.onSessionEvent`,
 * as mount.ts does.
 *
 * Usage: `owner.ts <home> <sessionId> <idleSessions> [loop]` (`loop`: measure event-loop stalls). One JSON line each on
 * stdout: `{ready, pid}` once holding; on `mark` (stdin) it restarts its
 * CPU clock and counters and says so; on `report` it prints its CPU time
 * (user, system), context switches, wall time, V8 collections (count,
 * pause ms), store counts and its longest event-loop stall
 * (`perf_hooks.monitorEventLoopDelay`, ms) since the mark, when it admitted
 * and recorded each message for the target, and how many distinct messages
 * the target's log holds and how many of them more than once; on
 * `exit` it stops its runtime and exits.
 *
 * @module bench/home/owner
 */

import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { guardController } from '../../src/home/guard.js'
import { isAlive, selfTag } from '../../src/harness/process-tag.js'
import { HomeRuntime } from '../../src/home/runtime.js'
import { openHomeStore, storePaths } from '../../src/home/store-open.js'
import { StoreWatch } from '../../src/home/store-watch.js'
import type { HostAgents } from '../../src/harness/host.js'
import type { ControllerPort } from '../../src/ports.js'
import { benchAgent, type BenchAgent } from './agent.js'
import { countStore, minusCounts } from './instrument.js'
import { LOOP_RESOLUTION_MS } from './load.js'

const [home, sessionId, idle, watchLoop] = process.argv.slice(2) as [string, string, string | undefined, string | undefined]
const log = (message: string): void => { process.stderr.write(`bench owner: ${message}\n`) }

// As src/home/mount.ts opens it: a message's transitions run on the store's worker thread (src/home/off-loop.ts).
const opened = openHomeStore(home, selfTag(), isAlive, log)
opened.runOffLoop(log)
const counted = countStore(opened)
/** The worker connection's transactions so far (0 while it is not open). */
const offLoopTransactions = async (): Promise<number> => (await opened.offLoopTimes())?.transactions ?? 0
const watch = new StoreWatch(counted.store, storePaths(home).dir)
const live = new Map<string, BenchAgent>()
const agents: HostAgents = {
  get: id => live.get(id),
  resume: async () => { throw new Error('the bench owner never wakes a session') },
  list: () => [...live.values()],
}
const runtime = new HomeRuntime(counted.store, watch, { agents, log, longLived: () => true })
const onEvent = (id: string): void => runtime.onSessionEvent(id)
const target = benchAgent(sessionId, 1, onEvent)
live.set(sessionId, target)
for (let index = 0; index < Number(idle ?? 0); index++) live.set(`session-bench-idle-${index}`, benchAgent(`session-bench-idle-${index}`, 2 + index, onEvent))

const unused = async (): Promise<never> => { throw new Error('local delivery is not used by the bench owner') }
const inner: ControllerPort = { resolve: unused, admit: unused, releaseWoken: unused, waitRecorded: unused }
guardController(inner, runtime, { isLocal: id => live.has(id), agentOf: id => live.get(id), listEvents: undefined })
runtime.start()

// V8's collections, so an idle window's CPU can be told apart from the GC that follows a burst of work.
let gc = { ms: 0, count: 0 }
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) {
    gc.ms += entry.duration
    gc.count++
  }
}).observe({ entryTypes: ['gc'] })
// Event-loop stalls since the mark (a holder frozen by a store wait stops every session it holds). Only when
// asked (`loop`): the monitor's own timer wakes the process every 20 ms, which the idle-CPU windows must not count.
const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS })
if (watchLoop === 'loop') loop.enable()
/** User messages in the target's log: distinct ids, and ids that occur more than once. */
function delivered(): { distinct: number, duplicates: number } {
  const seen = new Map<string, number>()
  for (const event of target.events as Array<{ type: string, data: { id?: unknown } }>) {
    if (event.type === 'user/message' && typeof event.data.id === 'string') seen.set(event.data.id, (seen.get(event.data.id) ?? 0) + 1)
  }
  return { distinct: seen.size, duplicates: [...seen.values()].filter(times => times > 1).length }
}
let cpu = process.cpuUsage()
let switches = process.resourceUsage()
let wall = performance.now()
let counts = counted.counts()
let offLoopAtMark = 0
process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid, held: counted.store.heldHere().length })}\n`)
createInterface({ input: process.stdin }).on('line', line => void answer(line))

async function answer(line: string): Promise<void> {
  if (line === 'mark') {
    offLoopAtMark = await offLoopTransactions()
    cpu = process.cpuUsage()
    switches = process.resourceUsage()
    wall = performance.now()
    counts = counted.counts()
    gc = { ms: 0, count: 0 }
    loop.reset()
    counted.resetLongest()
    process.stdout.write(`${JSON.stringify({ marked: true })}\n`)
  } else if (line === 'report') {
    const used = process.cpuUsage(cpu)
    const now = process.resourceUsage()
    const wakeups = { voluntary: now.voluntaryContextSwitches - switches.voluntaryContextSwitches, involuntary: now.involuntaryContextSwitches - switches.involuntaryContextSwitches }
    const timeline = Object.fromEntries([...target.admittedAt].map(([id, at]) => [id, [at, target.recordedAt.get(id) ?? null]]))
    const since = minusCounts(counted.counts(), counts)
    // Transactions of both connections: the process's own and its worker's.
    const offLoop = await opened.offLoopTimes()
    since.transactions += (offLoop?.transactions ?? 0) - offLoopAtMark
    const stall = { max: loop.max / 1e6, p99: loop.percentile(99) / 1e6, lockWait: counted.longestLockWait(), commit: counted.longestCommit(),
      offLoop: { lockWait: offLoop?.longestBeginMs ?? 0, commit: offLoop?.longestCommitMs ?? 0 } }
    process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000, userMs: used.user / 1000, systemMs: used.system / 1000, wakeups, wallMs: performance.now() - wall, gc, counts: since, timeline, stall, delivered: delivered() })}\n`)
  } else if (line === 'exit') {
    runtime.stop()
    process.exit(0)
  }
}
