/**
 * The budgets of issue 5, evaluated over the rows the benchmark measured.
 * Pure: rows in, verdicts out.
 *
 * Documented send cost (src/tools/sessions-send.ts): an accepted send makes
 * at most {@link SEND_ACCEPTED_MAX_CALLS} port calls — one non-waking
 * `lookup` of the target, one `readTitles` of the caller (frame), one
 * `resolve`, one `admit`, one bounded `waitRecorded` — and a refusal after
 * the lookup at most {@link SEND_REFUSED_MAX_CALLS}; never `listSessions`.
 *
 * @module bench/budgets
 */

import { MAX_TRACKED_ENTRIES } from '../src/limits.js'
import { DEFAULT_SETTINGS } from '../src/settings.js'
import type { LimiterRow } from './cases.js'
import type { CaseRow } from './measure.js'

/** Port calls of one accepted send. */
export const SEND_ACCEPTED_MAX_CALLS = 5
/** Port calls of one send refused after its target lookup. */
export const SEND_REFUSED_MAX_CALLS = 1
/** Schema budget, bytes. */
export const SCHEMA_BUDGET_BYTES = 1200

/** One verdict. */
export interface Verdict {
  budget: string
  measured: string
  pass: boolean
}

const total = (calls: Record<string, number>): number => Object.values(calls).reduce((sum, value) => sum + value, 0)

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
  const lists = rows.filter(row => row.tool === 'sessions_list')
  const reads = rows.filter(row => row.tool === 'sessions_read')
  const sends = rows.filter(row => row.tool === 'sessions_send')

  const badList = lists.filter(row => row.calls.listSessions !== 1 || (row.calls.readTitles ?? 0) > 1)
  verdicts.push({ budget: 'sessions_list: exactly 1 listSessions, ≤ 1 readTitles per call', measured: badList.length === 0 ? `all ${lists.length} cases: listSessions 1, readTitles ≤ 1` : `${badList.length} cases off: ${badList.map(r => `${r.case}@${r.corpus} ${JSON.stringify(r.calls)}`).join('; ')}`, pass: badList.length === 0 })
  const noQuery = lists.filter(row => !row.case.startsWith('query'))
  const overFolded = noQuery.filter(row => row.shown === undefined || row.titlesFolded > row.shown)
  verdicts.push({ budget: 'sessions_list without query: titles folded ≤ rows shown', measured: noQuery.map(row => `${row.titlesFolded}≤${row.shown}`).join(', '), pass: overFolded.length === 0 })
  for (const kind of ['no query', 'query "reconcile"']) {
    const r = ratio(lists, row => row.case === kind, row => row.corpus === 1_000, row => row.corpus === 50_000)
    verdicts.push({ budget: `sessions_list (${kind}): cost at 50,000 ≤ 60× cost at 1,000`, measured: r?.detail ?? 'missing rows', pass: r !== undefined && r.ratio <= 60 })
  }

  const badRead = reads.filter(row => row.calls.readSurface !== 1 || (row.calls.listSessions ?? 0) > 0)
  verdicts.push({ budget: 'sessions_read: 1 readSurface, 0 listSessions per call', measured: badRead.length === 0 ? `all ${reads.length} cases: ${JSON.stringify(reads[0]?.calls)}` : JSON.stringify(badRead.map(r => r.calls)), pass: badRead.length === 0 })
  const r = ratio(reads, row => row.case === 'default window', row => row.events === 1_000, row => row.events === 100_000)
  verdicts.push({ budget: 'sessions_read: cost at 100,000 events ≤ 120× cost at 1,000', measured: r?.detail ?? 'missing rows', pass: r !== undefined && r.ratio <= 120 })
  const bound = (maxMessages: number, maxChars: number): number => maxMessages * (maxChars + 200)
  const outputOk = reads.map(row => {
    const limit = row.case.endsWith('max settings') ? bound(100, 20_000) : row.case.endsWith('min settings') ? bound(1, 100) : bound(DEFAULT_SETTINGS.maxReadMessages, DEFAULT_SETTINGS.maxMessageChars)
    // Characters are code points (PRODUCT.md §4: "N counts characters (code points)").
    return { row, limit, ok: row.outputChars <= limit }
  })
  verdicts.push({
    budget: 'sessions_read: output ≤ maxReadMessages × (maxMessageChars + 200) chars',
    measured: outputOk.map(({ row, limit }) => `${row.outputChars}${row.outputUnits === undefined ? '' : ` (${row.outputUnits} UTF-16)`}≤${limit}`).join(', '),
    pass: outputOk.every(entry => entry.ok),
  })

  const listing = sends.filter(row => (row.calls.listSessions ?? 0) > 0)
  verdicts.push({ budget: 'sessions_send: no listSessions per send', measured: listing.length === 0 ? `0 in all ${sends.length} cases` : `${listing.length} cases list`, pass: listing.length === 0 })
  const overCalls = sends.filter(row => total(row.calls) > (row.case.startsWith('accepted') ? SEND_ACCEPTED_MAX_CALLS : SEND_REFUSED_MAX_CALLS))
  const worst = (accepted: boolean): number => Math.max(...sends.filter(row => row.case.startsWith('accepted') === accepted).map(row => total(row.calls)))
  verdicts.push({ budget: `sessions_send: ≤ ${SEND_ACCEPTED_MAX_CALLS} port calls accepted, ≤ ${SEND_REFUSED_MAX_CALLS} refused after lookup`, measured: `accepted max ${worst(true)}, refused max ${worst(false)}`, pass: overCalls.length === 0 })
  const last = limiter.at(-1)!
  const mid = limiter.find(row => row.peers === 10_000) ?? limiter[0]!
  const sizesOk = limiter.every(row => row.size.pairs <= MAX_TRACKED_ENTRIES && row.size.bodies <= MAX_TRACKED_ENTRIES && row.size.calls <= MAX_TRACKED_ENTRIES)
  const heapOk = last.retainedMB <= mid.retainedMB * 1.5 + 2
  verdicts.push({ budget: `send limiter bounded (entries ≤ ${MAX_TRACKED_ENTRIES} each; heap flat from 10k to 100k peers)`, measured: `100k peers: ${JSON.stringify(last.size)}, ${last.retainedMB.toFixed(2)} MB vs ${mid.retainedMB.toFixed(2)} MB at 10k`, pass: sizesOk && heapOk })
  verdicts.push({ budget: `schemas as the model receives them ≤ ${SCHEMA_BUDGET_BYTES} bytes`, measured: `${schemaTotal} bytes`, pass: schemaTotal <= SCHEMA_BUDGET_BYTES })
  return verdicts
}

