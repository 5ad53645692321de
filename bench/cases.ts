/**
 * The in-memory cases: each tool run through the package's real executors
 * (`sessionsList`, `sessionsRead`, `sessionsSend` from src/tools) over the
 * counting fakes of the ports, at several corpus and surface sizes; the
 * schema size of the definitions the plugin registers; the send-limiter
 * memory; and sends through the mounted plugin on the fake host built from
 * rc.8 (test/support/fake-host.ts), timed.
 *
 * @module bench/cases
 */

import { performance } from 'node:perf_hooks'
import { apply } from '../src/plugin.js'
import { DEFAULT_SETTINGS } from '../src/settings/resolve.js'
import { callIdentity, SendLimits } from '../src/model/limits.js'
import { sessionsList } from '../src/tools/sessions-list.js'
import { sessionsRead } from '../src/tools/sessions-read.js'
import { sessionsSend } from '../src/tools/sessions-send.js'
import type { ToolDeps } from '../src/tools/shared.js'
import { session } from '../test/support/fakes.js'
import { FakeHost } from '../test/support/fake-host.js'
import { corpusWorld, surfaceEvents, worstCaseSurface, type CorpusWorld } from './corpus.js'
import { fullGc, heapMB, measureCase, type CallCounter, type CaseRow } from './measure.js'

/** Corpus and surface sizes of the in-memory cases (docs/performance.md "What each figure means"). */
export const CORPUS_SIZES = [100, 1_000, 10_000, 50_000] as const
export const SURFACE_SIZES = [100, 1_000, 10_000, 100_000] as const

/** Warm calls per case: fewer for the largest inputs, to keep the run short. */
export function iterationsFor(size: number, quick: boolean): number {
  if (quick) return 3
  return size >= 50_000 ? 7 : size >= 10_000 ? 9 : 15
}

function counterOf(world: CorpusWorld['world']): CallCounter {
  return {
    snapshot: () => ({ ...world.corpus.calls, ...world.controller.calls }),
    titles: () => world.corpus.titlesFolded,
  }
}

/** sessions_list, with and without a query, at every corpus size. */
export async function listCases(quick: boolean, log: (line: string) => void): Promise<CaseRow[]> {
  const rows: CaseRow[] = []
  for (const size of CORPUS_SIZES) {
    const cw = corpusWorld(size)
    const counter = counterOf(cw.world)
    const iterations = iterationsFor(size, quick)
    const call = (args: unknown) => () => sessionsList(args, cw.world.call(cw.caller), cw.world.deps)
    rows.push(await measureCase({ suite: 'memory', tool: 'sessions_list', case: 'no query', corpus: size }, iterations, call({}), counter))
    rows.push(await measureCase({ suite: 'memory', tool: 'sessions_list', case: 'query "reconcile"', corpus: size }, iterations, call({ query: 'reconcile' }), counter))
    rows.push(await measureCase({ suite: 'memory', tool: 'sessions_list', case: 'limit 200, scope all', corpus: size }, iterations, call({ limit: 200, scope: 'all' }), counter))
    log(`  sessions_list at ${size} sessions done`)
  }
  return rows
}

/** sessions_read at every surface size (target in a 1,000-session corpus), plus the worst case. */
export async function readCases(quick: boolean, log: (line: string) => void): Promise<CaseRow[]> {
  const rows: CaseRow[] = []
  const cw = corpusWorld(1_000)
  const counter = counterOf(cw.world)
  for (const size of SURFACE_SIZES) {
    const target = cw.coldPeers[0]!
    target.events = surfaceEvents(size)
    const iterations = iterationsFor(size, quick)
    rows.push(await measureCase({ suite: 'memory', tool: 'sessions_read', case: 'default window', corpus: 1_000, events: size }, iterations,
      () => sessionsRead({ session_id: target.header.id }, cw.world.call(cw.caller), cw.world.deps), counter))
    log(`  sessions_read at ${size} events done`)
  }
  // Hostile surface, everything included, at default and at maximum settings.
  // A target whose header fields are all at or past their display clips.
  const target = session(`session-${'f'.repeat(240)}`, 1, {
    title: 'T'.repeat(500),
    events: worstCaseSurface(300),
    header: { cwd: `/${'d'.repeat(400)}`, agentPreset: 'p'.repeat(100), parentSession: `session-${'e'.repeat(240)}`, origin: 'subagent' },
  })
  cw.world.corpus.add(target)
  rows.push(await measureCase({ suite: 'memory', tool: 'sessions_read', case: 'worst-case output', corpus: 1_000, events: 300 }, quick ? 2 : 5,
    () => sessionsRead({ session_id: target.header.id, include_injected: true, include_system: true }, cw.world.call(cw.caller), cw.world.deps), counter))
  const maxDeps: ToolDeps = { ...cw.world.deps, settings: { ...DEFAULT_SETTINGS, maxReadMessages: 100, maxMessageChars: 20_000 } }
  rows.push(await measureCase({ suite: 'memory', tool: 'sessions_read', case: 'worst-case output, max settings', corpus: 1_000, events: 300 }, quick ? 2 : 5,
    () => sessionsRead({ session_id: target.header.id, include_injected: true, include_system: true, max_messages: 100 }, cw.world.call(cw.caller), maxDeps), counter))
  const minDeps: ToolDeps = { ...cw.world.deps, settings: { ...DEFAULT_SETTINGS, maxReadMessages: 1, maxMessageChars: 100 } }
  rows.push(await measureCase({ suite: 'memory', tool: 'sessions_read', case: 'worst-case output, min settings', corpus: 1_000, events: 300 }, quick ? 2 : 5,
    () => sessionsRead({ session_id: target.header.id, include_injected: true, include_system: true }, cw.world.call(cw.caller), minDeps), counter))
  cw.world.corpus.sessions.delete(target.header.id)
  return rows
}

