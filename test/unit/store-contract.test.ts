/**
 * The store port's holder and message halves (docs/architecture.md §8), one
 * suite for both stores (test/support/contract-stores.ts): the SQLite store
 * and the PostgreSQL store against a real throwaway PostgreSQL server.
 *
 * @module test/unit/store-contract
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_WAITING_PER_TARGET, RETAIN_MS, type NewMessage } from '../../src/testing.js'
import { backends, cleanUp, type ContractStore } from '../support/contract-stores.ts'

afterEach(cleanUp)

let counter = 0
function message(target: string, overrides: Partial<NewMessage> = {}): NewMessage {
  return { messageId: `m${++counter}`, target, sender: 'session-from', hop: 1, mode: 'queue', text: 'hello', mayWake: true, ...overrides }
}

async function post(store: ContractStore, target: string, overrides: Partial<NewMessage> = {}): Promise<string> {
  const posted = await store.post(message(target, overrides))
  if (!posted.ok) throw new Error('post refused')
  return posted.message.messageId
}

describe.each(backends)('the holder half on $name', ({ world, skip }) => {
  it.skipIf(skip)('acquire vs acquire: the first takes it, the second sees the living holder', async () => {
    const { stores: [a, b] } = await world()
    expect(await a.acquire('s')).toEqual({ ok: true, already: false })
    expect(await b.acquire('s')).toEqual({ ok: false, holder: { tag: a.self, state: 'waking', woke: true } })
    expect(await a.acquire('s')).toEqual({ ok: true, already: true })
    expect(await b.view('s')).toEqual({ holder: { tag: a.self, state: 'waking', woke: true } })
    expect(await a.markLive('s')).toEqual({ ok: true, already: true })
    expect(await b.view('s')).toEqual({ holder: { tag: a.self, state: 'live', woke: true } })
    expect(await b.markLive('s')).toEqual({ ok: false, holder: { tag: a.self, state: 'live', woke: true } })
  })

  it.skipIf(skip)('markLive (a user opened it) conflicts with another living holder, and is no wake', async () => {
    const { stores: [a, b] } = await world()
    expect(await a.markLive('s')).toEqual({ ok: true, already: false })
    expect(await b.markLive('s')).toEqual({ ok: false, holder: { tag: a.self, state: 'live', woke: false } })
    expect(await b.acquire('s')).toEqual({ ok: false, holder: { tag: a.self, state: 'live', woke: false } })
    expect(await a.acquire('s')).toEqual({ ok: true, already: true })
    expect((await b.view('s')).holder?.state).toBe('live')
  })

  it.skipIf(skip)('a dead holder is replaced in the same transition, and the next holder hears how it went', async () => {
    const { dead, stores: [a, b, c] } = await world()
    await a.markLive('s')
    dead.add(a.self.pid)
    expect(await b.view('s')).toEqual({ lastLetGo: { how: 'died', pid: a.self.pid, at: undefined } })
    expect(await b.acquire('s')).toEqual({ ok: true, already: false, previous: { how: 'died', pid: a.self.pid, at: undefined } })
    expect(await c.view('s')).toEqual({ holder: { tag: b.self, state: 'waking', woke: true } })
  })

  it.skipIf(skip)('the board lists sessions held by other living processes; a view says how a gone holder let go', async () => {
    const { dead, stores: [a, b, c] } = await world()
    await a.markLive('live-in-a')
    await a.markLive('dies-with-a')
    await b.acquire('waking-in-b')
    await b.markLive('released-by-b')
    await b.release('released-by-b', 'released')
    await c.markLive('mine')
    dead.add(a.self.pid)
    await a.release('live-in-a', 'released')
    const board = await c.board()
    expect([...board.elsewhere.keys()]).toEqual(['waking-in-b'])
    expect(board.elsewhere.get('waking-in-b')).toEqual({ tag: b.self, state: 'waking', woke: true })
    const hows = await Promise.all(['dies-with-a', 'live-in-a', 'released-by-b', 'waking-in-b', 'mine']
      .map(async id => [id, (await c.view(id)).lastLetGo?.how] as const))
    expect(Object.fromEntries(hows)).toEqual({ 'dies-with-a': 'died', 'live-in-a': 'released', 'released-by-b': 'released',
      'waking-in-b': undefined, 'mine': undefined })
  })

  it.skipIf(skip)('the long-lived host is the first living one to join, never this process', async () => {
    const { dead, stores: [a, b, c] } = await world()
    await c.join(false)
    await a.join(true)
    await b.join(true)
    expect(await c.longLivedHost()).toEqual(a.self)
    expect(await a.longLivedHost()).toEqual(b.self)
    dead.add(a.self.pid)
    expect(await c.longLivedHost()).toEqual(b.self)
    await b.leave('exited')
    expect(await c.longLivedHost()).toBeUndefined()
  })

  it.skipIf(skip)('released and exited keep the pid and the time; died has no time', async () => {
    const { dead, stores: [a, b, c] } = await world()
    const before = Date.now()
    await a.markLive('s1')
    await a.release('s1', 'released')
    const released = (await c.view('s1')).lastLetGo
    expect(released).toMatchObject({ how: 'released', pid: a.self.pid })
    expect(released?.at).toBeGreaterThanOrEqual(before)
    await b.markLive('s2')
    await b.leave('exited')
    expect((await c.view('s2')).lastLetGo).toMatchObject({ how: 'exited', pid: b.self.pid })
    await a.markLive('s3')
    dead.add(a.self.pid)
    expect((await c.view('s3')).lastLetGo).toEqual({ how: 'died', pid: a.self.pid, at: undefined })
    expect(await c.acquire('s1')).toMatchObject({ ok: true, already: false, previous: { how: 'released', pid: a.self.pid } })
    expect(await c.view('s1')).toEqual({ holder: { tag: c.self, state: 'waking', woke: true } })
  })

  it.skipIf(skip)('wake-failed keeps what the row knew of the holder before (nothing was written to the log)', async () => {
    const { dead, stores: [a, b, c] } = await world()
    await a.markLive('s')
    await a.release('s', 'released')
    const byA = (await c.view('s')).lastLetGo
    expect(await b.acquire('s')).toMatchObject({ ok: true, previous: byA })
    await b.release('s', 'wake-failed')
    expect(await c.view('s')).toEqual({ lastLetGo: byA })
    await a.markLive('t')
    dead.add(a.self.pid)
    expect(await b.acquire('t')).toMatchObject({ ok: true, previous: { how: 'died', pid: a.self.pid } })
    await b.release('t', 'wake-failed')
    expect(await c.view('t')).toEqual({ lastLetGo: { how: 'died', pid: a.self.pid, at: undefined } })
  })

  it.skipIf(skip)('only the holder lets go', async () => {
    const { stores: [a, b, c] } = await world()
    await a.markLive('s')
    await b.release('s', 'released')
    expect((await c.view('s')).holder?.tag).toEqual(a.self)
    await a.release('s', 'released')
    expect((await c.view('s')).holder).toBeUndefined()
  })

  it.skipIf(skip)('many processes acquire one session at once: exactly one holds it', async () => {
    const { stores } = await world()
    const outcomes = await Promise.all([...stores, ...stores].map(store => store.acquire('contended')))
    const winners = new Set(outcomes.flatMap((outcome, index) => outcome.ok ? [[...stores, ...stores][index]!.self.pid] : []))
    expect(winners.size).toBe(1)
    const holder = (await stores[0].view('contended')).holder
    expect(winners.has(holder!.tag.pid)).toBe(true)
  })
})

describe.each(backends)('the message half on $name', ({ world, skip }) => {
  it.skipIf(skip)('a dead holder is replaced in the same transition, and its claims go back to pending', async () => {
    const { dead, stores: [a, b, c] } = await world()
    await a.markLive('s')
    const first = await post(c, 's')
    const second = await post(c, 's')
    expect((await a.claim('s')).map(claimed => claimed.messageId)).toEqual([first, second])
    dead.add(a.self.pid)
    expect(await b.message(first)).toMatchObject({ state: 'claimed', claimer: a.self })
    expect(await b.acquire('s')).toEqual({ ok: true, already: false, previous: { how: 'died', pid: a.self.pid, at: undefined } })
    expect(await b.message(first)).toMatchObject({ state: 'pending' })
    expect((await b.message(first))?.claimer).toBeUndefined()
    expect((await b.message(second))?.state).toBe('pending')
    await b.markLive('s')
    expect((await b.claim('s')).map(claimed => claimed.messageId)).toEqual([first, second])
  })

  it.skipIf(skip)('only the holder lets go; its claims on that session (only) return to pending', async () => {
    const { stores: [a, b, c] } = await world()
    await a.markLive('s')
    await a.markLive('t')
    const onS = await post(c, 's')
    const onT = await post(c, 't')
    await a.claim('s')
    await a.claim('t')
    await b.release('s', 'released')
    expect((await c.message(onS))?.state).toBe('claimed')
    await a.release('s', 'released')
    expect((await c.message(onS))?.state).toBe('pending')
    expect(await c.message(onT)).toMatchObject({ state: 'claimed', claimer: a.self })
  })

  it.skipIf(skip)('leave lets go of everything this process holds and returns all its claims', async () => {
    const { stores: [a, b, c] } = await world()
    await a.join(true)
    await a.markLive('s')
    await a.acquire('t')
    const claimedByA = await post(c, 's')
    await a.claim('s')
    await b.markLive('u')
    const claimedByB = await post(c, 'u')
    await b.claim('u')
    await a.leave('exited')
    expect((await c.view('s')).lastLetGo).toMatchObject({ how: 'exited', pid: a.self.pid })
    expect((await c.view('t')).lastLetGo).toMatchObject({ how: 'exited', pid: a.self.pid })
    expect((await c.message(claimedByA))?.state).toBe('pending')
    expect(await c.message(claimedByB)).toMatchObject({ state: 'claimed', claimer: b.self })
    expect(await c.longLivedHost()).toBeUndefined()
    expect(await a.heldHere()).toEqual([])
    expect(await b.heldHere()).toEqual(['u'])
  })

  it.skipIf(skip)('a post is idempotent by message id: a repeat returns the stored message unchanged', async () => {
    const { stores: [a, b] } = await world()
    const first = await a.post(message('s', { messageId: `request-${++counter}`, text: 'first text' }))
    expect(first).toMatchObject({ ok: true, duplicate: false, message: { state: 'pending', text: 'first text', mayWake: true, target: 's' } })
    const id = first.ok ? first.message.messageId : ''
    const again = await b.post(message('s', { messageId: id, text: 'retried text', mayWake: false }))
    expect(again).toEqual({ ok: true, duplicate: true, message: first.ok ? first.message : undefined })
  })

  it.skipIf(skip)(`refuses a post once ${MAX_WAITING_PER_TARGET} wait for one target (pending or claimed), per target`, async () => {
    const { stores: [a, b] } = await world()
    await a.markLive('s')
    const ids: string[] = []
    for (let index = 0; index < MAX_WAITING_PER_TARGET; index++) ids.push(await post(b, 's'))
    await a.claim('s')
    expect(await b.post(message('s'))).toEqual({ ok: false, reason: 'full' })
    expect((await b.post(message('other'))).ok).toBe(true)
    expect(await b.post(message('s', { messageId: ids[0]! }))).toMatchObject({ ok: true, duplicate: true })
    await a.record(ids[0]!, 3, false)
    expect((await b.post(message('s'))).ok).toBe(true)
  })

  it.skipIf(skip)('only the live holder claims: not a waking one, not another process', async () => {
    const { stores: [a, b, c] } = await world()
    const id = await post(c, 's')
    expect(await a.claim('s')).toEqual([])
    await a.acquire('s')
    expect(await a.claim('s')).toEqual([])
    expect(await b.claim('s')).toEqual([])
    await a.markLive('s')
    expect(await b.claim('s')).toEqual([])
    expect(await a.claim('s')).toMatchObject([{ messageId: id, state: 'claimed', claimer: a.self }])
    expect(await c.message(id)).toMatchObject({ state: 'claimed', claimer: a.self })
  })

  it.skipIf(skip)('claims come out in posting order, never this process\'s own claims again', async () => {
    const { stores: [a, b, c] } = await world()
    await a.markLive('s')
    const ids = [await post(b, 's', { sender: 'x' }), await post(c, 's', { sender: 'y' }), await post(b, 's', { sender: 'x', mode: 'steer' }),
      await post(c, 'other')]
    const claimed = await a.claim('s')
    expect(claimed.map(each => each.messageId)).toEqual(ids.slice(0, 3))
    expect(claimed.map(each => each.order)).toEqual([...claimed.map(each => each.order)].sort((x, y) => x - y))
    const later = await post(b, 's')
    expect((await a.claim('s')).map(each => each.messageId)).toEqual([later])
    expect(await a.claim('s')).toEqual([])
  })

  it.skipIf(skip)('record, unclaim and refuse act only on a claim of this process', async () => {
    const { stores: [a, b, c] } = await world()
    await a.markLive('s')
    const [recorded, unclaimed, refused] = [await post(c, 's'), await post(c, 's'), await post(c, 's')]
    expect(await a.record(recorded, 4, true)).toBe(false)
    await a.claim('s')
    expect(await b.record(recorded, 4, true)).toBe(false)
    await b.unclaim(unclaimed)
    await b.refuse(refused, 'misaddressed')
    expect((await c.message(unclaimed))?.state).toBe('claimed')
    expect((await c.message(refused))?.state).toBe('claimed')
    expect(await a.record(recorded, 4, true)).toBe(true)
    expect(await c.message(recorded)).toMatchObject({ state: 'recorded', seq: 4, running: true })
    expect(await a.record(recorded, 9, false)).toBe(false)
    expect((await c.message(recorded))?.seq).toBe(4)
    await a.unclaim(unclaimed)
    expect(await c.message(unclaimed)).toMatchObject({ state: 'pending' })
    expect((await c.message(unclaimed))?.claimer).toBeUndefined()
    await a.refuse(refused, 'misaddressed')
    expect(await c.message(refused)).toMatchObject({ state: 'refused', reason: 'misaddressed' })
    await a.unclaim(refused)
    expect((await c.message(refused))?.state).toBe('refused')
    expect(await c.waiting()).toEqual(new Set(['s']))
  })

  it.skipIf(skip)('recordAll records each place and marks what a turn answered, as one transition; handBack returns claims', async () => {
    const { stores: [a, b] } = await world()
    await a.markLive('s')
    const [first, second, third, fourth] = [await post(b, 's'), await post(b, 's'), await post(b, 's'), await post(b, 's')]
    await a.claim('s')
    await a.recordAll([{ messageId: first, seq: 2, running: false }, { messageId: second, seq: 3, running: true }], { sessionId: 's', turnEndSeq: 3 })
    expect(await b.message(first)).toMatchObject({ state: 'recorded', seq: 2, answeredSeq: 3 })
    expect(await b.message(second)).toMatchObject({ state: 'recorded', seq: 3, running: true })
    expect((await b.message(second))?.answeredSeq).toBeUndefined()
    await b.handBack([third])
    expect((await b.message(third))?.state).toBe('claimed')
    await a.handBack([third, fourth, first])
    expect((await b.message(third))?.state).toBe('pending')
    expect((await b.message(fourth))?.state).toBe('pending')
    expect((await b.message(first))?.state).toBe('recorded')
  })

  it.skipIf(skip)('answered marks the recorded messages before a completed turn; takeUnanswered hands the rest over once', async () => {
    const { stores: [a, b] } = await world()
    await a.markLive('s')
    const [early, late, open] = [await post(b, 's'), await post(b, 's'), await post(b, 's')]
    await a.claim('s')
    await a.record(early, 5, false)
    await a.record(late, 9, true)
    await a.record(open, 20, true)
    await a.answered('s', 7)
    expect((await b.message(early))?.answeredSeq).toBe(7)
    expect((await b.message(late))?.answeredSeq).toBeUndefined()
    await a.answered('s', 12)
    expect((await b.message(early))?.answeredSeq).toBe(7)
    expect((await b.message(late))?.answeredSeq).toBe(12)
    expect((await a.takeUnanswered('s')).map(each => each.messageId)).toEqual([open])
    expect(await a.takeUnanswered('s')).toEqual([])
    expect(await a.takeUnanswered('other')).toEqual([])
  })

  it.skipIf(skip)('waiting lists targets with pending or claimed messages; adoptable those that may wake and have no living holder', async () => {
    const { dead, stores: [a, b, c] } = await world()
    await post(c, 'cold')
    await post(c, 'no-wake', { mayWake: false })
    await post(c, 'held-by-a')
    await a.markLive('held-by-a')
    await post(c, 'held-by-b')
    await b.markLive('held-by-b')
    const done = await post(c, 'done')
    await a.markLive('done')
    await a.claim('done')
    await a.record(done, 1, false)
    await a.release('done', 'released')
    expect(await c.waiting()).toEqual(new Set(['cold', 'no-wake', 'held-by-a', 'held-by-b']))
    expect(new Set(await c.adoptable())).toEqual(new Set(['cold']))
    await b.claim('held-by-b')
    dead.add(b.self.pid)
    expect(new Set(await c.adoptable())).toEqual(new Set(['cold', 'held-by-b']))
    expect(await c.waiting()).toEqual(new Set(['cold', 'no-wake', 'held-by-a', 'held-by-b']))
  })

  it.skipIf(skip)('heldHere names the sessions whose row names this process; unclaimAll returns only this process\'s claims', async () => {
    const { stores: [a, b, c] } = await world()
    await a.markLive('s1')
    await a.acquire('s2')
    await b.markLive('s3')
    expect((await a.heldHere()).sort()).toEqual(['s1', 's2'])
    expect(await c.heldHere()).toEqual([])
    const mine = await post(c, 's1')
    const theirs = await post(c, 's3')
    await a.claim('s1')
    await b.claim('s3')
    await a.unclaimAll()
    expect((await c.message(mine))?.state).toBe('pending')
    expect(await c.message(theirs)).toMatchObject({ state: 'claimed', claimer: b.self })
  })

  it.skipIf(skip)('refuseWaiting refuses what waits for a target nobody living holds', async () => {
    const { dead, stores: [a, b, c] } = await world()
    const [pending, claimed] = [await post(c, 's'), await post(c, 's')]
    await a.markLive('s')
    await a.claim('s')
    await a.unclaim(pending)
    expect(await c.refuseWaiting('s', 'target-gone')).toBe(0)
    dead.add(a.self.pid)
    expect(await b.refuseWaiting('s', 'target-gone')).toBe(2)
    for (const id of [pending, claimed]) expect(await c.message(id)).toMatchObject({ state: 'refused', reason: 'target-gone' })
    expect(await c.waiting()).toEqual(new Set())
  })

  it.skipIf(skip)('postClaimed: claimed by the poster at once; behind what another process has not claimed, unless it jumps', async () => {
    const { stores: [a, b] } = await world()
    await a.markLive('s')
    const mineFirst = await a.postClaimed(message('s'), 'wait')
    expect(mineFirst).toMatchObject({ ok: true, duplicate: false, message: { state: 'claimed', claimer: a.self } })
    const waiting = await post(b, 's')
    expect(await a.postClaimed(message('s'), 'wait')).toEqual({ ok: false, reason: 'behind' })
    const jumped = await a.postClaimed(message('s'), 'jump')
    expect(jumped).toMatchObject({ ok: true, message: { state: 'claimed' } })
    // The one that waits is still the next claim; unpost drops only this process's claim.
    expect((await a.claim('s')).map(each => each.messageId)).toEqual([waiting])
    const id = jumped.ok ? jumped.message.messageId : ''
    await b.unpost(id)
    expect((await b.message(id))?.state).toBe('claimed')
    await a.unpost(id)
    expect(await b.message(id)).toBeUndefined()
  })

  it.skipIf(skip)('the sweep drops old recorded and refused messages, never a waiting one, and rows of dead processes', async () => {
    const { dead, stores: [a, b, c] } = await world()
    await a.markLive('s')
    const [recorded, refused, claimed, pending] = [await post(c, 's'), await post(c, 's'), await post(c, 's'), await post(c, 's')]
    await a.claim('s')
    await a.unclaim(pending)
    await a.record(recorded, 3, false)
    await a.refuse(refused, 'misaddressed')
    await b.join(true)
    expect(await c.sweep(Date.now(), RETAIN_MS)).toBe(0)
    expect((await c.message(recorded))?.state).toBe('recorded')
    dead.add(b.self.pid)
    expect(await c.sweep(Date.now() + 10 * RETAIN_MS, RETAIN_MS)).toBe(2)
    expect(await c.message(recorded)).toBeUndefined()
    expect(await c.message(refused)).toBeUndefined()
    expect((await c.message(claimed))?.state).toBe('claimed')
    expect((await c.message(pending))?.state).toBe('pending')
    dead.delete(b.self.pid)
    expect(await c.longLivedHost()).toBeUndefined()
    expect(await c.post(message('s', { messageId: recorded }))).toMatchObject({ ok: true, duplicate: false })
  })
})
