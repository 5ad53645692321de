/**
 * The budgets of the benchmark (docs/performance.md "Budgets"), evaluated
 * over the rows it measured. Pure: rows in, verdicts out. A budget over
 * "every row" fails when there is no row: nothing measured is not a pass.
 *
 * Documented send cost (src/tools/sessions-send.ts): an accepted send makes
 * at most {@link SEND_ACCEPTED_MAX_CALLS} port calls — one non-waking
 * `lookup` of the target, one `readTitles` of the caller (frame), one
 * `resolve`, one `admit`, one bounded `waitRecorded` — and a refusal after
 * the lookup at most {@link SEND_REFUSED_MAX_CALLS}; never `listSessions`.
 *
 * Several processes on one home (docs/architecture.md §8, figures in
 * docs/performance.md): {@link homeVerdicts} — delivery between real `dsh`
 * processes, an idle owner's CPU, the store bounded by its sweep; and
 * {@link loadVerdicts} — many processes posting at once.
 *
 * @module bench/budgets
 */

import { DEFAULT_SETTINGS } from '../src/settings/resolve.js'
import { SURFACE_MIN_EVENTS } from '../src/index/surface-cache.js'
import { QUERY_TITLE_BUDGET_MS } from '../src/tools/sessions-list.js'
import type { MachinesResult } from './home/machines.js'
import type { LimiterRow, PluginSendRow } from './cases.js'
import type { CrossProcessResult } from './home/cross-process.js'
import type { RealResult } from './home/real.js'
import type { StoreSizeResult } from './home/store-size.js'
import { PACED_EVERY_MS, PACED_MESSAGES, type LoadResult } from './home/load.js'
import type { CaseRow } from './measure.js'

/** Port calls of one accepted send. */
export const SEND_ACCEPTED_MAX_CALLS = 5
/** Port calls of one send refused after its target lookup. */
export const SEND_REFUSED_MAX_CALLS = 1
/** Schema budget, bytes (docs/tools.md, the three definitions as the model receives them; `test/unit/catalog.test.ts` holds the same line). */
export const SCHEMA_BUDGET_BYTES = 1400
/** Heap the send limiter may retain, whatever the number of peers, MB. */
export const LIMITER_HEAP_BUDGET_MB = 8

/** One verdict. */
export interface Verdict {
  budget: string
  measured: string
  pass: boolean
}

const total = (calls: Record<string, number>): number => Object.values(calls).reduce((sum, value) => sum + value, 0)

/** `pass` of a budget every row must meet: at least one row, and none off. */
function everyRow<T>(rows: readonly T[], off: readonly T[]): boolean {
  return rows.length > 0 && off.length === 0
}

function ratio(rows: CaseRow[], pick: (row: CaseRow) => boolean, small: (row: CaseRow) => boolean, large: (row: CaseRow) => boolean): { ratio: number, detail: string } | undefined {
  const a = rows.find(row => pick(row) && small(row))
  const b = rows.find(row => pick(row) && large(row))
  if (a === undefined || b === undefined) return undefined
  const value = b.medianMs / Math.max(a.medianMs, 1e-3)
  return { ratio: value, detail: `${b.medianMs.toFixed(2)} ms / ${a.medianMs.toFixed(2)} ms = ${value.toFixed(1)}×` }
}