/** sessions_send at every corpus size: accepted (cold and live), and refusals that need a lookup. */
export async function sendCases(quick: boolean, log: (line: string) => void): Promise<CaseRow[]> {
  const rows: CaseRow[] = []
  for (const size of CORPUS_SIZES) {
    const cw = corpusWorld(size)
    const counter = counterOf(cw.world)
    const iterations = Math.min(iterationsFor(size, quick), cw.coldPeers.length - 2)
    const deps = cw.world.deps
    const noWake: ToolDeps = { ...deps, settings: { ...deps.settings, allowResume: false } }
    const send = (d: ToolDeps, args: unknown) => sessionsSend(args, cw.world.call(cw.caller), d)
    // Each accepted call goes to another cold peer (per-pair rate limit), which it wakes.
    rows.push(await measureCase({ suite: 'memory', tool: 'sessions_send', case: 'accepted, wakes cold', corpus: size }, iterations,
      index => send(deps, { session_id: cw.coldPeers[index]!.header.id, message: `status update ${index}` }), counter))
    rows.push(await measureCase({ suite: 'memory', tool: 'sessions_send', case: 'accepted, live peer', corpus: size }, Math.min(iterations, 5),
      index => send(deps, { session_id: cw.livePeer.header.id, message: `live note ${index}` }), counter))
    rows.push(await measureCase({ suite: 'memory', tool: 'sessions_send', case: 'not-found', corpus: size }, iterations,
      index => send(deps, { session_id: `session-missing-${index}`, message: 'hello' }), counter))
    rows.push(await measureCase({ suite: 'memory', tool: 'sessions_send', case: 'resume-disabled', corpus: size }, iterations,
      () => send(noWake, { session_id: cw.coldPeers.at(-1)!.header.id, message: 'hello' }), counter))
    rows.push(await measureCase({ suite: 'memory', tool: 'sessions_send', case: 'not-messageable', corpus: size }, iterations,
      () => send(deps, { session_id: cw.subagent.header.id, message: 'hello' }), counter))
    log(`  sessions_send at ${size} sessions done`)
  }
  return rows
}

/**
 * Bytes of the three tools as the model receives them, from the definitions
 * the plugin itself registers: `apply` mounted on the fake host, and what it
 * hands `ctx.tools.register` (as bench/harness/bench-plugin.mjs captures
 * them in the real harness). Each becomes the request's `tools` entry
 * `{"type":"function","function":{name, description, parameters}}` (compact
 * JSON, UTF-8; symbol keys of the TypeBox schemas drop out as they do on the
 * wire); `inner` is the same without the wrapper. The real-harness part
 * measures the entries the harness did send (`wireToolBytes`).
 */
export function schemaBytes(): { perTool: Record<string, number>, total: number, inner: number, json: string } {
  const host = new FakeHost()
  apply(host.context(), {})
  try {
    const definitions = [...host.registered.values()]
    if (definitions.length === 0) throw new Error('the plugin registered no tool on the fake host')
    const tools = definitions.map(definition => ({ type: 'function', function: { name: definition.name, description: definition.description, parameters: definition.parameters } }))
    const perTool = Object.fromEntries(tools.map(tool => [tool.function.name, Buffer.byteLength(JSON.stringify(tool))]))
    return { perTool, total: Buffer.byteLength(JSON.stringify(tools)), inner: Buffer.byteLength(JSON.stringify(tools.map(tool => tool.function))), json: JSON.stringify(tools) }
  } finally {
    host.dispose()
  }
}

/** One timed send through the mounted plugin. */
export interface PluginSendRow {
  case: string
  iterations: number
  /** The send's bound in this case (`recordWaitMs`), ms. */
  boundMs: number
  medianMs: number
  maxMs: number
  /** First line of the last result. */
  result: string
}

