/**
 * Crash schedules with withdraws (test/support/home-schedule.ts,
 * `withdraws: true`; docs/architecture.md §8 "Withdraw"): senders' users
 * withdraw messages through the real channel while processes send, claim,
 * record, crash and recover over the shipped home code. After every step and
 * at the end: a withdrawn message is never in its target's log and stays
 * withdrawn; a message pending in the queue is always withdrawn; one claimed
 * or recorded never is; and every other invariant of the schedules holds.
 *
 * `WITHDRAW_SEEDS` sets how many seeds run (default 150).
 * @module test/unit/home-schedule-withdraw
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runHomeSeeds } from '../support/home-schedule.js'

const SEEDS = Number(process.env.WITHDRAW_SEEDS ?? 150)
const dir = mkdtempSync(join(tmpdir(), 'xs-withdraw-schedules-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('crash schedules with withdraws', () => {
  it(`${SEEDS} seeded schedules: a withdrawn message is never delivered, a claimed one never withdrawn`, async () => {
    const summary = await runHomeSeeds(dir, 50_001, SEEDS, { withdraws: true })
    expect(summary.failures).toEqual([])
    // Not vacuous: withdraws won from the queue and from the held list, and lost to a claim or a record.
    for (const what of ['withdraw', 'withdrawn (pending)', 'withdrawn (held)']) expect(summary.covered[what] ?? 0, what).toBeGreaterThan(0)
    const lost = Object.entries(summary.covered).filter(([what]) => what.startsWith('withdraw too-late: recorded') || what.startsWith('withdraw too-late: claimed'))
    expect(lost.length, 'a withdraw that lost to a claim or a record').toBeGreaterThan(0)
  }, 600_000)
})