/** Budgets over the in-memory rows. */
export function memoryVerdicts(rows: CaseRow[], schemaTotal: number, limiter: LimiterRow[]): Verdict[] {
  const verdicts: Verdict[] = []
  // A row summing the calls to a whole answer is no one call: it is judged by its floor only (floorVerdicts).
  const lists = rows.filter(row => row.tool === 'sessions_list' && !row.case.includes('to the whole answer'))
  const reads = rows.filter(row => row.tool === 'sessions_read')
  const sends = rows.filter(row => row.tool === 'sessions_send')

  const badList = lists.filter(row => row.calls.listSessions !== 1 || (row.calls.readTitles ?? 0) > 1)
  verdicts.push({ budget: 'sessions_list: exactly 1 listSessions, ≤ 1 readTitles per call', measured: badList.length === 0 ? `all ${lists.length} cases: listSessions 1, readTitles ≤ 1` : `${badList.length} cases off: ${badList.map(r => `${r.case}@${r.corpus} ${JSON.stringify(r.calls)}`).join('; ')}`, pass: everyRow(lists, badList) })
  const noQuery = lists.filter(row => !row.case.startsWith('query'))
  const overFolded = noQuery.filter(row => row.shown === undefined || row.titlesFolded > row.shown)
  verdicts.push({ budget: 'sessions_list without query: titles folded ≤ rows shown', measured: noQuery.map(row => `${row.titlesFolded}≤${row.shown}`).join(', ') || 'no rows', pass: everyRow(noQuery, overFolded) })
  for (const kind of ['no query', 'query "reconcile"']) {
    const r = ratio(lists, row => row.case === kind, row => row.corpus === 1_000, row => row.corpus === 50_000)
    verdicts.push({ budget: `sessions_list (${kind}): cost at 50,000 ≤ 60× cost at 1,000`, measured: r?.detail ?? 'missing rows', pass: r !== undefined && r.ratio <= 60 })
  }

  const badRead = reads.filter(row => row.calls.readSurface !== 1 || (row.calls.listSessions ?? 0) > 0)
  verdicts.push({ budget: 'sessions_read: 1 readSurface, 0 listSessions per call', measured: badRead.length === 0 ? `all ${reads.length} cases: ${JSON.stringify(reads[0]?.calls)}` : JSON.stringify(badRead.map(r => r.calls)), pass: everyRow(reads, badRead) })
  const r = ratio(reads, row => row.case === 'default window', row => row.events === 1_000, row => row.events === 100_000)
  verdicts.push({ budget: 'sessions_read: cost at 100,000 events ≤ 120× cost at 1,000', measured: r?.detail ?? 'missing rows', pass: r !== undefined && r.ratio <= 120 })
  // What a read spends beyond the messages' own text: header lines, one heading per message, markers and footers.
  // The output cap (presentation/read.ts) bounds only the total, so nothing in the code guarantees this figure.
  // A read the output cap cut (hostile 240-character ids at 1 message of 100 characters) no longer parses: it is
  // named, not judged; every default-window read must parse.
  const overhead = reads.map(row => ({ row, limit: READ_HEADER_CHARS + READ_HEADING_CHARS * (row.shown ?? 0) }))
  const judged = overhead.filter(({ row }) => row.readOverhead !== undefined)
  verdicts.push({
    budget: `sessions_read: text beyond the messages ≤ ${READ_HEADER_CHARS} + ${READ_HEADING_CHARS} per shown message (code points)`,
    measured: overhead.map(({ row, limit }) => row.readOverhead === undefined ? `${row.case}: cut by the output cap` : `${row.readOverhead}≤${limit} (${row.shown} shown)`).join(', '),
    pass: judged.length > 0 && reads.filter(row => row.case === 'default window').every(row => row.readOverhead !== undefined)
      && judged.every(({ row, limit }) => row.readOverhead! <= limit),
  })

  const listing = sends.filter(row => (row.calls.listSessions ?? 0) > 0)
  verdicts.push({ budget: 'sessions_send: no listSessions per send', measured: listing.length === 0 ? `0 in all ${sends.length} cases` : `${listing.length} cases list`, pass: everyRow(sends, listing) })
  const accepted = sends.filter(row => row.case.startsWith('accepted'))
  const refused = sends.filter(row => !row.case.startsWith('accepted'))
  const overCalls = sends.filter(row => total(row.calls) > (row.case.startsWith('accepted') ? SEND_ACCEPTED_MAX_CALLS : SEND_REFUSED_MAX_CALLS))
  const worst = (of: CaseRow[]): string => of.length === 0 ? 'no rows' : String(Math.max(...of.map(row => total(row.calls))))
  verdicts.push({ budget: `sessions_send: ≤ ${SEND_ACCEPTED_MAX_CALLS} port calls accepted, ≤ ${SEND_REFUSED_MAX_CALLS} refused after lookup`, measured: `accepted max ${worst(accepted)}, refused max ${worst(refused)}`, pass: accepted.length > 0 && refused.length > 0 && overCalls.length === 0 })
  verdicts.push(limiterVerdict(limiter))
  verdicts.push({ budget: `schemas of the definitions the plugin registers, as the model receives them, ≤ ${SCHEMA_BUDGET_BYTES} bytes`, measured: `${schemaTotal} bytes`, pass: schemaTotal > 0 && schemaTotal <= SCHEMA_BUDGET_BYTES })
  return verdicts
}

/**
 * The send limiter under load: the heap it retains after a full GC, with
 * one sender and 100,000 distinct peers, within {@link LIMITER_HEAP_BUDGET_MB}
 * and no more than at 10,000 (flat once its caches are full). Its entry
 * counts are not judged: lru-cache's `max` bounds them by construction.
 */
export function limiterVerdict(limiter: readonly LimiterRow[]): Verdict {
  const last = limiter.find(row => row.peers === 100_000)
  const mid = limiter.find(row => row.peers === 10_000)
  if (last === undefined || mid === undefined) return { budget: 'send limiter retained heap', measured: 'missing the 10k or 100k row', pass: false }
  return {
    budget: `send limiter retained heap at 100k distinct peers ≤ ${LIMITER_HEAP_BUDGET_MB} MB and ≤ 1.5× its 10k figure + 2 MB`,
    measured: `${last.retainedMB.toFixed(2)} MB at 100k vs ${mid.retainedMB.toFixed(2)} MB at 10k (entries ${JSON.stringify(last.size)})`,
    pass: last.retainedMB <= LIMITER_HEAP_BUDGET_MB && last.retainedMB <= mid.retainedMB * 1.5 + 2,
  }
}

