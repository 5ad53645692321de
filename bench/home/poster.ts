/**
 * One posting process of the load bench (./load.ts): a separate OS process
 * wired as src/home/mount.ts wires a headless `dsh` — the store supervised
 * (`StoreSupervisor`, opened waiting at most `RETRY_BUSY_MS` at start and
 * retried in the background), a `StoreWatch`, a short-lived `HomeRuntime`,
 * the guard wrapped by `failClosed` — so a busy store is met the way a real
 * send meets it (waited for with the event loop free, then refused).
 *
 * Usage: `poster.ts <home> <targetId> <index> <messages>`. One JSON line each
 * on stdout: `{ready}` once its runtime started and its store's worker thread
 * opened its connection; on `go` (stdin) it sends `messages` messages to the
 * target one after another, as `sessions_send` does after its checks
 * (`resolve`, `admit`, `waitRecorded`); on
 * `pace <n> <everyMs>`, `n` more, each started `everyMs` after the one
 * before (the pace of a model's sends). After either it prints what
 * happened: each failure with its reason, how many were recorded,
 * the longest event-loop stall (`perf_hooks.monitorEventLoopDelay`, ms) over
 * its whole life from before the store was opened and over the posting
 * alone, the longest of those spent waiting for another process's write
 * lock (`BEGIN IMMEDIATE`, ms) and the longest `COMMIT` (its disk sync, ms),
 * how many were accepted, and the store transactions it ran
 * (./instrument.ts). On `exit` it stops its runtime and exits.
 *
 * @module bench/home/poster
 */

import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { buildFrame } from '../../src/framing.js'
import { failClosed } from '../../src/home/fail-closed.js'
import { guardController } from '../../src/home/guard.js'
import { isAlive, selfTag } from '../../src/harness/process-tag.js'
import { HomeRuntime } from '../../src/home/runtime.js'
import { openHomeStore, storePaths } from '../../src/home/store-open.js'
import type { SqliteHomeStore } from '../../src/home/store-sqlite.js'
import { RETRY_BUSY_MS, StoreSupervisor } from '../../src/home/store-supervisor.js'
import { sqliteSite } from '../../src/home/store-site.js'
import { StoreWatch } from '../../src/home/store-watch.js'
import type { ControllerPort } from '../../src/ports.js'
import { DEFAULT_SETTINGS } from '../../src/settings/resolve.js'
import { requestIdFor } from '../../src/tools/send/arguments.js'
import { countStore, type CountedStore } from './instrument.js'
import { LOOP_RESOLUTION_MS } from './load.js'

const life = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS })
life.enable()
const [home, targetId, index, count] = process.argv.slice(2) as [string, string, string, string]
const senderId = `session-load-sender-${index}`
const log = (message: string): void => { process.stderr.write(`bench poster ${index}: ${message}\n`) }
// Every store the supervisor opens is counted (a replaced file is opened again).
const counted: CountedStore[] = []
const opened: SqliteHomeStore[] = []
const supervisor = new StoreSupervisor(sqliteSite(busyMs => {
  const store = openHomeStore(home, selfTag(), isAlive, log, Date.now, busyMs)
  // As src/home/mount.ts opens it: a message's transitions run on the store's worker thread (src/home/off-loop.ts).
  store.runOffLoop(log)
  opened.push(store)
  counted.push(countStore(store))
  return store
}, storePaths(home).file), selfTag(), log)
supervisor.start(RETRY_BUSY_MS)
const watch = new StoreWatch(supervisor.store, storePaths(home).dir)
const unused = async (): Promise<never> => { throw new Error('local delivery is not used by the bench poster') }
const runtime = new HomeRuntime(supervisor.store, watch, { agents: { get: () => undefined, resume: unused, list: () => [] }, log, longLived: () => false })
supervisor.listen(() => runtime.rejoin())
runtime.start()
const inner: ControllerPort = { resolve: unused, admit: unused, releaseWoken: unused, waitRecorded: unused }
const controller = failClosed(guardController(inner, runtime, { isLocal: () => false, agentOf: () => undefined, listEvents: undefined }))
/** The worker connections' transactions so far, and their longest lock wait and commit, ms (off the event loop). */
async function offLoop(): Promise<{ transactions: number, lockWait: number, commit: number }> {
  const times = (await Promise.all(opened.map(async store => await store.offLoopTimes()))).filter(time => time !== undefined)
  return { transactions: times.reduce((sum, time) => sum + time.transactions, 0), lockWait: Math.max(0, ...times.map(time => time.longestBeginMs)),
    commit: Math.max(0, ...times.map(time => time.longestCommitMs)) }
}
const transactions = (): number => counted.reduce((sum, store) => sum + store.counts().transactions, 0)
const lockWait = (): number => Math.max(0, ...counted.map(store => store.longestLockWait()))
const commit = (): number => Math.max(0, ...counted.map(store => store.longestCommit()))

