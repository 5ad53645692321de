/**
 * Markdown rendering of the benchmark's rows and verdicts (printed, and
 * pasted as is into docs/performance.md).
 *
 * @module bench/table
 */

import type { LimiterRow } from './cases.js'
import type { CaseRow } from './measure.js'
import type { Verdict } from './budgets.js'

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
  const head = '| tool | case | sessions | events | median ms | first ms | backend calls per call | titles folded | peak heap MB | call alloc MB | output chars |'
  const rule = '|---|---|--:|--:|--:|--:|---|--:|--:|--:|--:|'
  const lines = rows.map(row => [
    row.tool,
    row.case + (row.gcInCall === true ? ' (gc in call)' : ''),
    count(row.corpus),
    count(row.events),
    num(row.medianMs),
    num(row.firstMs),
    calls(row),
    Number.isInteger(row.titlesFolded) ? String(row.titlesFolded) : row.titlesFolded.toFixed(1),
    num(row.peakHeapMB, 1),
    num(row.callAllocMB, 1),
    count(row.outputChars) + (row.outputUnits === undefined ? '' : ` (${count(row.outputUnits)} UTF-16)`),
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
