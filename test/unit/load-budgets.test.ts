/**
 * The verdicts of the 24-process load bench and the store size bench (bench/budgets.ts
 * `loadVerdicts`, `storeBounded`; bench/home/load.ts, store-size.ts): each budget passes on figures that
 * meet it and fails on figures that miss it, and nothing measured is not a
 * pass.
 *
 * @module test/unit/load-budgets
 */

import { describe, expect, it } from 'vitest'
import { LOAD_STALL_BUDGET_MS, LOAD_TX_PER_DELIVERED, loadVerdicts, STORE_GROWTH_BUDGET, storeBounded } from '../../bench/budgets.js'
import type { StoreBatch } from '../../bench/home/store-size.js'
import type { LoadResult, PosterReport } from '../../bench/home/load.js'

const stall = (max: number) => ({ max, p99: max / 2, lockWait: max / 2, commit: 1 })

function poster(pid: number, max = 12): PosterReport {
  return { pid, failures: [], accepted: 10, recorded: 10, ms: 900, transactions: 10, stall: { life: stall(max), posting: stall(max) } }
}

/** 24 posters × 10 messages, all delivered once, stalls of 12 ms (a bystander's 8 ms), then 10 more each at a pace with stalls of 20 ms (the holder 25 ms), 2.5 transactions per message. */
function figures(change: (result: LoadResult) => void = () => undefined): LoadResult {
  const result: LoadResult = {
    processes: 24,
    perProcess: 10,
    posted: 240,
    failed: 0,
    reasons: {},
    accepted: 240,
    recorded: 240,
    delivered: { distinct: 240, duplicates: 0 },
    posters: Array.from({ length: 24 }, (_, index) => poster(1000 + index)),
    owner: { stall: stall(20), transactions: 360 },
    paced: { posters: Array.from({ length: 24 }, (_, index) => poster(1000 + index, 20)), owner: stall(25), bystander: { max: 8, p99: 4 }, loadBefore: [1, 1, 1] },
    bystander: { max: 8, p99: 4 },
    transactionsPerDelivered: 2.5,
    wallMs: 9000,
    machine: { cpu: 'test CPU', cores: 2, loadBefore: [1, 1, 1], loadAfter: [1, 1, 1] },
  }
  change(result)
  return result
}

const passes = (result: LoadResult): boolean[] => loadVerdicts(result).map(verdict => verdict.pass)

describe('load bench verdicts', () => {
  it('pass on figures within every budget', () => {
    expect(passes(figures())).toEqual([true, true, true, true, true])
  })

  it('fail a failed post, a duplicate, one process over the stall budget, too many transactions', () => {
    expect(passes(figures(result => { result.failed = 1; result.recorded = 239 }))[0]).toBe(false)
    expect(passes(figures(result => { result.delivered = { distinct: 240, duplicates: 1 } }))[1]).toBe(false)
    expect(passes(figures(result => { result.delivered = { distinct: 239, duplicates: 0 } }))[1]).toBe(false)
    expect(passes(figures(result => { result.posters[7] = poster(1007, LOAD_STALL_BUDGET_MS + 1) }))[2]).toBe(false)
    expect(passes(figures(result => { result.owner.stall = stall(LOAD_STALL_BUDGET_MS + 1) }))[2]).toBe(false)
    expect(passes(figures(result => { result.transactionsPerDelivered = LOAD_TX_PER_DELIVERED + 0.01 }))[4]).toBe(false)
  })

  it('judge the paced phase\'s stalls on their own: a stall at full speed does not fail it, one at a model\'s pace does', () => {
    const full = figures(result => { result.posters = result.posters.map(report => poster(report.pid, 300)) })
    expect(passes(full).slice(2, 4)).toEqual([false, true])
    expect(passes(figures(result => { result.paced.posters[3] = poster(1003, LOAD_STALL_BUDGET_MS + 1) }))[3]).toBe(false)
    expect(passes(figures(result => { result.paced.owner = stall(LOAD_STALL_BUDGET_MS + 1) }))[3]).toBe(false)
    expect(passes(figures(result => { result.paced.posters.pop() }))[3]).toBe(false)
  })

  it('fail when a poster did not report, or nothing was delivered', () => {
    expect(passes(figures(result => { result.posters.pop() }))[0]).toBe(false)
    expect(passes(figures(result => { result.posters.pop() }))[2]).toBe(false)
    expect(passes(figures(result => { result.delivered = { distinct: 0, duplicates: 0 } }))[4]).toBe(false)
  })
})

describe('store size verdict', () => {
  const rows = (recorded: number) => ({ pending: 0, claimed: 0, recorded, refused: 0, holders: 1, processes: 1, pages: 1900, freePages: 0 })
  const batch = (db: number, wal: number): StoreBatch => ({
    messages: 100, ms: 100, perMessage: { calls: {}, transactions: 2, ms: 1, statements: 4 }, droppedNow: 0, droppedLater: 100, sweepMs: 5,
    full: { bytes: { db, wal: 1e6, total: db + 1e6 }, rows: rows(100) }, swept: { bytes: { db, wal, total: db + wal }, rows: rows(0) },
  })

  it('judges the database file: a larger WAL after the second sweep passes, a larger database fails', () => {
    expect(storeBounded({ textChars: 300, batches: [batch(7.48e6, 6.95e6), batch(7.58e6, 8.46e6)] }).pass).toBe(true)
    expect(storeBounded({ textChars: 300, batches: [batch(7.48e6, 6.95e6), batch(7.48e6 * (STORE_GROWTH_BUDGET + 0.01), 6.95e6)] }).pass).toBe(false)
    expect(storeBounded({ textChars: 300, batches: [batch(7.48e6, 6.95e6)] }).pass).toBe(false)
  })
})
