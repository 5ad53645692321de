/**
 * A store transition run by a retried step of a holder (or a tick) never
 * waits on the event loop for another process's write lock: it meets the
 * lock at once and the retry paces the wait with the loop free
 * (src/home/lock-patience.ts, docs/architecture.md §8 "When the store
 * fails"), nor does a runtime's start under a lock. A sender's retried
 * step waits up to its short `loopWaitMs` inside SQLite first, any other
 * transition up to `BUSY_TIMEOUT_MS`. Observed on the real store's
 * connection: the `busy_timeout` each `BEGIN IMMEDIATE` ran under.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { BUSY_TIMEOUT_MS, HOLDER_PACE, lockWaitMs, openHomeStore, retryStore, SENDER_PACE, storeFaultWhy, withLockWait, withoutLockWait,
  type HomeStore } from '../../src/testing.js'
import { handTickedRuntime } from '../support/hand-ticked-runtime.js'
import { lockStore } from '../support/store-lock.js'

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

/** A real store on a fresh home, and the `busy_timeout` in force at each `BEGIN IMMEDIATE` it ran. */
function observedStore(): { home: string, store: HomeStore, begunUnder: number[], busyTimeout: () => number } {
  const home = mkdtempSync(join(tmpdir(), 'xs-lock-patience-'))
  const store = openHomeStore(home, { pid: process.pid, start: 1 }, () => true)
  cleanups.push(() => rmSync(home, { recursive: true, force: true }), () => store.close())
  // The connection the store keeps (as bench/home/instrument.ts reaches it), seen through its `exec`.
  const db = (store as unknown as { db: DatabaseSync }).db
  const busyTimeout = (): number => (db.prepare('PRAGMA busy_timeout').get() as { timeout: number }).timeout
  const begunUnder: number[] = []
  const exec = db.exec.bind(db)
  db.exec = (sql: string): void => {
    if (/^BEGIN IMMEDIATE/.test(sql)) begunUnder.push(busyTimeout())
    exec(sql)
  }
  return { home, store, begunUnder, busyTimeout }
}

let counter = 0
const post = (store: HomeStore) => store.post({ messageId: `m${++counter}`, target: 'session-t', sender: 'session-s', hop: 1, mode: 'queue',
  text: 'hi', mayWake: false })

describe('lock patience', () => {
  it('a step run without a lock wait sees 0 ms, nested too, and the usual wait again after it, even after a throw', () => {
    expect(lockWaitMs()).toBe(BUSY_TIMEOUT_MS)
    withoutLockWait(() => {
      expect(lockWaitMs()).toBe(0)
      withoutLockWait(() => expect(lockWaitMs()).toBe(0))
      // A step with a wait of its own, inside: its wait, then the outer one again.
      withLockWait(8, () => expect(lockWaitMs()).toBe(8))
      expect(lockWaitMs()).toBe(0)
    })
    expect(() => withoutLockWait(() => {
      throw new Error('boom')
    })).toThrow('boom')
    expect(lockWaitMs()).toBe(BUSY_TIMEOUT_MS)
  })

  it('a holder\'s retried transition begins with no wait, a sender\'s with its short one, a plain one with the usual wait; the connection keeps it', async () => {
    const { store, begunUnder, busyTimeout } = observedStore()
    await retryStore(() => post(store), new AbortController().signal, 1_000, HOLDER_PACE)
    await retryStore(() => post(store), new AbortController().signal, 1_000, SENDER_PACE)
    post(store)
    expect(SENDER_PACE.loopWaitMs).toBe(8)
    expect(begunUnder).toEqual([0, 8, BUSY_TIMEOUT_MS])
    // A read outside a transition keeps the usual wait after a holder's transition.
    expect(busyTimeout()).toBe(BUSY_TIMEOUT_MS)
  })

  it('under another process\'s write lock a holder\'s transition fails at once and is tried again, with the loop free, until the lock goes', async () => {
    const { home, store, begunUnder } = observedStore()
    const lock = lockStore(home, 'write', cleanups)
    let thrown: unknown
    try {
      withoutLockWait(() => post(store))
    } catch (error: unknown) {
      thrown = error
    }
    expect(storeFaultWhy(thrown)).toBe('database is locked')
    let tries = 0
    let ticks = 0
    const ticking = setInterval(() => ticks++, 1)
    cleanups.push(() => clearInterval(ticking))
    const posted = retryStore(() => {
      if (++tries === 4) lock.release()
      return post(store)
    }, new AbortController().signal, 10_000, HOLDER_PACE)
    expect((await posted).ok).toBe(true)
    expect(tries).toBe(4)
    // Every try began with no wait, and the event loop ran timers between them.
    expect(begunUnder.every(ms => ms === 0)).toBe(true)
    expect(ticks).toBeGreaterThan(0)
    expect(store.waiting()).toEqual(new Set(['session-t']))
  })
})

describe('a runtime', () => {
  it('starting under another process\'s write lock waits for it on no transition, and joins in the background once the lock goes', async () => {
    const { home, store, begunUnder } = observedStore()
    const lock = lockStore(home, 'write', cleanups)
    const { runtime, logged } = handTickedRuntime(home, store, { longLived: true, cleanups })
    runtime.start()
    expect(begunUnder.length).toBeGreaterThan(0)
    expect(begunUnder.every(ms => ms === 0)).toBe(true)
    // Another process of the home sees this one as its long-lived host once it joined.
    const other = openHomeStore(home, { pid: process.pid + 1, start: 1 }, () => true)
    cleanups.push(() => other.close())
    expect(other.longLivedHost()).toBeUndefined()
    lock.release()
    await expect.poll(() => other.longLivedHost(), { timeout: 4_000 }).toEqual({ pid: process.pid, start: 1 })
    expect(begunUnder.every(ms => ms === 0)).toBe(true)
    expect(logged).toEqual([])
  })

  it('joins at start and runs its tick\'s transitions with no lock wait; under a lock its tick is skipped without a word, the next one acts', () => {
    const { home, store, begunUnder } = observedStore()
    const { runtime, logged } = handTickedRuntime(home, store, { longLived: true, cleanups })
    runtime.start()
    expect(begunUnder.length).toBeGreaterThan(0)
    expect(begunUnder.every(ms => ms === 0)).toBe(true)
    // A held message past its expiry is dropped by a long-lived host's tick (a transition of the tick's chores).
    store.holdForApproval({ messageId: 'held-1', target: 'session-t', sender: 'session-s', senderTitle: '', hop: 1, mode: 'queue',
      text: 'hi', body: 'hi', mayWake: false, notify: false, expiresAt: Date.now() - 1 })
    const lock = lockStore(home, 'write', cleanups)
    const before = begunUnder.length // the hold above was this test's own transition (the usual wait)
    runtime.tick()
    expect(begunUnder.length).toBeGreaterThan(before)
    expect(store.approval('held-1')?.state).toBe('held')
    lock.release()
    runtime.tick()
    expect(store.approval('held-1')?.state).toBe('expired')
    expect(begunUnder.slice(before).every(ms => ms === 0)).toBe(true)
    expect(logged).toEqual([])
  })
})
