/**
 * The store port's notice half (docs/architecture.md §8 "Notices"), one
 * suite for both stores (test/support/contract-stores.ts): one notice per
 * watched message, the drops in their order, expiry and the sweep, a
 * deleted sender or target.
 *
 * @module test/unit/store-contract-notices
 */
import { afterEach, describe, expect, it } from 'vitest'
import { noticeIdOf, RETAIN_MS, type NewWatch } from '../../src/testing.js'
import { backends, cleanUp } from '../support/contract-stores.ts'

afterEach(cleanUp)

let counter = 0
function watch(overrides: Partial<NewWatch> = {}): NewWatch {
  return { messageId: `cross-session:A:w${++counter}`, sender: 'session-A', target: 'session-B', hop: 1, mayWake: true, maxHops: 4,
    perMinute: 6, expiresAt: Date.now() + 60_000, ...overrides }
}
const ended = { turnEndSeq: 30, outcome: 'completed' as const, answeredBySend: false, text: 'the notice' }

describe.each(backends)('the notice half on $name', ({ world, skip }) => {
  it.skipIf(skip)('one watch per message; the turn end posts exactly one notice, from the target to the sender at hop + 1', async () => {
    const { stores: [a, b] } = await world()
    const w = watch()
    expect((await a.watch(w)).state).toBe('watching')
    expect((await a.watch({ ...w, hop: 3 })).hop).toBe(1)
    expect(await b.watchedTargets()).toEqual(new Set(['session-B']))
    expect((await b.watchesOf('session-B')).map(x => x.messageId)).toEqual([w.messageId])
    expect(await b.fireWatch(w.messageId, ended))
      .toMatchObject({ state: 'noticed', noticeId: noticeIdOf(w.messageId), turnEndSeq: 30, outcome: 'completed' })
    // A second look (another holder, a retry after a crash) posts nothing.
    expect(await a.fireWatch(w.messageId, { ...ended, turnEndSeq: 40 })).toMatchObject({ state: 'noticed', turnEndSeq: 30 })
    expect(await a.waiting()).toEqual(new Set(['session-A']))
    expect(await a.message(noticeIdOf(w.messageId))).toMatchObject({ sender: 'session-B', target: 'session-A', hop: 2, mode: 'queue',
      text: 'the notice', mayWake: true, state: 'pending', notice: 'completed', expiresAt: w.expiresAt })
    expect(await b.watchedTargets()).toEqual(new Set())
    expect(await a.fireWatch('never-watched', ended)).toBeUndefined()
  })

  it.skipIf(skip)('a notice never asks for a notice: the notice is a message row and registers no watch', async () => {
    const { stores: [a] } = await world()
    const w = watch()
    await a.watch(w)
    await a.fireWatch(w.messageId, ended)
    expect(await a.watchOf(noticeIdOf(w.messageId))).toBeUndefined()
    expect(await a.watchedTargets()).toEqual(new Set())
  })

  it.skipIf(skip).each([
    ['answered-by-send', {}, { answeredBySend: true }],
    ['hop-limit', { hop: 4, maxHops: 4 }, {}],
    ['expired', { expiresAt: Date.now() - 1 }, {}],
  ] as const)('drops without a notice when %s', async (reason, overrides, endedOverrides) => {
    const { stores: [a] } = await world()
    const w = watch(overrides)
    await a.watch(w)
    expect(await a.fireWatch(w.messageId, { ...ended, ...endedOverrides })).toMatchObject({ state: 'dropped', reason })
    expect(await a.message(noticeIdOf(w.messageId))).toBeUndefined()
  })

  it.skipIf(skip)('counts notices towards the pair rate of target → sender', async () => {
    const { stores: [a] } = await world()
    const watches = Array.from({ length: 3 }, () => watch({ perMinute: 2 }))
    for (const w of watches) await a.watch(w)
    const states = []
    for (const w of watches) states.push((await a.fireWatch(w.messageId, ended))?.state)
    expect(states).toEqual(['noticed', 'noticed', 'dropped'])
    expect((await a.watchOf(watches[2]!.messageId))?.reason).toBe('pair-rate')
  })

  it.skipIf(skip)('a notice expires: not claimed after its expiry, and the sweep expires watches and waiting notices', async () => {
    let now = 1_000_000
    const { stores: [a, b] } = await world(() => now)
    const early = watch({ expiresAt: now + 1000 })
    const never = watch({ expiresAt: now + 1000, target: 'session-C' })
    await a.watch(early)
    await a.watch(never)
    await b.fireWatch(early.messageId, ended)
    expect(await b.adoptable()).toEqual(['session-A'])
    now += 2000
    expect(await b.adoptable()).toEqual([])
    expect((await a.markLive('session-A')).ok).toBe(true)
    expect(await a.claim('session-A')).toEqual([])
    expect(await a.message(noticeIdOf(early.messageId))).toMatchObject({ state: 'refused', reason: 'expired' })
    await a.sweep(now, RETAIN_MS)
    expect(await a.watchOf(never.messageId)).toMatchObject({ state: 'dropped', reason: 'expired' })
    await a.sweep(now + RETAIN_MS + 1, RETAIN_MS)
    expect(await a.watchOf(never.messageId)).toBeUndefined()
  })

  it.skipIf(skip)('a deleted sender: its watches are dropped with the messages refused for it', async () => {
    const { stores: [a, b] } = await world()
    const w = watch()
    await a.watch(w)
    expect(await b.refuseWaiting('session-A', 'target-gone')).toBe(0)
    expect(await a.watchOf(w.messageId)).toMatchObject({ state: 'dropped', reason: 'sender-gone' })
  })

  it.skipIf(skip)('a deleted target: the watches on it are dropped with the messages refused for it (no turn of it will end)', async () => {
    const { stores: [a, b] } = await world()
    const w = watch()
    await a.watch(w)
    await b.refuseWaiting('session-B', 'target-gone')
    expect(await a.watchOf(w.messageId)).toMatchObject({ state: 'dropped', reason: 'target-gone' })
    expect(await a.watchedTargets()).toEqual(new Set())
  })

  it.skipIf(skip)('unwatch withdraws a watch whose send was not accepted; dropWatchesOf drops a sender\'s watches', async () => {
    const { stores: [a] } = await world()
    const w = watch()
    await a.watch(w)
    await a.unwatch(w.messageId)
    expect(await a.watchOf(w.messageId)).toBeUndefined()
    const [x, y] = [watch(), watch({ sender: 'session-Z' })]
    await a.watch(x)
    await a.watch(y)
    expect(await a.dropWatchesOf('session-A', 'sender-gone')).toBe(1)
    expect(await a.watchOf(x.messageId)).toMatchObject({ state: 'dropped', reason: 'sender-gone' })
    expect((await a.watchOf(y.messageId))?.state).toBe('watching')
  })
})