/** The tools entries the real harness sent the model (its chat request), within the schema budget. */
export function wireSchemaVerdict(wireToolBytes: Record<string, number>): Verdict {
  const names = Object.keys(wireToolBytes)
  // The request's `tools` array: the entries, their commas and the brackets.
  const wire = Object.values(wireToolBytes).reduce((sum, bytes) => sum + bytes, 0) + Math.max(0, names.length - 1) + 2
  return { budget: `tools on the wire (the real harness's chat request, the three entries) ≤ ${SCHEMA_BUDGET_BYTES} bytes`, measured: names.length === 3 ? `${wire} bytes` : `${names.length} of 3 tools seen`, pass: names.length === 3 && wire <= SCHEMA_BUDGET_BYTES }
}

/** Most a queue to a busy session may take: it returns at the inbox record, far short of `recordWaitMs`. */
export const QUEUE_TO_BUSY_MAX_MS = DEFAULT_SETTINGS.recordWaitMs / 10
/** Most a send may take to end once the plugin is disposed under it, ms. */
export const CANCELLED_WAIT_MAX_MS = 100

/** Budgets over the sends through the mounted plugin (test/unit/plugin.test.ts proves the outcomes; these are the times). */
export function pluginSendVerdicts(rows: readonly PluginSendRow[]): Verdict[] {
  const queue = rows.find(row => row.case.startsWith('queue to a session running'))
  const cancelled = rows.find(row => row.case.startsWith('plugin disposed'))
  const ms = (row: PluginSendRow | undefined): string => row === undefined ? 'missing' : `median ${row.medianMs.toFixed(2)} ms, max ${row.maxMs.toFixed(2)} ms over ${row.iterations}`
  return [
    { budget: `queue to a busy session returns at its inbox record: max ≤ ${QUEUE_TO_BUSY_MAX_MS} ms (recordWaitMs/10)`, measured: ms(queue), pass: queue !== undefined && queue.iterations > 0 && /in its inbox at seq \d+/.test(queue.result) && queue.maxMs <= QUEUE_TO_BUSY_MAX_MS },
    { budget: `disposal ends a send waiting for its record (bound 30,000 ms): max ≤ ${CANCELLED_WAIT_MAX_MS} ms after the disposal`, measured: ms(cancelled), pass: cancelled !== undefined && cancelled.iterations > 0 && /wait cancelled/.test(cancelled.result) && cancelled.maxMs <= CANCELLED_WAIT_MAX_MS },
  ]
}

/** Listings of the whole corpus one call made (rc.8 `sessionQuery` or persistence). */
function listings(calls: Record<string, number> | undefined): number {
  if (calls === undefined) return 0
  return (calls['sessionQuery.listSessions'] ?? 0) + (calls['persistence.list'] ?? 0) + (calls['persistence.listSnapshots'] ?? 0)
}

/**
 * Absolute targets per real corpus size that hold on any machine the bench
 * runs on (docs/performance.md "Budgets"): a warm list shows 25 rows and
 * re-checks only directories, a refused send touches one log, the index's
 * heap is counted in MB. The big-corpus calls are judged against their
 * floors instead ({@link FLOOR_RATIOS}).
 */
export const CORPUS_TARGETS: Readonly<Record<number, { listWarmMs: number, refusedSendMs: number, indexHeapMB?: number }>> = {
  10_000: { listWarmMs: 100, refusedSendMs: 300, indexHeapMB: 64 },
  100_000: { listWarmMs: 300, refusedSendMs: 300 },
}

/**
 * Each big-corpus call against its floor, measured on the same files in the
 * same process right after each call, a first call's as a first run in new
 * worker threads (bench/harness/floors.mjs says what each floor reads and
 * why), product / floor at most. Judged at 10,000 and
 * 100,000 sessions; ratios, so a loaded or slower machine moves both sides.
 */
export const FLOOR_RATIOS = {
  /** A new process's first `sessions_list {}` on a home an earlier process indexed. */
  listFirst: 2,
  /** A warm `sessions_list {query}`. */
  queryWarm: 1.5,
  /** The first `sessions_list {query}` of a process that already listed (its worker thread starts then). */
  queryFirst: 2,
  /** The first `sessions_list {query}` of the first process on an unindexed home (every header read, every title folded, every row written). */
  unindexedQuery: 4,
} as const

/** Sizes at which the floor ratios are judged. */
export const FLOOR_SIZES: readonly number[] = [10_000, 100_000]

/**
 * A cold `sessions_read` of the largest log against rc.8's own
 * `inspect(id)` of that log in the same run, at most: in a new process whose
 * home kept the surface ({@link KEPT_READ_VS_INSPECT}, first and warm), and
 * the first read of it on the home, in the priming process ({@link FIRST_READ_VS_INSPECT}).
 */
export const KEPT_READ_VS_INSPECT = 0.25
export const FIRST_READ_VS_INSPECT = 2

/** Header reads a first call of a new process may make on an indexed home (sessions the bench itself created since). */
const NEW_SINCE_PRIMED = 10

/** Budgets over the real harness rows (call counts; corpus cost). */
/** A read's header lines and footers, at most (the session line's fields are clipped for display), code points. */
export const READ_HEADER_CHARS = 900
/** One message heading and its truncation marker, at most, code points. */
export const READ_HEADING_CHARS = 160

