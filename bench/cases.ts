/**
 * The in-memory cases: each tool run through the package's real executors
 * (`sessionsList`, `sessionsRead`, `sessionsSend` from src/tools) over the
 * counting fakes of the ports, at several corpus and surface sizes; plus the
 * schema size and the send-limiter memory.
 *
 * @module bench/cases
 */

import { DEFAULT_SETTINGS } from '../src/settings/resolve.js'
import { callIdentity, SendLimits } from '../src/model/limits.js'
import { parametersOf, TOOL_DESCRIPTIONS } from '../src/tools/definitions.js'
import { sessionsList } from '../src/tools/sessions-list.js'
import { sessionsRead } from '../src/tools/sessions-read.js'
import { sessionsSend } from '../src/tools/sessions-send.js'
import type { ToolDeps } from '../src/tools/shared.js'
import { session } from '../test/support/fakes.js'
import { corpusWorld, surfaceEvents, worstCaseSurface, type CorpusWorld } from './corpus.js'
import { fullGc, heapMB, measureCase, type CallCounter, type CaseRow } from './measure.js'

/** Sizes of issue 5. */
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
 * Bytes of the three tools as the model receives them: the request's
 * `tools` array, `{"type":"function","function":{name, description,
 * parameters}}` per tool (compact JSON, UTF-8), as rc.8's model adapter
 * sends it. `inner` is the same without the wrapper.
 */
export function schemaBytes(): { perTool: Record<string, number>, total: number, inner: number, json: string } {
  const names = Object.keys(TOOL_DESCRIPTIONS) as Array<keyof typeof TOOL_DESCRIPTIONS>
  const tools = names.map(name => ({ type: 'function', function: { name, description: TOOL_DESCRIPTIONS[name], parameters: parametersOf(name) } }))
  const perTool = Object.fromEntries(tools.map(tool => [tool.function.name, Buffer.byteLength(JSON.stringify(tool))]))
  return { perTool, total: Buffer.byteLength(JSON.stringify(tools)), inner: Buffer.byteLength(JSON.stringify(tools.map(tool => tool.function))), json: JSON.stringify(tools) }
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
 * recordCall with a result line of a realistic length).
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