/**
 * Sends through the plugin mounted on the fake host (real adapters, home
 * guard and record wait), timed — the timings unit tests must not assert
 * (test/unit/plugin.test.ts proves the outcome on a fake clock):
 * - a queue to a session running a turn returns at its inbox record, not
 *   after `recordWaitMs`;
 * - disposing the plugin ends a send waiting for its record at once, not
 *   after its bound (measured from the disposal).
 */
export async function pluginSendCases(iterations: number): Promise<PluginSendRow[]> {
  const row = (name: string, boundMs: number, durations: number[], result: string): PluginSendRow => ({
    case: name, iterations, boundMs, medianMs: median(durations), maxMs: Math.max(...durations), result: result.split('\n')[0] ?? '',
  })
  // The plugin's waits use unref'd timers: keep this process up while a regressed send waits out its bound.
  const keepAlive = setInterval(() => undefined, 1000)
  try {
    return await timedPluginSends(iterations, row)
  } finally {
    clearInterval(keepAlive)
  }
}

async function timedPluginSends(iterations: number, row: (name: string, boundMs: number, durations: number[], result: string) => PluginSendRow): Promise<PluginSendRow[]> {
  const queued: number[] = []
  let queuedResult = ''
  {
    const host = new FakeHost()
    apply(host.context(), { maxSendsPerMinute: 120 })
    const me = host.goLive('session-me', 1)
    const busy = host.goLive('session-busy', 2)
    const held = busy.prompt('a long job', { hold: true })!
    await held.reached
    for (let index = 0; index < iterations; index++) {
      const started = performance.now()
      queuedResult = await host.run('sessions_send', { session_id: 'session-busy', message: `when you are done ${index}` }, me)
      queued.push(performance.now() - started)
    }
    held.release()
    host.dispose()
  }
  const cancelled: number[] = []
  let cancelledResult = ''
  const boundMs = 30_000
  for (let index = 0; index < iterations; index++) {
    const host = new FakeHost()
    apply(host.context(), { recordWaitMs: boundMs })
    const me = host.goLive('session-me', 1)
    const busy = host.goLive('session-busy', 2)
    const held = busy.prompt('a long job', { hold: true })!
    await held.reached
    const admitted = busy.nextEvent(event => event.type === 'agent/inbox/spliced' && event.data.target === 'next-step')
    const pending = host.run('sessions_send', { session_id: 'session-busy', message: 'steer me', mode: 'steer' }, me)
    await admitted
    const started = performance.now()
    host.dispose()
    cancelledResult = await pending
    cancelled.push(performance.now() - started)
    held.release()
  }
  return [
    row('queue to a session running a turn (returns at the inbox record)', DEFAULT_SETTINGS.recordWaitMs, queued, queuedResult),
    row('plugin disposed while a steer waits for its record (disposal → result)', boundMs, cancelled, cancelledResult),
  ]
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

/** One limiter measurement. */
export interface LimiterRow {
  peers: number
  size: { pairs: number, bodies: number, calls: number }
  /** Heap retained by the limiter after a full GC, MB. */
  retainedMB: number
  ms: number
}

/**
 * Send-limiter memory when one sender sends to `peers` distinct targets:
 * per target the executor's three limiter steps (check, recordDelivery,
 * recordCall with a result line of a realistic length). The entry counts
 * are reported, not judged: lru-cache's `max` bounds them by construction;
 * the retained heap is what the budget judges.
 */
export function limiterCase(peers: number): LimiterRow {
  fullGc()
  const before = heapMB()
  const started = performance.now()
  const limits = new SendLimits()
  const result = `accepted for session-x | mode=queue | chars=120 | hop 1 | recorded at seq 42\n${'The message is queued in that session\'s inbox. '.repeat(4)}`
  for (let index = 0; index < peers; index++) {
    const target = `session-${index.toString(16).padStart(8, '0')}-0000-4000-a000-000000000000`
    limits.check({ senderId: 'session-sender', targetId: target, body: `note ${index}`, latestRelay: undefined, maxHops: 4, maxSendsPerMinute: 6 })
    limits.recordDelivery('session-sender', target, `note ${index}`)
    limits.recordCall('session-sender', callIdentity(`call-${index}`, { session_id: target, message: `note ${index}` }), result)
  }
  const ms = performance.now() - started
  fullGc()
  const retainedMB = heapMB() - before
  const size = limits.size()
  return { peers, size, retainedMB, ms }
}

/** The limiter at 1,000, 10,000 and 100,000 distinct peers. */
export function limiterCases(): LimiterRow[] {
  return [1_000, 10_000, 100_000].map(limiterCase)
}
