/**
 * What a step that met a store fault does next (src/home/store-retry.ts):
 * a sender's step tries any store fault again until its budget, a holder's
 * only another process's lock, a click waits out a lock alone, and a step
 * left to the background is run again only while wanted. Driven with the
 * errors `node:sqlite` throws (`errcode`, `errstr`; Node 22 docs).
 */
import { describe, expect, it } from 'vitest'
import { HOLDER_PACE, retryInBackground, retryStore, SENDER_PACE, storeFaultWhy, waitOutLock } from '../../src/testing.js'

const sqliteError = (errcode: number, errstr: string) => Object.assign(new Error(errstr), { code: 'ERR_SQLITE_ERROR', errcode, errstr })
const locked = () => sqliteError(5, 'database is locked')
const full = () => sqliteError(13, 'database or disk is full')
const signal = new AbortController().signal

/** A step that throws `fault()` on its first `failures` runs, then returns its run count. */
function failing(failures: number, fault: () => Error): { step: () => number, runs: () => number } {
  let runs = 0
  return {
    step: () => {
      if (++runs <= failures) throw fault()
      return runs
    },
    runs: () => runs,
  }
}

async function outcome<T>(promise: Promise<T>): Promise<T | string> {
  try {
    return await promise
  } catch (error: unknown) {
    return storeFaultWhy(error) ?? String(error)
  }
}

describe('retryStore', () => {
  it('a sender tries a full disk again, and a lock; a holder a lock only, a full disk not at all', async () => {
    const senderFull = failing(2, full)
    expect(await retryStore(senderFull.step, signal, 5_000, SENDER_PACE)).toBe(3)
    const holderLocked = failing(2, locked)
    expect(await retryStore(holderLocked.step, signal, 5_000, HOLDER_PACE)).toBe(3)
    const holderFull = failing(2, full)
    expect(await outcome(retryStore(holderFull.step, signal, 5_000, HOLDER_PACE))).toBe('database or disk is full')
    expect(holderFull.runs()).toBe(1)
    // A click waits out a lock, never a full disk.
    expect(await waitOutLock(failing(1, locked).step)).toBe(2)
    expect(await outcome(waitOutLock(failing(1, full).step))).toBe('database or disk is full')
  })

  it('an error that is no store fault is thrown at once; a fault still there when the budget is spent is thrown', async () => {
    const broken = failing(1, () => new Error('a bug'))
    expect(await outcome(retryStore(broken.step, signal, 5_000, SENDER_PACE))).toBe('Error: a bug')
    expect(broken.runs()).toBe(1)
    const stuck = failing(Infinity, locked)
    expect(await outcome(retryStore(stuck.step, signal, 60, HOLDER_PACE))).toBe('database is locked')
    expect(stuck.runs()).toBeGreaterThan(1)
    const aborted = new AbortController()
    aborted.abort()
    const once = failing(Infinity, locked)
    expect(await outcome(retryStore(once.step, aborted.signal, 5_000, SENDER_PACE))).toBe('database is locked')
    expect(once.runs()).toBe(1)
  })

  it('pauses grow from the first to the longest, each between half and all of it', async () => {
    const at: number[] = []
    const stuck = failing(Infinity, locked)
    await outcome(retryStore(() => {
      at.push(performance.now())
      return stuck.step()
    }, signal, 400, { firstMs: 20, longestMs: 40, busyOnly: true }))
    const gaps = at.slice(1).map((time, index) => time - at[index]!)
    // First pause 10–20 ms, then 20–40 ms each (a timer may fire up to a ms before its time as the loop reads it), but
    // those near the budget's end: a pause is cut to what is left of the budget (one, or two when a cut pause still
    // leaves a ms). Only a pause that ended before the last 40 ms of the budget is judged.
    const uncut = gaps.slice(1).filter((_, index) => at[index + 2]! < at[0]! + 400 - 40)
    expect(gaps[0]!).toBeGreaterThanOrEqual(8)
    expect(uncut.length).toBeGreaterThan(2)
    expect(uncut.filter(gap => gap < 17)).toEqual([])
    expect(at.length).toBeLessThan(400 / 10)
  })
})

describe('retryInBackground', () => {
  it('runs the step now; a lock sends it to the background while wanted; another fault is left to the supervisor', async () => {
    const log: string[] = []
    const now = failing(0, locked)
    retryInBackground(now.step, () => true, line => log.push(line))
    expect(now.runs()).toBe(1)

    // Its first background try is made at once, the next after a pause.
    const later = failing(2, locked)
    retryInBackground(later.step, () => true, line => log.push(line))
    expect(later.runs()).toBe(2)
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(later.runs()).toBe(3)

    let wanted = true
    const dropped = failing(Infinity, locked)
    retryInBackground(dropped.step, () => wanted, line => log.push(line))
    wanted = false
    await new Promise(resolve => setTimeout(resolve, 100))
    expect(dropped.runs()).toBe(2)

    const down = failing(1, full)
    retryInBackground(down.step, () => true, line => log.push(line))
    await new Promise(resolve => setTimeout(resolve, 100))
    expect(down.runs()).toBe(1)
    expect(() => retryInBackground(failing(1, () => new Error('a bug')).step, () => true, () => undefined)).toThrow('a bug')
    expect(log).toEqual([])
  })

  it('a lock left at the bound is logged once', async () => {
    const log: string[] = []
    retryInBackground(failing(Infinity, locked).step, () => true, line => log.push(line), 50)
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(log).toEqual(['a cross-session store step failed and was given up after 50 ms: Error: database is locked'])
  })
})