/**
 * Send messages `first` … `first + messages - 1`, each started `everyMs` after the one before (0: at once after it
 * returned); every failure is kept with its reason, never thrown.
 */
async function post(first: number, messages: number, everyMs = 0): Promise<{ failures: string[], accepted: number, recorded: number, ms: number }> {
  const signal = new AbortController().signal
  const failures: string[] = []
  let recorded = 0
  let accepted = 0
  const started = performance.now()
  for (let n = first; n < first + messages; n++) {
    const due = started + (n - first) * everyMs
    if (performance.now() < due) await new Promise(resolve => setTimeout(resolve, due - performance.now()))
    try {
      const resolved = await controller.resolve(targetId, { mayWake: true, signal })
      if (!resolved.ok) {
        failures.push(`resolve: ${JSON.stringify(resolved.reason)}`)
        continue
      }
      const requestId = requestIdFor(senderId, `call_${n}\u0000${n.toString(16).padStart(16, '0')}`)
      const text = buildFrame({ fromSessionId: senderId, fromTitle: `Load bench sender ${index}`, mode: 'queue', hop: 1, body: `load message ${index}.${n}: please re-run the failing migration check.` }).text
      const admitted = await controller.admit(resolved.value, { requestId, mode: 'queue', text, provenance: { senderSessionId: senderId, hop: 1 }, signal })
      if (!admitted.ok) {
        failures.push(`admit: ${JSON.stringify(admitted.reason)}`)
        continue
      }
      accepted++
      const outcome = await controller.waitRecorded(resolved.value, requestId, { timeoutMs: DEFAULT_SETTINGS.recordWaitMs, signal, settleForInbox: false, mailboxMessageId: admitted.value.mailboxMessageId })
      if (outcome?.stage === 'conversation') recorded++
      else failures.push(`not recorded within ${DEFAULT_SETTINGS.recordWaitMs} ms: ${JSON.stringify(outcome)}`)
    } catch (error: unknown) {
      failures.push(`threw: ${String(error)}`)
    }
  }
  return { failures, accepted, recorded, ms: performance.now() - started }
}

const stallMs = (histogram: ReturnType<typeof monitorEventLoopDelay>): { max: number, p99: number } => ({ max: histogram.max / 1e6, p99: histogram.percentile(99) / 1e6 })

// Ready once the store's worker thread has opened its connection (a process that has run a while; a headless dsh that
// sends at once runs its first transitions on the event loop until then, src/home/off-loop.ts).
for (let waited = 0; waited < 20_000 && (await Promise.all(opened.map(async store => await store.offLoopTimes()))).every(times => times === undefined); waited += 20)
  await new Promise(resolve => setTimeout(resolve, 20))
process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid, open: supervisor.status().open })}\n`)
createInterface({ input: process.stdin }).on('line', line => {
  const [word, paced, everyMs] = line.split(' ')
  if (word === 'go' || word === 'pace') {
    // `go`: the messages one after another; `pace <messages> <everyMs>`: after them, at a model's pace.
    const phase = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS })
    phase.enable()
    const before = transactions()
    const atStart = { lockWait: lockWait(), commit: commit() }
    for (const store of counted) store.resetLongest()
    void (async () => {
      const offLoopBefore = await offLoop()
      const result = await (word === 'go' ? post(0, Number(count)) : post(Number(count), Number(paced), Number(everyMs)))
      phase.disable()
      const worker = await offLoop()
      const off = { lockWait: worker.lockWait, commit: worker.commit }
      process.stdout.write(`${JSON.stringify({ ...result, transactions: transactions() - before + worker.transactions - offLoopBefore.transactions, stall: { life: { ...stallMs(life), lockWait: Math.max(atStart.lockWait, lockWait()), commit: Math.max(atStart.commit, commit()), offLoop: off }, posting: { ...stallMs(phase), lockWait: lockWait(), commit: commit(), offLoop: off } } })}\n`)
    })()
  } else if (line === 'exit') {
    runtime.stop()
    supervisor.close()
    process.exit(0)
  }
})