export function realVerdicts(rows: CaseRow[]): Verdict[] {
  const verdicts: Verdict[] = []
  // A row summing the calls to a whole answer is no one call: it is judged by its floor only (floorVerdicts).
  const lists = rows.filter(row => row.tool === 'sessions_list' && !row.case.includes('to the whole answer'))
  const reads = rows.filter(row => row.tool === 'sessions_read')
  const sends = rows.filter(row => row.tool === 'sessions_send')
  // One listing of the root a call: a refresh of the index (`scans`), or a new process's first list (`newestLists`).
  const rootListings = (calls: Record<string, number> | undefined): number => (calls?.['index.scans'] ?? 0) + (calls?.['index.newestLists'] ?? 0)
  const badList = lists.filter(row => listings(row.calls) > 0 || listings(row.firstCalls) > 0 || rootListings(row.calls) !== 1)
  verdicts.push({ budget: 'real sessions_list: one listing of the root (index.scans or index.newestLists 1), no corpus listing', measured: `${lists.length - badList.length}/${lists.length} cases`, pass: everyRow(lists, badList) })
  const noQuery = lists.filter(row => !row.case.startsWith('query'))
  verdicts.push({ budget: 'real sessions_list without query: titles folded ≤ rows shown (first call too)', measured: noQuery.map(row => `${row.firstCalls?.titlesFolded ?? '?'}/${row.titlesFolded}≤${row.shown}`).join(', '), pass: noQuery.length > 0 && noQuery.every(row => row.shown !== undefined && row.titlesFolded <= row.shown && (row.firstCalls?.titlesFolded ?? 0) <= row.shown) })
  // Rows with warm calls (the priming process's first query has none: `iterations` 0).
  const warmRereads = lists.filter(row => row.iterations > 0 && ((row.calls['index.headerReads'] ?? 0) > 0 || (row.calls['index.titleFolds'] ?? 0) > 0))
  verdicts.push({ budget: 'real sessions_list warm calls re-read no unchanged log (0 header reads, 0 full title folds)', measured: `${lists.length - warmRereads.length}/${lists.length} cases`, pass: everyRow(lists, warmRereads) })
  const badRead = reads.filter(row => listings(row.calls) > 0 || (row.calls['persistence.inspect'] ?? 0) > 1)
  verdicts.push({ budget: 'real sessions_read: no corpus listing, ≤ 1 inspect (its own log)', measured: `${reads.length - badRead.length}/${reads.length} cases`, pass: everyRow(reads, badRead) })
  // The priming process read each long log once: the measured process's first read of one parses nothing (index/surface-cache.ts).
  const keptReads = reads.filter(row => row.case === 'cold' && (row.events ?? 0) >= SURFACE_MIN_EVENTS)
  const reparsed = keptReads.filter(row => (row.firstCalls?.['persistence.inspect'] ?? 0) > 0 || (row.calls['persistence.inspect'] ?? 0) > 0)
  verdicts.push({ budget: `real cold sessions_read of an unchanged log of ≥ ${SURFACE_MIN_EVENTS} events read before: no inspect, first call too`, measured: keptReads.map(row => `${row.events} events: ${row.firstCalls?.['persistence.inspect'] ?? 0}/${row.calls['persistence.inspect'] ?? 0}`).join(', '), pass: keptReads.length > 0 && reparsed.length === 0 })
  const refused = sends.filter(row => !row.case.startsWith('accepted'))
  const badSend = refused.filter(row => listings(row.calls) > 0)
  verdicts.push({ budget: 'real sessions_send refused: no corpus listing', measured: `${refused.length - badSend.length}/${refused.length} cases`, pass: everyRow(refused, badSend) })
  for (const [size, targets] of Object.entries(CORPUS_TARGETS)) {
    const at = rows.filter(row => row.corpus === Number(size))
    if (at.length > 0) verdicts.push(...corpusVerdicts(at, Number(size), targets), ...(FLOOR_SIZES.includes(Number(size)) ? floorVerdicts(at, Number(size)) : []))
  }
  return verdicts
}

/**
 * `product / floor ≤ limit`, with both figures and the load beside them; a missing figure fails. `after`: the same
 * floor run in the call's process right after it, printed beside a first-run floor (bench/harness/floors.mjs
 * `firstRunFloor`) with its own ratio, not judged.
 */
function ratioVerdict(budget: string, product: number | undefined, floor: number | undefined, limit: number, load: number | undefined,
  after?: number): Verdict {
  if (product === undefined || floor === undefined) return { budget, measured: `missing (product ${product?.toFixed(0) ?? '–'} ms, floor ${floor?.toFixed(0) ?? '–'} ms)`, pass: false }
  const value = product / Math.max(floor, 1e-3)
  const beside = after === undefined ? '' : `the floor as a first run; run after the call in its process: ${after.toFixed(0)} ms = ${(product / Math.max(after, 1e-3)).toFixed(2)}×; `
  return { budget, measured: `${product.toFixed(0)} ms / ${floor.toFixed(0)} ms = ${value.toFixed(2)}× (${beside}load ${load?.toFixed(1) ?? '?'})`, pass: value <= limit }
}

