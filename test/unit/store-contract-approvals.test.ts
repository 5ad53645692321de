/**
 * The store port's approval and withdraw halves (docs/architecture.md §8),
 * one suite for both stores (test/support/contract-stores.ts): a session's
 * inbound choice, messages held for its user and decided once, the traffic
 * view, and a withdraw that wins only while the message waits.
 *
 * @module test/unit/store-contract-approvals
 */
import { afterEach, describe, expect, it } from 'vitest'
import { digestOf, SENDER, sendId } from '../support/send-ids.ts'
import { MAX_HELD_PER_TARGET, matchesSend, type NewApproval } from '../../src/testing.js'
import { backends, cleanUp, type ContractStore } from '../support/contract-stores.ts'

afterEach(cleanUp)

async function post(store: ContractStore, target: string, message = 'hello'): Promise<string> {
  const messageId = sendId(target, message)
  const posted = await store.post({ messageId, target, sender: SENDER, hop: 1, mode: 'queue', text: message, mayWake: true })
  if (!posted.ok) throw new Error('post refused')
  return messageId
}
const approval = (id: string, overrides: Partial<NewApproval> = {}): NewApproval => ({
  messageId: id, target: 'session-t', sender: 'session-s', senderTitle: 'S', hop: 2, mode: 'steer', text: `framed ${id}`, body: `body ${id}`,
  mayWake: true, notify: false, expiresAt: Date.now() + 60_000, ...overrides,
})

