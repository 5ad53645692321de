/**
 * Bench plugin for the REAL harness (rc.8): mounted by a patch row next to
 * the package's own plugin row, it registers one tool, `bench_run`. The
 * scripted model calls it once; its `execute` then times the package's three
 * tools against the harness's own services and writes the figures to
 * `config.out` as JSON.
 *
 * The timed tools are the package's real definitions: `activate` from the
 * built plugin (`lib/plugin.js`) is run against a context whose `tools`
 * captures the three definitions instead of registering them, and whose
 * `sessionQuery` and `agents` are the host's own services wrapped only to
 * count calls. `sessionPersistence.list` / `.inspect` are counted too (the
 * instance methods are wrapped for the run and restored after), because
 * rc.8's `sessionQuery` does its own listing and full-log inspections inside
 * `readSurface` and `readTitleSnapshot(s)`. The caller is the bench
 * session's real agent (`exec.agent`), exactly as the harness passes it.
 *
 * Plain JavaScript, so the harness's loader imports it as is.
 *
 * Config: `out` (JSON path), `manifest` (the seeded home's manifest object),
 * `iterations` (timed calls per cheap case, default 7).
 *
 * @module bench/harness/bench-plugin
 */
import { writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { activate } from '../../lib/activate.js'
import { SettingsSource } from '../../lib/settings/source.js'
import { CorpusIndex } from '../../lib/index/corpus-index.js'
import { jsonlFiles, jsonlLayout } from '../../lib/index/jsonl-files.js'
import { corpusFloors, firstRunFloor, FLOOR_WHAT } from './floors.mjs'

export const name = 'dsh-cross-session-bench'

const MB = 1024 * 1024
/** Runs of a first call's floor, judged by their median. */
const FIRST_FLOOR_RUNS = 3

/** Every corpus index the package's port builds in this run (docs/performance.md "Corpus index"), for its counters. */
const indexes = new Set()
for (const method of ['refresh', 'check', 'newest']) {
  const original = CorpusIndex.prototype[method]
  CorpusIndex.prototype[method] = function tracked(...args) {
    indexes.add(this)
    return original.apply(this, args)
  }
}

/** Sum of the counters of every index seen so far. */
function indexTotals() {
  const totals = { scans: 0, singleChecks: 0, batchChecks: 0, headerReads: 0, titleFolds: 0, titleTailFolds: 0, inspects: 0, surfaceHits: 0, surfacesKept: 0, newestLists: 0 }
  for (const index of indexes) for (const key of Object.keys(totals)) totals[key] += index.counters[key]
  return totals
}

/** Call counters, by `service.method`, plus titles folded. */
function makeCounters() {
  return { calls: {}, titlesFolded: 0 }
}

function bump(counters, key, by = 1) {
  counters.calls[key] = (counters.calls[key] ?? 0) + by
}

/** `ctx.sessionQuery` seen through counters (same engine, same arguments). */
function countingSessionQuery(real, counters) {
  return {
    listSessions: signal => { bump(counters, 'sessionQuery.listSessions'); return real.listSessions(signal) },
    readTitleSnapshots: (ids, signal) => {
      bump(counters, 'sessionQuery.readTitleSnapshots')
      counters.titlesFolded += ids.length
      return real.readTitleSnapshots(ids, signal)
    },
    readTitleSnapshot: (id, signal) => {
      bump(counters, 'sessionQuery.readTitleSnapshot')
      counters.titlesFolded += 1
      return real.readTitleSnapshot(id, signal)
    },
    readSurface: id => { bump(counters, 'sessionQuery.readSurface'); return real.readSurface(id) },
  }
}

/** `ctx.agents` seen through counters (`get`, `resume`). */
function countingAgents(real, counters) {
  return {
    get: id => { bump(counters, 'agents.get'); return real.get(id) },
    currentInitiator: () => real.currentInitiator?.(),
    resume: options => { bump(counters, 'agents.resume'); return real.resume(options) },
    list: () => real.list?.(),
  }
}

/** Wrap persistence `list` / `inspect` on the instance; returns the restorer. */
function countPersistence(persistence, counters) {
  if (persistence === undefined || persistence === null) return () => {}
  const restore = []
  for (const method of ['list', 'listSnapshots', 'inspect', 'readFrom']) {
    const original = persistence[method]
    if (typeof original !== 'function') continue
    const had = Object.prototype.hasOwnProperty.call(persistence, method)
    try {
      persistence[method] = function counted(...args) {
        bump(counters, `persistence.${method}`)
        return original.apply(this, args)
      }
      restore.push(() => { if (had) persistence[method] = original; else delete persistence[method] })
    } catch {
      // A frozen or proxied service: persistence calls stay uncounted.
    }
  }
  return () => { for (const undo of restore) undo() }
}

/** The package's three definitions, built by its own `activate`. */
function packageDefinitions(ctx, config, counters, disposers) {
  const captured = new Map()
  const fake = {
    tools: { register: definition => { captured.set(definition.name, definition); return () => captured.delete(definition.name) } },
    sessionQuery: countingSessionQuery(ctx.sessionQuery, counters),
    agents: countingAgents(ctx.agents, counters),
    get: service => (service === 'sessionController' ? undefined : ctx.get(service)),
    inject: () => { throw new Error('not used') },
    effect: execute => { disposers.push(execute()) },
    logger: () => ({ info() {}, warn() {}, debug() {} }),
  }
  // The row config alone (no settings service in this fake context), read per call as in production.
  const source = new SettingsSource(config, () => {})
  activate(fake, source, () => {})
  return { definitions: captured, settings: source.current }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

function codePoints(text) {
  let count = 0
  for (const _ of text) count++
  return count
}

/**
 * Time one case: `argsFor(i)` gives the arguments of call i (call 0 is the
 * first, cold call; the median is over calls 1..n). Counters are per call.
 * `floor` (./floors.mjs), when given, is measured right after each call:
 * `first` after call 0, `warm` after each other one.
 */
async function timeCase(row, definition, argsFor, iterations, exec, counters, floor) {
  const durations = []
  const floorWarm = []
  let floorFirst
  let floorAfter
  const load = loadavg()[0]
  let first = 0
  let output = ''
  let peak = 0
  let firstCalls = {}
  const totals = makeCounters()
  for (let index = 0; index <= iterations; index++) {
    globalThis.gc?.()
    const base = process.memoryUsage().heapUsed
    counters.calls = {}
    counters.titlesFolded = 0
    const indexBefore = indexTotals()
    const started = performance.now()
    // The model's text as the registry renders it from the value (rc.8 ToolRuntime.createSuccessResult).
    const args = argsFor(index)
    output = definition.output.render(args, await definition.execute(args, exec(index))).map(block => block.text).join('\n')
    const ms = performance.now() - started
    const indexAfter = indexTotals()
    for (const key of Object.keys(indexAfter)) {
      const delta = indexAfter[key] - indexBefore[key]
      if (delta > 0) bump(counters, `index.${key}`, delta)
    }
    counters.titlesFolded += (indexAfter.titleFolds - indexBefore.titleFolds) + (indexAfter.titleTailFolds - indexBefore.titleTailFolds)
    peak = Math.max(peak, process.memoryUsage().heapUsed)
    if (index === 0) {
      first = ms
      firstCalls = { ...counters.calls, titlesFolded: counters.titlesFolded }
      // The floor of a first call is measured once per call like the product, but a lone sample moves with where the
      // collector happens to run (at 100,000 rows one floor measured 252 and 588 ms in two runs): the median of three.
      if (floor?.first !== undefined) floorFirst = median(Array.from({ length: FIRST_FLOOR_RUNS }, () => floor.first()))
      // Where the floor also runs as a first run (./floors.mjs `firstRunFloor`), that is the one the call is judged by,
      // and the in-process figure is kept beside it.
      if (floor?.firstRun !== undefined) {
        floorAfter = floorFirst
        floorFirst = await floor.firstRun(FIRST_FLOOR_RUNS)
      }
      continue
    }
    durations.push(ms)
    if (floor?.warm !== undefined) floorWarm.push(floor.warm())
    for (const [key, value] of Object.entries(counters.calls)) bump(totals, key, value)
    totals.titlesFolded += counters.titlesFolded
    void base
  }
  // No warm call (iterations 0): the per-call figures are the first call's.
  const perCall = iterations === 0 ? { ...firstCalls } : Object.fromEntries(Object.entries(totals.calls).map(([key, value]) => [key, value / iterations]))
  delete perCall.titlesFolded
  // The last text, for a caller that repeats a call until its answer is whole (not in the report: not enumerable).
  const result = {
    ...row,
    iterations,
    firstMs: first,
    medianMs: durations.length === 0 ? undefined : median(durations),
    calls: perCall,
    firstCalls,
    titlesFolded: iterations === 0 ? firstCalls.titlesFolded : totals.titlesFolded / iterations,
    peakHeapMB: peak / MB,
    outputChars: codePoints(output),
    outputHead: output.split('\n').slice(0, 2).join(' / ').slice(0, 160),
    ...(/^(\d+) of \d+ considered sessions$/m.test(output) ? { shown: Number(/^(\d+) of \d+ considered sessions$/m.exec(output)[1]) } : {}),
    load,
    ...(floor === undefined ? {} : { floor: { what: floor.what, ...(floorFirst === undefined ? {} : { firstMs: floorFirst }), ...(floorAfter === undefined ? {} : { afterMs: floorAfter }), ...(floorWarm.length === 0 ? {} : { medianMs: median(floorWarm) }) } }),
  }
  Object.defineProperty(result, 'lastOutput', { value: output })
  return result
}

export function apply(ctx, config = {}) {
  ctx.inject(['tools', 'sessionQuery', 'agents'], inner => {
    inner.effect(() => inner.tools.register({
      name: 'bench_run',
      description: 'Run the dsh-cross-session benchmark against this harness.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
      async execute(_args, exec) {
        try {
          const rows = await runAll(inner, config, exec)
          writeFileSync(config.out, JSON.stringify({ ok: true, rows }, null, 2))
          return `bench finished: ${rows.length} rows`
        } catch (error) {
          writeFileSync(config.out, JSON.stringify({ ok: false, error: String(error?.stack ?? error) }))
          return `bench failed: ${String(error)}`
        }
      },
    }), 'bench_run')
  })
}

async function runAll(ctx, config, exec) {
  const manifest = config.manifest
  const iterations = config.iterations ?? 7
  const corpus = manifest.sessions
  const counters = makeCounters()
  const disposers = []
  const restorePersistence = countPersistence(ctx.get('sessionPersistence'), counters)
  let serial = 0
  const execFor = () => () => ({ agent: exec.agent, signal: exec.signal, callId: `bench-${++serial}` })
  const rows = []
  let floors
  try {
    const waking = packageDefinitions(ctx, {}, counters, disposers)
    const noWake = packageDefinitions(ctx, { allowResume: false }, counters, disposers)
    const list = waking.definitions.get('sessions_list')
    const read = waking.definitions.get('sessions_read')
    const send = waking.definitions.get('sessions_send')
    const sendNoWake = noWake.definitions.get('sessions_send')
    const common = { suite: 'real', corpus }
    const slow = Math.max(2, Math.min(iterations, corpus > 500 ? 2 : 3))
    // The floors (./floors.mjs) of the same root, read from the same store file, on this thread.
    const layout = jsonlLayout(ctx.get('sessionPersistence'))
    const storeFile = join(manifest.home, 'cross-session', 'store.sqlite')
    floors = layout === undefined ? undefined : await corpusFloors(layout, storeFile)
    // `firstRun`: a first call's floor also run as a first run, and judged by that (./floors.mjs `firstRunFloor`).
    const floorOf = (name, first, warm, firstRun = false) => floors === undefined ? undefined : {
      what: FLOOR_WHAT[name], first: first ? floors[name] : undefined, warm: warm ? floors[name] : undefined,
      firstRun: firstRun ? async runs => await firstRunFloor(name, { root: layout.root, fileName: layout.fileName }, storeFile, runs) : undefined,
    }
    if (config.prime === true) {
      // The priming process (bench/harness/run-harness.ts): the first process on this home (its store removed
      // before) indexes it, once, and reads each long log once (what an earlier process read, the measured one
      // finds kept: index/surface-cache.ts).
      // One call, no warm one: a warm call would go on with the folds the first one left (its budget).
      // The floor runs once untimed first: the page cache then holds every log for the call and for its floor
      // alike (measured right after the call, the floor found the logs the call had just brought in from disk).
      floors?.unindexedQuery()
      const unindexed = await timeCase({ ...common, tool: 'sessions_list', case: 'query, first process on an unindexed home' }, list, () => ({ query: manifest.smallWord }), 0, execFor(), counters, floorOf('unindexedQuery', true, false))
      rows.push(unindexed)
      // The first query's title folds are bounded (docs/performance.md "A query on a home still being indexed"): the
      // same query again until the answer is whole (no "not searched" line), so the measured process finds every title
      // folded. Its row: the time of every call to the whole answer, the first included.
      let wholeMs = unindexed.firstMs
      let calls = 1
      for (let text = unindexed.lastOutput; /not searched by title/.test(text) && calls < 1000; calls++) {
        const started = performance.now()
        const args = { query: manifest.smallWord }
        text = list.output.render(args, await list.execute(args, execFor()())).map(block => block.text).join('\n')
        wholeMs += performance.now() - started
      }
      rows.push({ ...common, tool: 'sessions_list', case: `query, first process on an unindexed home, to the whole answer (${calls} calls)`,
        iterations: 0, firstMs: wholeMs, medianMs: undefined, calls: {}, firstCalls: { calls }, titlesFolded: 0, load: loadavg()[0],
        ...(unindexed.floor === undefined ? {} : { floor: unindexed.floor }) })
      for (const [events, id] of Object.entries(manifest.longIds)) {
        rows.push(await timeCase({ ...common, tool: 'sessions_read', case: 'cold, in the priming process', events: Number(events) }, read, () => ({ session_id: id }), 1, execFor(), counters))
      }
      return rows
    }

    rows.push(await timeCase({ ...common, tool: 'sessions_list', case: 'no query' }, list, () => ({}), iterations, execFor(), counters, floorOf('listFirst', true, false, true)))
    rows.push(await timeCase({ ...common, tool: 'sessions_list', case: 'live_only' }, list, () => ({ live_only: true }), iterations, execFor(), counters))
    // A query's floor after every call: the same stat of every candidate, first and warm. Its warm median is over 8
    // calls up to 10,000 sessions (the first two or three warm calls still run code the JIT has not optimized), 3 at 100,000.
    const queryWarm = corpus > 50_000 ? 3 : 8
    rows.push(await timeCase({ ...common, tool: 'sessions_list', case: 'query (title word)' }, list, () => ({ query: manifest.smallWord }), queryWarm, execFor(), counters, floorOf('queryWarm', true, true, true)))

    rows.push(await timeCase({ ...common, tool: 'sessions_read', case: 'self (live)', events: exec.agent?.session?.events?.length }, read, () => ({ session_id: exec.agent.session.id }), iterations, execFor(), counters))
    const small = await countEvents(ctx, manifest.smallId)
    rows.push(await timeCase({ ...common, tool: 'sessions_read', case: 'cold', events: small }, read, () => ({ session_id: manifest.smallId }), iterations, execFor(), counters))
    for (const [events, id] of Object.entries(manifest.longIds)) {
      rows.push(await timeCase({ ...common, tool: 'sessions_read', case: 'cold', events: Number(events) }, read, () => ({ session_id: id }), Number(events) > 5000 ? slow : iterations, execFor(), counters))
    }

    rows.push(await timeCase({ ...common, tool: 'sessions_send', case: 'not-found' }, send, index => ({ session_id: `session-missing-${index}`, message: 'hello' }), iterations, execFor(), counters))
    rows.push(await timeCase({ ...common, tool: 'sessions_send', case: 'resume-disabled (cold)' }, sendNoWake, () => ({ session_id: manifest.smallId, message: 'hello' }), iterations, execFor(), counters))
    const targets = manifest.sendTargets
    const wakes = Math.min(3, targets.length - 1)
    rows.push(await timeCase({ ...common, tool: 'sessions_send', case: 'accepted, wakes cold' }, send, index => ({ session_id: targets[index], message: `wake-up note ${index}` }), wakes, execFor(), counters))
    rows.push(await timeCase({ ...common, tool: 'sessions_send', case: 'accepted, live peer' }, send, index => ({ session_id: targets[1], message: `follow-up note ${index}` }), 3, execFor(), counters))
    rows.push(...await harnessRows(ctx, manifest, common, exec.signal))
  } finally {
    floors?.close()
    restorePersistence()
    for (const dispose of disposers.reverse()) {
      try { await dispose?.() } catch { /* reported by the package's own logger */ }
    }
  }
  return rows
}

/** Time one raw async operation: first call and the median of `warm` more. */
async function timeRaw(row, run, warm) {
  const durations = []
  let first = 0
  let value
  for (let index = 0; index <= warm; index++) {
    globalThis.gc?.()
    const started = performance.now()
    value = await run()
    const ms = performance.now() - started
    if (index === 0) first = ms
    else durations.push(ms)
  }
  return { row: { ...row, load: loadavg()[0], iterations: warm, firstMs: first, medianMs: durations.length > 0 ? median(durations) : first, calls: {}, titlesFolded: 0, peakHeapMB: process.memoryUsage().heapUsed / MB, outputChars: 0 }, value }
}

/**
 * What the harness's own persistence costs at this corpus (measured before
 * choosing the corpus index), and the corpus index's retained heap: a fresh index over
 * the same root, one refresh, full GC before and after.
 */
async function harnessRows(ctx, manifest, common, signal) {
  const persistence = ctx.get('sessionPersistence')
  // The service as it is now, per call: the host may have replaced it since (a call on a replaced one's
  // coordinator fails with "inactive context", seen under heavy load after the sends woke sessions).
  const current = () => ctx.get('sessionPersistence') ?? persistence
  const rows = []
  if (persistence === undefined) return rows
  const warm = manifest.sessions > 5000 ? 1 : 2
  // Above 20,000 sessions rc.8's own listing (~0.75 ms a session) and an index built from nothing would take
  // minutes of the run's time limit: they are measured up to 10,000 sessions.
  const large = manifest.sessions > 20_000
  if (!large) rows.push((await timeRaw({ ...common, tool: 'persistence', case: 'listSnapshots()' }, () => current().listSnapshots(), warm)).row)
  for (const [events, id] of [['small', manifest.smallId], ...Object.entries(manifest.longIds)]) {
    const timed = await timeRaw({ ...common, tool: 'persistence', case: `inspect(id), ${events} events` }, () => current().inspect(id), 2)
    rows.push({ ...timed.row, events: timed.value.events.length })
  }
  const layout = jsonlLayout(persistence)
  if (layout === undefined || large) return rows
  globalThis.gc?.()
  const before = process.memoryUsage().heapUsed
  const index = new CorpusIndex(jsonlFiles(layout))
  const started = performance.now()
  const entries = (await index.refresh(signal)).length
  const ms = performance.now() - started
  globalThis.gc?.()
  const retained = (process.memoryUsage().heapUsed - before) / MB
  rows.push({ ...common, tool: 'corpus index', case: 'one refresh from empty, retained heap', iterations: 1, firstMs: ms, medianMs: ms, calls: { entries, 'estimated MB': Number((index.size.bytes / MB).toFixed(2)) }, titlesFolded: 0, peakHeapMB: process.memoryUsage().heapUsed / MB, retainedMB: retained, outputChars: 0 })
  void index.size
  return rows
}

async function countEvents(ctx, id) {
  try {
    const surface = await ctx.sessionQuery.listEvents(id)
    return surface.length
  } catch {
    return undefined
  }
}