/**
 * The first query on an unindexed home is bounded in time (docs/performance.md "A query on a home still being
 * indexed"): its title folds stop `QUERY_TITLE_BUDGET_MS` after the call began (one fold at least); the refresh before
 * them (a header read per log) is not bounded, so the budget gives the call as much time again.
 */
function unindexedBound(n: string, row: CaseRow | undefined): Verdict {
  const limit = 2 * QUERY_TITLE_BUDGET_MS
  const budget = `sessions_list {query} at ${n}: first process on an unindexed home, first call ≤ ${limit} ms (title folds stop ${QUERY_TITLE_BUDGET_MS} ms after the call began)`
  if (row?.firstMs === undefined) return { budget, measured: 'missing', pass: false }
  return { budget, measured: `${row.firstMs.toFixed(0)} ms (load ${row.load?.toFixed(1) ?? '?'})`, pass: row.firstMs <= limit }
}

/** The floor ratios at one corpus size (rows of the priming and the measured process). */
export function floorVerdicts(at: CaseRow[], size: number): Verdict[] {
  const n = size.toLocaleString('en-US')
  const find = (tool: string, test: (row: CaseRow) => boolean): CaseRow | undefined => at.find(row => row.tool === tool && test(row))
  const list = find('sessions_list', row => row.case === 'no query')
  const query = find('sessions_list', row => row.case === 'query (title word)')
  const unindexed = find('sessions_list', row => row.case === 'query, first process on an unindexed home')
  const whole = find('sessions_list', row => row.case.startsWith('query, first process on an unindexed home, to the whole answer'))
  const largest = (test: (row: CaseRow) => boolean): CaseRow | undefined => at.filter(test).sort((a, b) => (b.events ?? 0) - (a.events ?? 0))[0]
  const read = largest(row => row.tool === 'sessions_read' && row.case === 'cold')
  const primedRead = largest(row => row.tool === 'sessions_read' && row.case === 'cold, in the priming process')
  // rc.8's inspect of that same log (its row counts the events inspect returned, the read row the seeded count): the nearest.
  const inspect = at.filter(row => row.tool === 'persistence' && row.case.startsWith('inspect') && row.events !== undefined)
    .sort((a, b) => Math.abs(a.events! - (read?.events ?? 0)) - Math.abs(b.events! - (read?.events ?? 0)))[0]
  const verdicts = [
    ratioVerdict(`sessions_list {} at ${n}: a new process's first call ≤ ${FLOOR_RATIOS.listFirst}× its floor (${list?.floor?.what ?? 'floor'})`, list?.firstMs, list?.floor?.firstMs, FLOOR_RATIOS.listFirst, list?.load, list?.floor?.afterMs),
    ratioVerdict(`sessions_list {query} at ${n}: warm median ≤ ${FLOOR_RATIOS.queryWarm}× its floor (${query?.floor?.what ?? 'floor'}, median after each warm call)`, query?.medianMs, query?.floor?.medianMs, FLOOR_RATIOS.queryWarm, query?.load),
    ratioVerdict(`sessions_list {query} at ${n}: first query of a process that listed ≤ ${FLOOR_RATIOS.queryFirst}× its floor`, query?.firstMs, query?.floor?.firstMs, FLOOR_RATIOS.queryFirst, query?.load, query?.floor?.afterMs),
    ratioVerdict(`sessions_list {query} at ${n}: first process on an unindexed home, first call ≤ ${FLOOR_RATIOS.unindexedQuery}× its floor (${unindexed?.floor?.what ?? 'floor'})`, unindexed?.firstMs, unindexed?.floor?.firstMs, FLOOR_RATIOS.unindexedQuery, unindexed?.load),
    // The first call's title folds stop QUERY_TITLE_BUDGET_MS after it began; the whole answer takes the calls a model repeats.
    ratioVerdict(`sessions_list {query} at ${n}: first process on an unindexed home, every call to the whole answer (${whole?.case.replace(/^.*\((\d+) calls\)$/, '$1') ?? '?'} calls) ≤ ${FLOOR_RATIOS.unindexedQuery}× its floor`, whole?.firstMs, whole?.floor?.firstMs, FLOOR_RATIOS.unindexedQuery, whole?.load),
    unindexedBound(n, unindexed),
  ]
  const events = read?.events?.toLocaleString('en-US') ?? '?'
  // rc.8's first inspect of the log parses it; its later ones are served from its own prepared copy.
  verdicts.push(ratioVerdict(`cold sessions_read at ${n}, largest log (${events} events), new process, surface kept: first ≤ ${KEPT_READ_VS_INSPECT}× rc.8's first inspect(id) of it`, read?.firstMs, inspect?.firstMs, KEPT_READ_VS_INSPECT, read?.load))
  verdicts.push(ratioVerdict(`cold sessions_read at ${n}, largest log, warm ≤ ${KEPT_READ_VS_INSPECT}× rc.8's first inspect(id) of it`, read?.medianMs, inspect?.firstMs, KEPT_READ_VS_INSPECT, read?.load))
  verdicts.push(ratioVerdict(`cold sessions_read at ${n}, largest log, first read on the home (priming process: inspect, fold, surface kept) ≤ ${FIRST_READ_VS_INSPECT}× rc.8's first inspect(id) of it`, primedRead?.firstMs, inspect?.firstMs, FIRST_READ_VS_INSPECT, primedRead?.load))
  return verdicts
}

