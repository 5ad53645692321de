/**
 * Markdown rendering of the benchmark's rows and verdicts (printed, and
 * pasted as is into docs/performance.md).
 *
 * @module bench/table
 */

import type { LimiterRow } from './cases.js'
import type { CaseRow } from './measure.js'
import type { Verdict } from './budgets.js'
import type { StoreCounts } from './home/instrument.js'
import type { Summary } from './home/stats.js'
import type { StoreBytes, StoreRows, StoreSizeResult } from './home/store-size.js'

const SHORT: Array<[RegExp, string]> = [[/^sessionQuery\./, 'sq.'], [/^persistence\./, 'persist.']]

function method(name: string): string {
  return SHORT.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), name)
}

function calls(row: CaseRow): string {
  const entries = Object.entries(row.calls)
  if (entries.length === 0) return '–'
  return entries.map(([name, count]) => `${method(name)} ${Number.isInteger(count) ? count : count.toFixed(1)}`).join(', ')
}

function num(value: number | undefined, digits = 2): string {
  return value === undefined ? '' : value.toFixed(digits)
}

function count(value: number | undefined): string {
  return value === undefined ? '' : value.toLocaleString('en-US')
}

/** The case table. */
export function caseTable(rows: CaseRow[]): string {
  const head = '| tool | case | sessions | events | median ms | first ms | floor ms (first / warm) | backend calls per call | titles folded | peak heap MB | call alloc MB | output chars | load |'
  const rule = '|---|---|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|'
  const lines = rows.map(row => [
    row.tool,
    row.case + (row.gcInCall === true ? ' (gc in call)' : ''),
    count(row.corpus),
    count(row.events),
    num(row.medianMs),
    num(row.firstMs),
    row.floor === undefined ? '' : `${num(row.floor.firstMs, 1) || '–'} / ${num(row.floor.medianMs, 1) || '–'}`,
    calls(row),
    Number.isInteger(row.titlesFolded) ? String(row.titlesFolded) : row.titlesFolded.toFixed(1),
    num(row.peakHeapMB, 1),
    num(row.callAllocMB, 1),
    count(row.outputChars) + (row.outputUnits === undefined ? '' : ` (${count(row.outputUnits)} UTF-16)`),
    num(row.load, 1),
  ].join(' | '))
  return [head, rule, ...lines.map(line => `| ${line} |`)].join('\n')
}

/** The limiter table. */
export function limiterTable(rows: LimiterRow[]): string {
  return [
    '| distinct peers | pairs | bodies | call ids | retained heap MB | ms total |',
    '|--:|--:|--:|--:|--:|--:|',
    ...rows.map(row => `| ${count(row.peers)} | ${count(row.size.pairs)} | ${count(row.size.bodies)} | ${count(row.size.calls)} | ${row.retainedMB.toFixed(2)} | ${row.ms.toFixed(0)} |`),
  ].join('\n')
}

/** The verdict table. */
export function verdictTable(verdicts: Verdict[]): string {
  return [
    '| budget | measured | result |',
    '|---|---|---|',
    ...verdicts.map(verdict => `| ${verdict.budget} | ${verdict.measured.replace(/\|/g, '\\|')} | ${verdict.pass ? 'PASS' : '**FAIL**'} |`),
  ].join('\n')
}

/** The corpus-cost summary: one column pair per corpus size, real harness. */
export function corpusTable(rows: CaseRow[]): string {
  const sizes = [...new Set(rows.map(row => row.corpus ?? 0))].sort((a, b) => a - b)
  const pick = (corpus: number, tool: string, test: (row: CaseRow) => boolean): CaseRow | undefined =>
    rows.find(row => row.corpus === corpus && row.tool === tool && test(row))
  const lines: Array<[string, (corpus: number) => string]> = [
    ['`sessions_list {}`', corpus => pair(pick(corpus, 'sessions_list', row => row.case === 'no query'))],
    // The measured process's query row, not the priming process's ('query, first process on an unindexed home').
    ['… its floor: readdir of root + projects, every `corpus_logs` row\'s key and filter columns in chunks, 26 rows whole, 25 stats (median of three first runs, each in a new worker thread)', corpus => floorPair(pick(corpus, 'sessions_list', row => row.case === 'no query'))],
    ['`sessions_list {query}`', corpus => pair(pick(corpus, 'sessions_list', row => row.case === 'query (title word)'))],
    ['… its floor: a stat of every candidate log (first: median of three first runs in new worker threads; warm: after each call)', corpus => floorPair(pick(corpus, 'sessions_list', row => row.case === 'query (title word)'))],
    ['`sessions_list {query}`, first process on an unindexed home', corpus => pair(pick(corpus, 'sessions_list', row => row.case.startsWith('query, first process')))],
    ['… its floor: readdir of root + projects, every log read whole, its header frame and its frames from the end to a title decoded', corpus => floorPair(pick(corpus, 'sessions_list', row => row.case.startsWith('query, first process')))],
    ['… every call to its whole answer (its title folds stop 5 s after each call began)', corpus => pair(pick(corpus, 'sessions_list', row => row.case.includes('to the whole answer')))],
    ['cold `sessions_read` (~20 events)', corpus => pair(pick(corpus, 'sessions_read', row => row.case === 'cold' && (row.events ?? 0) < 100))],
    ['cold `sessions_read` (~10,000 events)', corpus => pair(pick(corpus, 'sessions_read', row => row.case === 'cold' && (row.events ?? 0) > 5000 && (row.events ?? 0) < 50_000))],
    ['its own log\'s parse: `inspect(id)`, ~10,000 events', corpus => pair(pick(corpus, 'persistence', row => row.case.startsWith('inspect') && (row.events ?? 0) > 5000 && (row.events ?? 0) < 50_000))],
    ['cold `sessions_read` (~100,000 events)', corpus => pair(pick(corpus, 'sessions_read', row => row.case === 'cold' && (row.events ?? 0) >= 50_000))],
    ['… its first read on the home (priming process)', corpus => pair(pick(corpus, 'sessions_read', row => row.case === 'cold, in the priming process' && (row.events ?? 0) >= 50_000))],
    ['its own log\'s parse: `inspect(id)`, ~100,000 events', corpus => pair(pick(corpus, 'persistence', row => row.case.startsWith('inspect') && (row.events ?? 0) >= 50_000))],
    ['`sessions_send` refused before wake', corpus => pair(pick(corpus, 'sessions_send', row => row.case.startsWith('resume-disabled')))],
    ['rc.8 `persistence.listSnapshots()` alone', corpus => pair(pick(corpus, 'persistence', row => row.case === 'listSnapshots()'))],
    ['1-minute load average when the lists ran (list / query)', corpus => {
      const list = pick(corpus, 'sessions_list', row => row.case === 'no query')
      const query = pick(corpus, 'sessions_list', row => row.case === 'query (title word)')
      return `${num(list?.load, 1)} | ${num(query?.load, 1)}`
    }],
    ['corpus index: retained heap MB (estimate MB)', corpus => {
      const row = pick(corpus, 'corpus index', () => true)
      return row === undefined ? '' : `${num(row.retainedMB, 1)} (${row.calls['estimated MB'] ?? ''})`
    }],
  ]
  const head = `| call | ${sizes.map(size => `${count(size)}: first ms | ${count(size)}: warm median ms`).join(' | ')} |`
  const rule = `|---|${sizes.map(() => '--:|--:').join('|')}|`
  const body = lines.map(([label, cell]) => `| ${label} | ${sizes.map(size => {
    const value = cell(size)
    return value.includes(' | ') ? value : `${value} | `
  }).join(' | ')} |`)
  return [head, rule, ...body].join('\n')
}

