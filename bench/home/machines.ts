/**
 * Several machines on one PostgreSQL server (docs/architecture.md §8
 * "Several machines"), over loopback: a throwaway server
 * (test/support/pg-cluster.ts), two machines in this process, each a
 * process of its own on the store's worker thread (`home/pg/pg-sync.ts`),
 * and the shipped runtime (`home/runtime.ts`) holding a session live on
 * machine B (an rc.8-shaped agent, test/support/rc8-sim.ts).
 *
 * Measured: a synchronous store call's round trip (`view`); how soon B
 * hears A's post (`NOTIFY`, pushed to its store watch; from the post's
 * call, since both machines share this thread); a message posted
 * on A until B's runtime recorded it at its seq (claimed, admitted, the
 * turn run, the log flushed, recorded); B's store calls per delivered
 * message; and a read of a session of B asked by A (`home/pg/remote-read.ts`
 * `askSurface`, answered by B's `home/pg/read-answerer.ts` with a surface of
 * {@link REMOTE_SURFACE_EVENTS} events), from the ask to the checked surface.
 *
 * @module bench/home/machines
 */

import { HomeRuntime, selfTag, StoreWatch, type CorpusRows } from '../../src/testing.js'
import { PgHomeStore } from '../../src/home/pg/pg-home-store.js'
import { PgSync } from '../../src/home/pg/pg-sync.js'
import { ReadAnswerer } from '../../src/home/pg/read-answerer.js'
import { askSurface } from '../../src/home/pg/remote-read.js'
import { surfaceEvents } from '../corpus.js'
import { pgBin, startCluster } from '../../test/support/pg-cluster.ts'
import { rc8Session, SimAgent } from '../../test/support/rc8-sim.js'
import { summarize, type Summary } from './stats.js'
import { remoteList, type RemoteListResult } from './machines-list.js'

/** What the machines part measured, or why it did not run. */
export type MachinesResult =
  | { readonly ran: false, readonly why: string }
  | {
    readonly ran: true
    readonly messages: number
    /** One synchronous `view` call, ms. */
    readonly roundTrip: Summary
    /** A's post called until B's watch heard it (the post's own transaction included), ms. */
    readonly heard: Summary
    /** A's post called until B's runtime recorded it, ms. */
    readonly recorded: Summary
    /** B's store calls per delivered message, by method. */
    readonly callsPerMessage: Record<string, number>
    /** A's `askSurface` of a session of B until it holds the surface, ms; and the surface's JSON, bytes. */
    readonly remoteRead: Summary
    readonly surfaceBytes: number
    readonly surfaceEvents: number
    /** `sessions_list {}` on A over B's published sessions (bench/home/machines-list.ts). */
    readonly list: RemoteListResult
  }

/** Events of the surface B answers with (a long session's mix, bench/corpus.ts; about 210 KB of JSON). */
export const REMOTE_SURFACE_EVENTS = 200

/** Wait until `probe` holds, at most `ms`, looking again after each turn of the event loop or every `everyMs`. */
async function until(probe: () => boolean, ms = 10_000, everyMs = 0): Promise<void> {
  const end = Date.now() + ms
  while (!probe()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise(resolve => everyMs === 0 ? setImmediate(resolve) : setTimeout(resolve, everyMs))
  }
}

/** Count every call `sync` answers, by method. */
function counted(sync: PgSync): Record<string, number> {
  const calls: Record<string, number> = {}
  const call = sync.call.bind(sync)
  const callAsync = sync.callAsync.bind(sync)
  sync.call = <T>(method: string, args: readonly unknown[], waitMs?: number): T => {
    calls[method] = (calls[method] ?? 0) + 1
    return call<T>(method, args, waitMs)
  }
  sync.callAsync = async <T>(method: string, args: readonly unknown[]): Promise<T> => {
    calls[method] = (calls[method] ?? 0) + 1
    return await callAsync<T>(method, args)
  }
  return calls
}