/** The absolute targets at one corpus size, and what a new process's first calls read. */
function corpusVerdicts(at: CaseRow[], size: number, targets: (typeof CORPUS_TARGETS)[number]): Verdict[] {
  const verdicts: Verdict[] = []
  const find = (tool: string, test: (row: CaseRow) => boolean): CaseRow | undefined => at.find(row => row.tool === tool && test(row))
  const list = find('sessions_list', row => row.case === 'no query')
  const query = find('sessions_list', row => row.case === 'query (title word)')
  const send = find('sessions_send', row => row.case.startsWith('resume-disabled'))
  const index = find('corpus index', () => true)
  const n = size.toLocaleString('en-US')
  const ms = (row: CaseRow | undefined, value: number | undefined): string => value === undefined ? 'missing' : `${value.toFixed(0)} ms (load ${row?.load?.toFixed(1) ?? '?'})`
  verdicts.push({ budget: `sessions_list {} at ${n}: warm ≤ ${targets.listWarmMs} ms`, measured: ms(list, list?.medianMs), pass: list !== undefined && list.medianMs <= targets.listWarmMs })
  verdicts.push({ budget: `sessions_list {query} at ${n}: 0 folds warm`, measured: `folds ${query?.firstCalls?.titlesFolded ?? '?'} then ${query?.titlesFolded ?? '?'}`, pass: query?.titlesFolded === 0 })
  const firsts = [list, query].filter(row => row !== undefined)
  const reread = firsts.filter(row => (row.firstCalls?.['index.headerReads'] ?? 0) > NEW_SINCE_PRIMED || (row.firstCalls?.['index.titleFolds'] ?? 0) > NEW_SINCE_PRIMED)
  verdicts.push({ budget: `a new process's first lists at ${n} read no unchanged header and fold no unchanged title (≤ ${NEW_SINCE_PRIMED} new since the priming process)`, measured: firsts.map(row => `${row.case}: ${row.firstCalls?.['index.headerReads'] ?? 0} header reads, ${row.firstCalls?.['index.titleFolds'] ?? 0} folds`).join('; '), pass: firsts.length === 2 && reread.length === 0 })
  verdicts.push({ budget: `sessions_send refused before wake at ${n}: ≤ ${targets.refusedSendMs} ms`, measured: ms(send, send?.medianMs), pass: send !== undefined && send.medianMs <= targets.refusedSendMs })
  if (targets.indexHeapMB !== undefined) verdicts.push({ budget: `corpus index retained heap at ${n} ≤ ${targets.indexHeapMB} MB`, measured: index?.retainedMB === undefined ? 'missing' : `${index.retainedMB.toFixed(1)} MB (estimate ${index.calls['estimated MB']} MB)`, pass: index?.retainedMB !== undefined && index.retainedMB <= targets.indexHeapMB })
  return verdicts
}

/** docs/architecture.md §8: a message between real `dsh` processes waits at most this long, median, from its admission to the sender's `recorded at seq N`, ms. */
export const REAL_CROSS_PROCESS_MEDIAN_MS = 100
/** An idle owner (live sessions held, store watched) uses at most this share of one core, percent. */
export const IDLE_CPU_BUDGET_PERCENT = 0.5
/**
 * After a sweep, a second batch of messages leaves the database file at most this much larger than the first did (the
 * pages swept are used again). The WAL is not judged by it: its size after a sweep is the sweep's own transaction
 * (every page it freed is written there) until the next checkpoint resets it, whatever the history.
 */
export const STORE_GROWTH_BUDGET = 1.05

/** What the home bench measured (`real` absent when the real harness did not run). */
export interface HomeFigures {
  crossProcess: CrossProcessResult
  storeSize: StoreSizeResult
  real?: RealResult
}