describe.each(backends)('the approval half on $name', ({ world, skip }) => {
  it.skipIf(skip)('keeps a session\'s own inbound choice, clears it back to the setting', async () => {
    const { stores: [a, b] } = await world()
    expect(await a.inboundOf('session-t')).toBeUndefined()
    await a.setInbound('session-t', 'hold')
    expect(await a.inboundOf('session-t')).toBe('hold')
    await a.setInbound('session-t', 'refuse')
    expect(await b.inboundOf('session-t')).toBe('refuse')
    await a.setInbound('session-t', undefined)
    expect(await a.inboundOf('session-t')).toBeUndefined()
  })

  it.skipIf(skip)('holds once per id, refuses past the bound, and lists only what is held and unexpired', async () => {
    const { stores: [a] } = await world()
    expect(await a.holdForApproval(approval('m1'))).toMatchObject({ ok: true, duplicate: false })
    expect(await a.holdForApproval(approval('m1'))).toMatchObject({ ok: true, duplicate: true })
    await a.holdForApproval(approval('m2', { expiresAt: Date.now() - 1 }))
    expect((await a.approvals(Date.now(), 'session-t')).map(x => x.messageId)).toEqual(['m1'])
    for (let i = (await a.approvals(0)).length; i < MAX_HELD_PER_TARGET; i++) await a.holdForApproval(approval(`f${i}`))
    expect(await a.holdForApproval(approval('over'))).toEqual({ ok: false, reason: 'full' })
    expect(await a.holdForApproval(approval('other', { target: 'session-u' }))).toMatchObject({ ok: true })
  })

  it.skipIf(skip)('delivers into messages as it was held, once; a decided or expired message is stale', async () => {
    const { stores: [a, b] } = await world()
    await a.holdForApproval(approval('m1'))
    await a.holdForApproval(approval('m2'))
    await a.holdForApproval(approval('m3', { expiresAt: Date.now() + 5 }))
    expect(await a.decide('m1', 'deliver', Date.now())).toMatchObject({ ok: true, approval: { state: 'delivered' } })
    expect(await a.message('m1')).toMatchObject({ state: 'pending', target: 'session-t', sender: 'session-s', hop: 2, mode: 'steer',
      text: 'framed m1', mayWake: true })
    expect(await b.decide('m1', 'refuse', Date.now())).toMatchObject({ ok: false, reason: 'stale', approval: { state: 'delivered' } })
    expect(await a.decide('m2', 'refuse', Date.now())).toMatchObject({ ok: true, approval: { state: 'refused' } })
    expect(await a.message('m2')).toBeUndefined()
    expect(await a.decide('m3', 'deliver', Date.now() + 10)).toMatchObject({ ok: false, reason: 'stale', approval: { state: 'expired' } })
    expect(await a.message('m3')).toBeUndefined()
    expect(await a.decide('nope', 'deliver', Date.now())).toEqual({ ok: false, reason: 'unknown' })
  })

  it.skipIf(skip)('two processes deciding one held message at once: exactly one wins', async () => {
    const { stores } = await world()
    await stores[0].holdForApproval(approval('race'))
    const outcomes = await Promise.all(stores.map((store, index) => store.decide('race', index === 0 ? 'refuse' : 'deliver', Date.now())))
    expect(outcomes.filter(outcome => outcome.ok)).toHaveLength(1)
    const state = (await stores[0].approval('race'))?.state
    expect((await stores[0].message('race'))?.state).toBe(state === 'delivered' ? 'pending' : undefined)
  })

  it.skipIf(skip)('one sender\'s held messages to a target are delivered in the order they were sent', async () => {
    const { stores: [a] } = await world()
    await a.holdForApproval(approval('a1'))
    await a.holdForApproval(approval('a2'))
    await a.holdForApproval(approval('b1', { sender: 'session-other' }))
    expect(await a.decide('a2', 'deliver', Date.now())).toMatchObject({ ok: false, reason: 'earlier-held', approval: { state: 'held' } })
    expect(await a.message('a2')).toBeUndefined()
    expect(await a.decide('b1', 'deliver', Date.now())).toMatchObject({ ok: true, approval: { state: 'delivered' } })
    expect(await a.decide('a1', 'refuse', Date.now())).toMatchObject({ ok: true })
    expect(await a.decide('a2', 'deliver', Date.now())).toMatchObject({ ok: true, approval: { state: 'delivered' } })
    expect(await a.message('a2')).toMatchObject({ state: 'pending' })
  })

  it.skipIf(skip)('expires what is past its expiry, once', async () => {
    const { stores: [a] } = await world()
    await a.holdForApproval(approval('m1', { expiresAt: 1000 }))
    await a.holdForApproval(approval('m2'))
    expect((await a.expireApprovals(2000)).map(x => [x.messageId, x.state])).toEqual([['m1', 'expired']])
    expect(await a.expireApprovals(3000)).toEqual([])
    expect((await a.approval('m1'))?.state).toBe('expired')
  })

  it.skipIf(skip)('shows every message in the traffic view, newest first, with its state', async () => {
    const { stores: [a] } = await world()
    await a.holdForApproval(approval('held'))
    await a.holdForApproval(approval('refused'))
    await a.decide('refused', 'refuse', Date.now())
    await a.journal({ messageId: 'local', target: 'session-t', sender: 'session-s', hop: 1, mode: 'queue', state: 'recorded', seq: 7 })
    await a.journal({ messageId: 'no', target: 'session-t', sender: 'session-s', hop: 0, mode: 'queue', state: 'refused', reason: 'inbound' })
    await a.answered('session-t', 9)
    await a.holdForApproval(approval('delivered', { sender: 'session-u' }))
    await a.decide('delivered', 'deliver', Date.now())
    const rows = await a.traffic(50)
    expect(Object.fromEntries(rows.map(row => [row.messageId, row.state])))
      .toEqual({ held: 'held', refused: 'refused', local: 'answered', no: 'refused', delivered: 'pending' })
    expect(rows.find(row => row.messageId === 'local')).toMatchObject({ seq: 7, answeredSeq: 9 })
    expect(rows.find(row => row.messageId === 'no')?.reason).toBe('inbound')
    expect(rows.find(row => row.messageId === 'refused')?.reason).toBe('user')
    expect(rows.map(row => row.at)).toEqual([...rows.map(row => row.at)].sort((x, y) => y - x))
    expect(await a.traffic(2)).toHaveLength(2)
  })
})