export async function runMachinesBench(options: { readonly messages: number, readonly log: (line: string) => void }): Promise<MachinesResult> {
  const bin = pgBin()
  if ('missing' in bin) return { ran: false, why: bin.missing }
  const cluster = await startCluster(bin.dir)
  const noRows = (): CorpusRows => { throw new Error('no corpus rows in this bench') }
  const open = (name: string): { store: PgHomeStore, sync: PgSync } => {
    const self = { machine: name, ...selfTag() }
    const sync = new PgSync({ url: cluster.url, schema: 'xs_bench', self, machineName: name })
    sync.call('prepare', [])
    return { store: new PgHomeStore(sync, self, noRows), sync }
  }
  const a = open('machine-a')
  const b = open('machine-b')
  const { log } = rc8Session('s')
  const agent = new SimAgent(log, () => undefined, () => undefined)
  let stopping = false
  const watch = new StoreWatch(b.store, { pushed: changed => b.store.onChange(changed) }, 60_000)
  const runtime = new HomeRuntime(b.store, watch, {
    agents: { get: id => id === 's' ? agent : undefined, list: () => [agent], resume: () => Promise.reject(new Error('no resume')) },
    // What a drain still in flight says when the bench closes the store under it is not a finding.
    log: line => stopping || options.log(`machine-b: ${line}`),
    longLived: () => false,
    flush: async () => { log.persist() },
    clock: { every: () => () => undefined, atExit: () => () => undefined },
  })
  try {
    runtime.start()
    a.store.join(false)
    const roundTrips: number[] = []
    for (let n = 0; n < 200; n++) {
      const started = performance.now()
      a.store.view('s')
      roundTrips.push(performance.now() - started)
    }
    let heardAt = 0
    const stopHearing = b.store.onChange(() => { heardAt ||= performance.now() })
    const calls = counted(b.sync)
    const heard: number[] = []
    const recorded: number[] = []
    for (let n = 0; n < options.messages; n++) {
      const id = `bench-${n}`
      heardAt = 0
      const started = performance.now()
      a.store.post({ messageId: id, target: 's', sender: 'session-on-a', hop: 1, mode: 'queue', text: id, mayWake: true })
      await until(() => agent.inbox.nextTurn.some(message => message.id === id))
      // Both machines share this thread: B hears only once A's blocking post returned, so this counts from its start.
      if (heardAt > 0) heard.push(heardAt - started)
      while (agent.step()) { /* the turn takes it and ends */ }
      runtime.onSessionEvent('s')
      // Read on A (its calls are not counted): B's own calls are what a delivery costs.
      await until(() => a.store.message(id)?.state === 'recorded', 10_000, 1)
      recorded.push(performance.now() - started)
    }
    stopHearing()
    const callsPerMessage = Object.fromEntries(Object.entries(calls).filter(([, count]) => count > 0)
      .map(([method, count]) => [method, count / options.messages]))
    // After the count: B's calls for the reads are not a delivery's.
    const { remoteRead, surfaceBytes } = await remoteReads(a.sync, b.sync, options.messages, options.log)
    const list = await remoteList(a.sync, b.sync, Math.min(options.messages, 20))
    return { ran: true, messages: options.messages, roundTrip: summarize(roundTrips), heard: summarize(heard), recorded: summarize(recorded),
      callsPerMessage, remoteRead, surfaceBytes, surfaceEvents: REMOTE_SURFACE_EVENTS, list }
  } finally {
    stopping = true
    runtime.stop()
    watch.stop()
    a.store.close()
    b.store.close()
    cluster.stop()
  }
}

/** `count` reads of a session of B asked by A, one at a time, answered by a `ReadAnswerer` of B. */
async function remoteReads(a: PgSync, b: PgSync, count: number, log: (line: string) => void): Promise<{ remoteRead: Summary, surfaceBytes: number }> {
  const surface = { session: { id: 's-on-b', createdAt: Date.UTC(2026, 0, 1), cwd: '/home/dev/projects/api' }, capturedThroughSeq: 199,
    events: surfaceEvents(REMOTE_SURFACE_EVENTS) }
  const answerer = new ReadAnswerer({ store: b, readSurface: async id => id === surface.session.id ? surface : undefined,
    log: line => log(`machine-b: ${line}`) })
  answerer.start()
  // Every wait of the package is unref'd (a host process keeps itself alive); this bench process has nothing else.
  const alive = setInterval(() => undefined, 1_000)
  try {
    const signal = new AbortController().signal
    const times: number[] = []
    for (let n = 0; n < count; n++) {
      const started = performance.now()
      const read = await askSurface(a, 'machine-b', surface.session.id, { signal })
      if (read.kind !== 'surface' || read.surface.events.length !== REMOTE_SURFACE_EVENTS) throw new Error(`remote read: ${read.kind}`)
      times.push(performance.now() - started)
    }
    return { remoteRead: summarize(times), surfaceBytes: Buffer.byteLength(JSON.stringify(surface)) }
  } finally {
    clearInterval(alive)
    await answerer.stop()
  }
}

/** The report's lines for the machines part. */
export function machinesNotes(result: MachinesResult): string[] {
  if (!result.ran) return [`Not run: ${result.why}.`]
  const ms = (summary: Summary): string => `median ${summary.median.toFixed(2)} ms, p95 ${summary.p95.toFixed(2)} ms, max ${summary.max.toFixed(2)} ms`
  const calls = Object.entries(result.callsPerMessage).map(([method, count]) => `${method} ${count.toFixed(2)}`).join(', ')
  return [
    `Two machines in one process on a throwaway PostgreSQL server over loopback; ${result.messages} messages, one at a time.`,
    '',
    `- a synchronous store call (\`view\`, one read statement on the worker thread): ${ms(result.roundTrip)}`,
    `- A's post called → B heard it (\`NOTIFY\`; A's post transaction included, since both share this thread): ${ms(result.heard)}`,
    `- A's post → B's runtime recorded it at its seq (claimed, admitted, the turn run, the log flushed, recorded): ${ms(result.recorded)}`,
    `- B's store calls per delivered message: ${calls}`,
    `- a remote read: A's \`askSurface\` of a session of B (${REMOTE_SURFACE_EVENTS} events, ${(result.surfaceBytes / 1024).toFixed(0)} KB of JSON) `
    + `→ the checked surface (asked, taken, read, answered, fetched; both ends' JSON on this thread): ${ms(result.remoteRead)}`,
    `- \`sessions_list {}\` on A with ${result.list.sessions.toLocaleString('en')} sessions published by B: first call `
    + `${result.list.first.toFixed(1)} ms (the directory read whole); warm (the reading fresh) ${ms(result.list.warm)}; `
    + `right after another process changed the store (read again) ${ms(result.list.afterChange)}; `
    + `${result.list.directoryReads} directory reads in all`,
  ]
}