/** Budgets over the home bench (docs/architecture.md §8, docs/performance.md). */
export function homeVerdicts(figures: HomeFigures): Verdict[] {
  const verdicts: Verdict[] = []
  const { crossProcess, storeSize, real } = figures
  verdicts.push({ budget: 'package path (2 OS processes): every message recorded', measured: `${crossProcess.recorded}/${crossProcess.messages}, post → recorded median ${crossProcess.postToRecorded.median.toFixed(1)} ms`, pass: crossProcess.recorded === crossProcess.messages })
  const { liveSessions, settled, afterBurst } = crossProcess.idle
  verdicts.push({ budget: `idle owner (${liveSessions} live sessions, real HomeRuntime + StoreWatch, settled) CPU ≤ ${IDLE_CPU_BUDGET_PERCENT} % of one core`, measured: `${settled.cpuMs.toFixed(1)} ms over ${(settled.windowMs / 1000).toFixed(1)} s = ${settled.percent.toFixed(3)} % (right after the burst: ${afterBurst.percent.toFixed(3)} %)`, pass: settled.percent <= IDLE_CPU_BUDGET_PERCENT })
  verdicts.push({ budget: `home store bounded: no message rows after each sweep, none younger than the retention swept, database file after the 2nd batch's sweep ≤ ${STORE_GROWTH_BUDGET}× the 1st's`, ...storeBounded(storeSize) })
  if (real !== undefined) {
    const { remote, local } = real
    verdicts.push({ budget: 'real dsh: every bench send answered `recorded at seq N`, agreeing with the target\'s log (and the store row)', measured: `headless → web ${remote.recorded}/${remote.sends}, local ${local.recorded}/${local.sends}`, pass: remote.recorded === remote.sends && local.recorded === local.sends })
    verdicts.push({ budget: `real dsh, headless → web host through the store: median admission → \`recorded at seq N\` ≤ ${REAL_CROSS_PROCESS_MEDIAN_MS} ms`, measured: `${remote.admissionToResult.median.toFixed(0)} ms over ${remote.admissionToResult.n} sends (p95 ${remote.admissionToResult.p95.toFixed(0)} ms; local ${local.admissionToResult.median.toFixed(0)} ms)`, pass: remote.admissionToResult.n === remote.sends && remote.admissionToResult.median <= REAL_CROSS_PROCESS_MEDIAN_MS })
  }
  return verdicts
}

/** Whether the store stayed bounded: nothing recorded or waiting left after each sweep, the retention honoured, the second batch's store no larger than the first's. */
export function storeBounded(result: StoreSizeResult): { pass: boolean, measured: string } {
  const [first, second] = result.batches
  if (first === undefined || second === undefined) return { pass: false, measured: 'fewer than two batches' }
  const left = result.batches.map(batch => batch.swept.rows.recorded + batch.swept.rows.refused + batch.swept.rows.pending + batch.swept.rows.claimed)
  const keptRecent = result.batches.every(batch => batch.droppedNow === 0 && batch.full.rows.recorded === batch.messages)
  const growth = second.swept.bytes.db / first.swept.bytes.db
  const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(2)} MB`
  return {
    pass: left.every(rows => rows === 0) && keptRecent && growth <= STORE_GROWTH_BUDGET,
    measured: `message rows after each sweep: ${left.join(', ')}; all ${first.messages} kept by a sweep at the real time: ${keptRecent ? 'yes' : 'NO'}; database file after the sweeps ${mb(first.swept.bytes.db)} then ${mb(second.swept.bytes.db)} (×${growth.toFixed(3)}; with the WAL ${mb(first.swept.bytes.total)} then ${mb(second.swept.bytes.total)})`,
  }
}

/** docs/architecture.md §8 "When the store fails": no process's event loop stalls longer than this while many post at once, ms. */
export const LOAD_STALL_BUDGET_MS = 50
/**
 * Store transactions (`BEGIN IMMEDIATE`) of every process per delivered message: one each of the transitions a
 * message goes through (docs/architecture.md §8 "Transitions": `post`, `claim`, `record`, `answered`).
 */
export const LOAD_TX_PER_DELIVERED = 4

/** Budgets over many processes posting at once against one home store (bench/home/load.ts). */
export function loadVerdicts(result: LoadResult): Verdict[] {
  const { processes, posted, failed, accepted, recorded, delivered } = result
  const life = Math.max(...result.posters.map(report => report.stall.life.max))
  const posting = Math.max(...result.posters.map(report => report.stall.posting.max))
  const over = result.posters.filter(report => report.stall.life.max > LOAD_STALL_BUDGET_MS).length + (result.owner.stall.max > LOAD_STALL_BUDGET_MS ? 1 : 0)
  return [
    { budget: `${processes} processes posting at once: 0 failed posts, every message recorded`, measured: `${failed} failed of ${posted}; ${recorded} recorded`, pass: result.posters.length === processes && failed === 0 && recorded === posted },
    { budget: `${processes} processes posting at once: 0 duplicates (every accepted message in the target's log exactly once)`, measured: `${delivered.distinct} distinct of ${accepted} accepted, ${delivered.duplicates} more than once`, pass: delivered.distinct === accepted && delivered.duplicates === 0 },
    { budget: `${processes} processes posting at once: longest event-loop stall ≤ ${LOAD_STALL_BUDGET_MS} ms in every process (\`monitorEventLoopDelay\`; posters from their store's opening, the holder over the posting)`, measured: `posters ${life.toFixed(0)} ms (over the posting ${posting.toFixed(0)} ms), holder ${result.owner.stall.max.toFixed(0)} ms, a bystander doing nothing ${result.bystander.max.toFixed(0)} ms; ${over} of ${processes + 1} processes over; longest lock wait inside the store ${Math.max(result.owner.stall.lockWait, ...result.posters.map(report => report.stall.life.lockWait)).toFixed(0)} ms, longest commit ${Math.max(result.owner.stall.commit, ...result.posters.map(report => report.stall.life.commit)).toFixed(0)} ms; load average ${result.machine.loadBefore[0]?.toFixed(1)} on ${result.machine.cores} cores`, pass: result.posters.length === processes && over === 0 },
    pacedStallVerdict(result),
    { budget: `store transactions per delivered message, every process ≤ ${LOAD_TX_PER_DELIVERED}`, measured: result.transactionsPerDelivered.toFixed(2), pass: delivered.distinct > 0 && result.transactionsPerDelivered <= LOAD_TX_PER_DELIVERED },
  ]
}