function pair(row: CaseRow | undefined): string {
  return row === undefined ? ' | ' : `${num(row.firstMs, 0)} | ${num(row.medianMs, 0)}`
}

/** A row's floor (first, warm median) with the row's load, for the corpus table. */
function floorPair(row: CaseRow | undefined): string {
  if (row?.floor === undefined) return ' | '
  const load = row.load === undefined ? '' : ` (load ${row.load.toFixed(1)})`
  return `${num(row.floor.firstMs, 0) || '–'}${load} | ${num(row.floor.medianMs, 0) || '–'}`
}

/** One row of the home table (docs/architecture.md §8): a latency sample and, when counted, what each process asked of its store per message. */
export interface HomeRow {
  part: string
  case: string
  ms: Summary
  store?: ReadonlyArray<{ readonly who: string, readonly counts: StoreCounts }>
}

function storeCalls(counts: StoreCounts): string {
  return Object.entries(counts.calls).map(([name, value]) => `${name} ${Number.isInteger(value) ? value : value.toFixed(2)}`).join(', ') || '–'
}

/** The home table: latency (ms) and store calls, transactions and statements per message. */
export function homeTable(rows: HomeRow[]): string {
  const sum = (row: HomeRow, pick: (counts: StoreCounts) => number): string => row.store === undefined ? '' : num(row.store.reduce((total, entry) => total + pick(entry.counts), 0))
  return [
    '| part | case | median ms | p95 ms | max ms | n | store calls per message | transactions per message | statements per message | ms in the store per message |',
    '|---|---|--:|--:|--:|--:|---|--:|--:|--:|',
    ...rows.map(row => `| ${[
      row.part,
      row.case,
      num(row.ms.median),
      num(row.ms.p95),
      num(row.ms.max),
      String(row.ms.n),
      row.store === undefined ? '' : row.store.map(entry => `${entry.who}: ${storeCalls(entry.counts)}`).join('; '),
      sum(row, counts => counts.transactions),
      sum(row, counts => counts.statements),
      sum(row, counts => counts.ms),
    ].join(' | ')} |`),
  ].join('\n')
}

/** The store-size table: one line per batch of messages. */
export function storeSizeTable(result: StoreSizeResult): string {
  const mb = (bytes: StoreBytes): string => `${(bytes.total / 2 ** 20).toFixed(2)} (${(bytes.db / 2 ** 20).toFixed(2)} + ${(bytes.wal / 2 ** 20).toFixed(2)})`
  const rows = (value: StoreRows): string => `${count(value.recorded)} recorded, ${count(value.pending + value.claimed)} waiting, ${value.holders} holder, ${value.processes} process; ${count(value.freePages)}/${count(value.pages)} pages free`
  return [
    '| batch | messages | ms per message | store calls per message | transactions per message | MB after the batch (db + WAL) | rows | swept at now / one retention later | sweep ms | MB after the sweep (db + WAL) | rows after the sweep |',
    '|--:|--:|--:|---|--:|--:|---|--:|--:|--:|---|',
    ...result.batches.map((batch, index) => `| ${[
      index + 1,
      count(batch.messages),
      num(batch.ms / batch.messages, 3),
      storeCalls(batch.perMessage),
      num(batch.perMessage.transactions, 3),
      mb(batch.full.bytes),
      rows(batch.full.rows),
      `${count(batch.droppedNow)} / ${count(batch.droppedLater)}`,
      num(batch.sweepMs, 1),
      mb(batch.swept.bytes),
      rows(batch.swept.rows),
    ].join(' | ')} |`),
  ].join('\n')
}