describe.each(backends)('withdraw on $name', ({ world, skip }) => {
  it.skipIf(skip)('a pending message: withdrawn, never claimed, the same answer again, its notice request dropped', async () => {
    const { stores: [sender, holder] } = await world()
    const id = await post(sender, 'T')
    await sender.watch({ messageId: id, sender: SENDER, target: 'T', hop: 1, mayWake: true, maxHops: 4, perMinute: 6, expiresAt: Date.now() + 60_000 })
    const first = await sender.withdraw(SENDER, { messageId: id })
    expect(first).toEqual({ ok: true, messageId: id, target: 'T', was: 'pending', at: expect.any(Number) })
    await holder.markLive('T')
    expect(await holder.claim('T')).toEqual([])
    expect((await holder.waiting()).has('T')).toBe(false)
    expect(await holder.withdraw(SENDER, { messageId: id })).toEqual(first)
    expect(await sender.watchOf(id)).toMatchObject({ state: 'dropped', reason: 'withdrawn' })
    expect((await sender.traffic(10)).find(row => row.messageId === id)?.state).toBe('withdrawn')
  })

  it.skipIf(skip)('a held message: withdrawn, its user can no longer deliver it; delivered but unclaimed: withdrawn from the queue', async () => {
    const { stores: [sender, holder] } = await world()
    const id = sendId('T', 'held one')
    await sender.holdForApproval({ ...approval(id), target: 'T', sender: SENDER })
    expect(await sender.withdraw(SENDER, { messageId: id })).toMatchObject({ ok: true, was: 'held' })
    expect(await holder.decide(id, 'deliver', Date.now())).toMatchObject({ ok: false, reason: 'stale', approval: { state: 'withdrawn' } })
    const delivered = sendId('T', 'held two')
    await sender.holdForApproval({ ...approval(delivered), target: 'T', sender: SENDER })
    expect((await holder.decide(delivered, 'deliver', Date.now())).ok).toBe(true)
    expect(await sender.withdraw(SENDER, { messageId: delivered })).toMatchObject({ ok: true, was: 'pending' })
  })

  it.skipIf(skip)('by target and text: the newest matching send, even in the same millisecond; claimed or recorded: too late', async () => {
    // One clock reading for every post: the posting order alone says which is newer.
    const { stores: [sender, holder] } = await world(() => 1_700_000_000_000)
    const older = await post(sender, 'T', 'same text')
    const newer = await post(sender, 'T', 'same text')
    const digests = [digestOf('T', 'same text')]
    expect(matchesSend(newer, SENDER, digests)).toBe(true)
    expect(await sender.withdraw(SENDER, { target: 'T', digests })).toMatchObject({ ok: true, messageId: newer })
    await holder.markLive('T')
    expect((await holder.claim('T')).map(message => message.messageId)).toEqual([older])
    expect(await sender.withdraw(SENDER, { messageId: older })).toMatchObject({ ok: false, reason: 'too-late', where: { kind: 'claimed', pid: holder.self.pid } })
    await holder.record(older, 42, false)
    expect(await sender.withdraw(SENDER, { messageId: older })).toMatchObject({ ok: false, where: { kind: 'recorded', seq: 42 } })
    expect(await sender.withdraw('session-Z', { messageId: older })).toEqual({ ok: false, reason: 'unknown' })
  })

  it.skipIf(skip)('a withdraw racing a claim: exactly one of them has the message', async () => {
    const { stores: [sender, holder] } = await world()
    await holder.markLive('T')
    const ids = [await post(sender, 'T', 'one'), await post(sender, 'T', 'two'), await post(sender, 'T', 'three')]
    const [claimed, ...withdrawn] = await Promise.all([holder.claim('T'), ...ids.map(id => sender.withdraw(SENDER, { messageId: id }))])
    const taken = new Set(claimed.map(message => message.messageId))
    ids.forEach((id, index) => expect(taken.has(id)).toBe(!withdrawn[index]!.ok))
  })
})