/**
 * The paced phase (bench/home/load.ts `PACED_MESSAGES`): every process's longest stall over it, poster and holder.
 * At full speed 26 processes on a small machine are all busy and each stall holds waits for a core (the bystander's
 * floor); at a model's pace what is left is each process's own work, the store's waits and commits included.
 */
function pacedStallVerdict(result: LoadResult): Verdict {
  const stalls = [...result.paced.posters.map(report => report.stall.posting.max), result.paced.owner.max]
  const over = stalls.filter(stall => stall > LOAD_STALL_BUDGET_MS).length
  const lockWait = Math.max(0, ...result.paced.posters.map(report => report.stall.posting.lockWait), result.paced.owner.lockWait)
  const commit = Math.max(0, ...result.paced.posters.map(report => report.stall.posting.commit), result.paced.owner.commit)
  return {
    budget: `${result.processes} processes posting at once at a model's pace (${PACED_MESSAGES} each, one every ${PACED_EVERY_MS} ms): longest event-loop stall ≤ ${LOAD_STALL_BUDGET_MS} ms in every process`,
    measured: `posters ${Math.max(...result.paced.posters.map(report => report.stall.posting.max)).toFixed(0)} ms, holder ${result.paced.owner.max.toFixed(0)} ms, a bystander ${result.paced.bystander.max.toFixed(0)} ms; ${over} of ${stalls.length} processes over; longest lock wait ${lockWait.toFixed(0)} ms, longest commit ${commit.toFixed(0)} ms; load average ${result.paced.loadBefore[0]?.toFixed(1)} on ${result.machine.cores} cores`,
    pass: result.paced.posters.length === result.processes && over === 0,
  }
}

/** A message posted on one machine until the machine that holds its target recorded it, store path over loopback, ms (median). */
export const MACHINES_RECORDED_BUDGET_MS = 100

/** A read of another machine's session over loopback (bench/home/machines.ts), p95, ms: well inside a reader's 5 s wait. */
export const REMOTE_READ_BUDGET_MS = 200

/** `sessions_list {}` with 10,000 sessions of another machine, the first call of a process and a warm one, ms. */
export const REMOTE_LIST_FIRST_BUDGET_MS = 300
export const REMOTE_LIST_WARM_BUDGET_MS = 100

/** The machines part (bench/home/machines.ts): no verdict when it could not run (no PostgreSQL server here). */
export function machinesVerdicts(result: MachinesResult): Verdict[] {
  if (!result.ran) return []
  return [{
    budget: `a post on machine A until machine B's runtime recorded it (store path, one PostgreSQL server over loopback): median ≤ ${MACHINES_RECORDED_BUDGET_MS} ms`,
    measured: `median ${result.recorded.median.toFixed(1)} ms, p95 ${result.recorded.p95.toFixed(1)} ms over ${result.messages}`,
    pass: result.recorded.n > 0 && result.recorded.median <= MACHINES_RECORDED_BUDGET_MS,
  }, {
    budget: `a read of a session of machine B asked by machine A (${result.surfaceEvents} events, one PostgreSQL server over loopback): `
      + `p95 ≤ ${REMOTE_READ_BUDGET_MS} ms`,
    measured: `median ${result.remoteRead.median.toFixed(1)} ms, p95 ${result.remoteRead.p95.toFixed(1)} ms over ${result.remoteRead.n}`,
    pass: result.remoteRead.n > 0 && result.remoteRead.p95 <= REMOTE_READ_BUDGET_MS,
  }, {
    budget: `sessions_list {} with ${result.list.sessions.toLocaleString('en')} sessions of another machine: first call ≤ `
      + `${REMOTE_LIST_FIRST_BUDGET_MS} ms, warm median ≤ ${REMOTE_LIST_WARM_BUDGET_MS} ms`,
    measured: `first ${result.list.first.toFixed(1)} ms, warm median ${result.list.warm.median.toFixed(1)} ms `
      + `(read again after a change: median ${result.list.afterChange.median.toFixed(1)} ms)`,
    pass: result.list.first <= REMOTE_LIST_FIRST_BUDGET_MS && result.list.warm.n > 0 && result.list.warm.median <= REMOTE_LIST_WARM_BUDGET_MS,
  }]
}