/** Budgets that hold at the port level over the real harness rows. */
export function realVerdicts(rows: CaseRow[]): Verdict[] {
  const verdicts: Verdict[] = []
  const lists = rows.filter(row => row.tool === 'sessions_list')
  const reads = rows.filter(row => row.tool === 'sessions_read')
  const sends = rows.filter(row => row.tool === 'sessions_send')
  const badList = lists.filter(row => row.calls['sessionQuery.listSessions'] !== 1 || (row.calls['sessionQuery.readTitleSnapshots'] ?? 0) > 1)
  verdicts.push({ budget: 'real sessions_list: 1 listSessions, ≤ 1 readTitleSnapshots', measured: `${lists.length - badList.length}/${lists.length} cases`, pass: badList.length === 0 })
  const noQuery = lists.filter(row => !row.case.startsWith('query')) as CaseRow[]
  verdicts.push({ budget: 'real sessions_list without query: titles folded ≤ rows shown', measured: noQuery.map(row => `${row.titlesFolded}≤${row.shown}`).join(', '), pass: noQuery.every(row => row.shown !== undefined && row.titlesFolded <= row.shown) })
  const badRead = reads.filter(row => row.calls['sessionQuery.readSurface'] !== 1 || (row.calls['sessionQuery.listSessions'] ?? 0) > 0)
  verdicts.push({ budget: 'real sessions_read: 1 readSurface, 0 listSessions', measured: `${reads.length - badRead.length}/${reads.length} cases`, pass: badRead.length === 0 })
  const badSend = sends.filter(row => (row.calls['sessionQuery.listSessions'] ?? 0) > 0)
  verdicts.push({ budget: 'real sessions_send: 0 listSessions', measured: `${sends.length - badSend.length}/${sends.length} cases`, pass: badSend.length === 0 })
  return verdicts
}
