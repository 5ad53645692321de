/**
 * The target's user decides what peer messages do (docs/tools.md#inbound-messages):
 * `sessions_send` over in-memory ports with the inbound port's fake
 * (test/support/fakes.ts `FakeInbound`) — refuse touches nothing of the
 * target, a session's own choice wins over the setting, hold keeps the framed
 * message and resolves and admits nothing — and the approval half of the
 * real SQLite home store (src/home/store-approvals.ts) with the browser
 * half's channel (src/home/channel.ts) over it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { answerChannel, approvalDecided, MAX_HELD_PER_TARGET, openHomeStore, parseFrame, sessionsSend, type HomeRuntime, type NewApproval, type SqliteHomeStore } from '../../src/testing.js'
import { makeWorld, session, userEvent } from '../support/fakes.js'

function world(settings = {}) {
  const w = makeWorld(settings)
  const me = session('session-me', 5000, { live: true, title: 'Release checklist', events: [userEvent(1, 'coordinate')] })
  const peer = session('session-peer', 1000, { live: true, title: 'Deploy keys' })
  w.corpus.add(me).add(peer)
  return { w, me, peer }
}

describe('sessions_send and the target\'s inbound choice', () => {
  it('refuses rejected for a session that takes no peer messages, before anything of the target is looked up', async () => {
    const { w, me, peer } = world()
    w.inbound.modes.set('session-peer', 'refuse')
    const text = await sessionsSend({ session_id: 'session-peer', message: 'the key, please' }, w.call(me, { callId: 'c1' }), w.deps)
    expect(text).toMatch(/^refused: rejected \| session-peer does not take messages from peer sessions/)
    expect(text).toContain('Ask its user')
    expect(w.corpus.calls).toEqual({})
    expect(w.controller.calls).toEqual({})
    expect(peer.events).toHaveLength(0)
    // Journaled for the traffic view, as refused for its inbound choice.
    expect(w.inbound.journaled).toEqual([expect.objectContaining({ target: 'session-peer', sender: 'session-me', state: 'refused', reason: 'inbound' })])
  })

  it('takes the host-wide setting when the session has no choice of its own, and the session\'s own choice over it', async () => {
    const { w, me } = world({ inbound: 'refuse' })
    expect(await sessionsSend({ session_id: 'session-peer', message: 'one' }, w.call(me), w.deps)).toMatch(/^refused: rejected/)
    // A refusing host still refuses an id that names nothing: nothing is looked up.
    expect(await sessionsSend({ session_id: 'session-nowhere', message: 'one' }, w.call(me), w.deps)).toMatch(/^refused: rejected/)
    w.inbound.modes.set('session-peer', 'accept')
    expect(await sessionsSend({ session_id: 'session-peer', message: 'two' }, w.call(me), w.deps)).toMatch(/^accepted for session-peer .* recorded at seq/)
  })

  it('holds the framed message for its user: nothing resolved, admitted or written to the target', async () => {
    const { w, me, peer } = world()
    w.inbound.modes.set('session-peer', 'hold')
    const text = await sessionsSend({ session_id: 'session-peer', message: 'rotate the staging key', mode: 'steer' }, w.call(me, { callId: 'h1' }), w.deps)
    expect(text).toMatch(/^accepted for session-peer \| mode=steer \| chars=22 \| hop 1 \| held for its user's approval\n.*expires in 10 min\. Nothing has reached that session/)
    expect(w.controller.calls).toEqual({})
    expect(peer.events).toHaveLength(0)
    expect(w.inbound.held).toHaveLength(1)
    const held = w.inbound.held[0]!
    expect(held).toMatchObject({ target: 'session-peer', sender: 'session-me', senderTitle: 'Release checklist', hop: 1, mode: 'steer', body: 'rotate the staging key', mayWake: true, notify: false })
    expect(parseFrame(held.text)).toMatchObject({ fromSessionId: 'session-me', mode: 'steer', hop: 1, body: 'rotate the staging key' })
    expect(held.expiresAt - held.createdAt).toBeGreaterThan(599_000)
    // A retried call returns its first result; a second send of the same body is a duplicate (held messages count).
    expect(await sessionsSend({ session_id: 'session-peer', message: 'rotate the staging key', mode: 'steer' }, w.call(me, { callId: 'h1' }), w.deps)).toBe(`${text}\n(This tool call, same id and arguments, was already held once; it was not held again.)`)
    expect(await sessionsSend({ session_id: 'session-peer', message: 'rotate the staging key', mode: 'steer' }, w.call(me, { callId: 'h2' }), w.deps)).toMatch(/^refused: rate-limited/)
    expect(w.inbound.held).toHaveLength(1)
  })

  it('with notify, watches the held message so a delivery is watched like any send, and says a notice will come', async () => {
    const { w, me } = world()
    w.inbound.modes.set('session-peer', 'hold')
    const text = await sessionsSend({ session_id: 'session-peer', message: 'rotate it', notify: true }, w.call(me, { callId: 'n1' }), w.deps)
    expect(text).toContain('\nNotice: one notice comes to this session when its user refuses it or it expires, or, once delivered, when the turn that takes it ends')
    expect([...w.controller.watches.keys()]).toEqual([w.inbound.held[0]!.messageId])
    expect(w.inbound.held[0]!.notify).toBe(true)
    expect(w.controller.calls).toEqual({ watchAnswer: 1 })
  })

  it('keeps the bare body and reads the sender\'s title for the card with frames off', async () => {
    const { w, me } = world({ frameMessages: false })
    w.inbound.modes.set('session-peer', 'hold')
    await sessionsSend({ session_id: 'session-peer', message: 'plain' }, w.call(me), w.deps)
    expect(w.inbound.held[0]).toMatchObject({ text: 'plain', body: 'plain', senderTitle: 'Release checklist' })
  })

  it('refuses a hold it cannot keep (no home store) instead of delivering', async () => {
    const { w, me, peer } = world({ inbound: 'hold' })
    const deps = { ...w.deps, inbound: undefined }
    const text = await sessionsSend({ session_id: 'session-peer', message: 'x' }, w.call(me), deps)
    expect(text).toMatch(/^refused: rejected \| session-peer holds messages from peers for its user's approval, and this one could not be kept: this dsh process has no cross-session store/)
    expect(peer.events).toHaveLength(0)
  })

  it('keeps sender→target order across hold and accept: while an earlier message of a sender is held, its next one is held behind it', async () => {
    const { w, me, peer } = world()
    const home = mkdtempSync(join(tmpdir(), 'xs-fifo-'))
    const store = openHomeStore(home, { pid: 100, start: 1 }, () => true)
    const deps = { ...w.deps, inbound: store }
    try {
      store.setInbound('session-peer', 'hold')
      expect(await sessionsSend({ session_id: 'session-peer', message: 'first' }, w.call(me, { callId: 'f1' }), deps)).toMatch(/held for its user's approval/)
      // Its user now accepts peers; the first message still waits for a decision.
      store.setInbound('session-peer', 'accept')
      expect(await sessionsSend({ session_id: 'session-peer', message: 'second' }, w.call(me, { callId: 'f2' }), deps)).toMatch(/held for its user's approval/)
      expect(store.approvals(Date.now(), 'session-peer').map(held => held.body)).toEqual(['first', 'second'])
      expect(peer.events).toHaveLength(0)
      // Another sender is not held behind them.
      const other = session('session-other', 4000, { live: true, title: 'Other' })
      w.corpus.add(other)
      expect(await sessionsSend({ session_id: 'session-peer', message: 'third' }, w.call(other, { callId: 'f3' }), deps)).toMatch(/^accepted for session-peer .* recorded at seq/)
    } finally {
      store.close()
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('journals a local delivery with the seq it was recorded at', async () => {
    const { w, me } = world()
    await sessionsSend({ session_id: 'session-peer', message: 'hello' }, w.call(me), w.deps)
    expect(w.inbound.journaled).toEqual([expect.objectContaining({ target: 'session-peer', sender: 'session-me', hop: 1, mode: 'queue', state: 'recorded', seq: 1 })])
  })
})

describe('the approval half of the home store', () => {
  const homes: string[] = []
  afterEach(() => { for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true }) })
  function open(pid = 100): { store: SqliteHomeStore, home: string } {
    const home = homes[0] ?? mkdtempSync(join(tmpdir(), 'xs-inbound-'))
    if (homes.length === 0) homes.push(home)
    return { store: openHomeStore(home, { pid, start: 1 }, () => true), home }
  }
  const approval = (id: string, overrides: Partial<NewApproval> = {}): NewApproval => ({
    messageId: id, target: 'session-t', sender: 'session-s', senderTitle: 'S', hop: 2, mode: 'steer', text: `framed ${id}`, body: `body ${id}`,
    mayWake: true, notify: false, expiresAt: Date.now() + 60_000, ...overrides,
  })

  it('keeps a session\'s own inbound choice, clears it back to the setting', () => {
    const { store } = open()
    expect(store.inboundOf('session-t')).toBeUndefined()
    store.setInbound('session-t', 'hold')
    expect(store.inboundOf('session-t')).toBe('hold')
    store.setInbound('session-t', 'refuse')
    expect(open(101).store.inboundOf('session-t')).toBe('refuse')
    store.setInbound('session-t', undefined)
    expect(store.inboundOf('session-t')).toBeUndefined()
  })

  it('holds once per id, refuses past the bound, and lists only what is held and unexpired', () => {
    const { store } = open()
    expect(store.holdForApproval(approval('m1'))).toMatchObject({ ok: true, duplicate: false })
    expect(store.holdForApproval(approval('m1'))).toMatchObject({ ok: true, duplicate: true })
    store.holdForApproval(approval('m2', { expiresAt: Date.now() - 1 }))
    expect(store.approvals(Date.now(), 'session-t').map(a => a.messageId)).toEqual(['m1'])
    for (let i = store.approvals(0).length; i < MAX_HELD_PER_TARGET; i++) store.holdForApproval(approval(`f${i}`, { expiresAt: Date.now() + 60_000 }))
    expect(store.holdForApproval(approval('over'))).toEqual({ ok: false, reason: 'full' })
    expect(store.holdForApproval(approval('other', { target: 'session-u' }))).toMatchObject({ ok: true })
  })

  it('delivers into messages with the frame, hop and mode it was held with, once; a decided or expired message is stale', () => {
    const { store } = open()
    store.holdForApproval(approval('m1'))
    store.holdForApproval(approval('m2'))
    store.holdForApproval(approval('m3', { expiresAt: Date.now() + 5 }))
    const delivered = store.decide('m1', 'deliver', Date.now())
    expect(delivered).toMatchObject({ ok: true, approval: { state: 'delivered' } })
    expect(store.message('m1')).toMatchObject({ state: 'pending', target: 'session-t', sender: 'session-s', hop: 2, mode: 'steer', text: 'framed m1', mayWake: true })
    // A second decision, from this or another process, changes nothing.
    expect(open(101).store.decide('m1', 'refuse', Date.now())).toMatchObject({ ok: false, reason: 'stale', approval: { state: 'delivered' } })
    expect(store.decide('m2', 'refuse', Date.now())).toMatchObject({ ok: true, approval: { state: 'refused' } })
    expect(store.message('m2')).toBeUndefined()
    expect(store.decide('m3', 'deliver', Date.now() + 10)).toMatchObject({ ok: false, reason: 'stale', approval: { state: 'expired' } })
    expect(store.message('m3')).toBeUndefined()
    expect(store.decide('nope', 'deliver', Date.now())).toEqual({ ok: false, reason: 'unknown' })
  })

  it('delivers one sender\'s held messages to a target in the order they were sent: a later one waits for the earlier decision', () => {
    const { store } = open()
    store.holdForApproval(approval('a1'))
    store.holdForApproval(approval('a2'))
    store.holdForApproval(approval('b1', { sender: 'session-other' }))
    // Deliver of the later one is refused while the earlier one is held, nothing is posted; another sender is not held up; Refuse always works.
    expect(store.decide('a2', 'deliver', Date.now())).toMatchObject({ ok: false, reason: 'earlier-held', approval: { state: 'held' } })
    expect(store.message('a2')).toBeUndefined()
    expect(store.decide('b1', 'deliver', Date.now())).toMatchObject({ ok: true, approval: { state: 'delivered' } })
    expect(store.decide('a1', 'refuse', Date.now())).toMatchObject({ ok: true })
    expect(store.decide('a2', 'deliver', Date.now())).toMatchObject({ ok: true, approval: { state: 'delivered' } })
    expect(store.message('a2')).toMatchObject({ state: 'pending' })
  })

  it('a refused or expired held message whose sender asked for a notice posts one notice to the sender, once', () => {
    const { store } = open()
    const logs: string[] = []
    for (const id of ['r1', 'e1']) {
      store.watch({ messageId: id, sender: 'session-s', target: 'session-t', hop: 2, mayWake: true, maxHops: 4, perMinute: 6, expiresAt: Date.now() + 60_000 })
      store.holdForApproval(approval(id, { notify: true, expiresAt: id === 'e1' ? 1000 : Date.now() + 60_000 }))
    }
    const refused = store.decide('r1', 'refuse', Date.now())
    approvalDecided(store, refused.approval!, line => logs.push(line), 'Deploy keys')
    approvalDecided(store, refused.approval!, line => logs.push(line), 'Deploy keys')
    for (const expired of store.expireApprovals(2000)) approvalDecided(store, expired, line => logs.push(line))
    const notice = store.message('notice:r1')
    expect(notice).toMatchObject({ target: 'session-s', sender: 'session-t', hop: 3, state: 'pending', notice: 'refused' })
    expect(notice?.text).toMatch(/^Cross-session notice from the dsh-cross-session package \(not a message from your user\)\.\nfrom-session: session-t \("Deploy keys"\)\nheld message: refused \| its user refused your held message; it was never delivered \| hop 3/)
    expect(store.message('notice:e1')).toMatchObject({ target: 'session-s', notice: 'expired' })
    expect(store.message('notice:e1')?.text).toContain('expired after')
    expect(store.watchOf('r1')?.state).toBe('noticed')
    // A delivered one is left to its watch: the notice comes when its turn ends.
    store.watch({ messageId: 'd1', sender: 'session-s', target: 'session-t', hop: 2, mayWake: true, maxHops: 4, perMinute: 6, expiresAt: Date.now() + 60_000 })
    store.holdForApproval(approval('d1', { notify: true }))
    approvalDecided(store, store.decide('d1', 'deliver', Date.now()).approval!, line => logs.push(line))
    expect(store.watchOf('d1')?.state).toBe('watching')
  })

  it('expires what is past its expiry, once', () => {
    const { store } = open()
    store.holdForApproval(approval('m1', { expiresAt: 1000 }))
    store.holdForApproval(approval('m2'))
    expect(store.expireApprovals(2000).map(a => [a.messageId, a.state])).toEqual([['m1', 'expired']])
    expect(store.expireApprovals(3000)).toEqual([])
    expect(store.approval('m1')?.state).toBe('expired')
  })

  it('shows every message in the traffic view, newest first, with its state', () => {
    const { store } = open()
    store.holdForApproval(approval('held'))
    store.holdForApproval(approval('refused'))
    store.decide('refused', 'refuse', Date.now())
    store.journal({ messageId: 'local', target: 'session-t', sender: 'session-s', hop: 1, mode: 'queue', state: 'recorded', seq: 7 })
    store.journal({ messageId: 'no', target: 'session-t', sender: 'session-s', hop: 0, mode: 'queue', state: 'refused', reason: 'inbound' })
    store.answered('session-t', 9)
    // Another sender: one sender's later message would wait for its earlier held one.
    store.holdForApproval(approval('delivered', { sender: 'session-u' }))
    store.decide('delivered', 'deliver', Date.now())
    const rows = store.traffic(50)
    expect(Object.fromEntries(rows.map(row => [row.messageId, row.state]))).toEqual({ held: 'held', refused: 'refused', local: 'answered', no: 'refused', delivered: 'pending' })
    expect(rows.find(row => row.messageId === 'local')).toMatchObject({ seq: 7, answeredSeq: 9 })
    expect(rows.find(row => row.messageId === 'no')?.reason).toBe('inbound')
    expect(rows.find(row => row.messageId === 'refused')?.reason).toBe('user')
    expect(rows.map(row => row.at)).toEqual([...rows.map(row => row.at)].sort((a, b) => b - a))
    expect(store.traffic(2)).toHaveLength(2)
  })

  it('the channel lists, decides, and sets the inbound choice; bad input is a readable failure', async () => {
    const { store } = open()
    const ticks: number[] = []
    const decided: string[] = []
    const host = {
      runtime: { store, tick: () => { ticks.push(1) } } as unknown as HomeRuntime,
      sessions: { readTitles: async (ids: readonly string[]) => new Map(ids.map(id => [id, `title of ${id}`])) } as never,
      inbound: () => 'accept' as const,
      decided: (a: { messageId: string, state: string }) => { decided.push(`${a.messageId} ${a.state}`) },
      log: () => undefined,
      home: () => ({ path: '/home/u/.dsh', sandboxRoot: undefined, kind: undefined }),
    }
    const call = (endpoint: string, payload: unknown) => answerChannel(host, endpoint, payload, new AbortController().signal)
    store.holdForApproval(approval('m1'))
    expect(await call('approvals.list', { sessionId: 'session-t' })).toMatchObject({ ok: true, value: { approvals: [{ messageId: 'm1', body: 'body m1', sender: 'session-s', senderTitle: 'S', mode: 'steer', hop: 2 }] } })
    expect(JSON.stringify(await call('approvals.list', {}))).not.toContain('framed m1')
    expect(await call('approvals.decide', { messageId: 'm1', decision: 'deliver' })).toEqual({ ok: true, value: { state: 'delivered' } })
    expect(ticks).toHaveLength(1)
    expect(decided).toEqual(['m1 delivered'])
    expect(await call('approvals.decide', { messageId: 'm1', decision: 'refuse' })).toEqual({ ok: true, value: { state: 'delivered', reason: 'stale' } })
    expect(await call('approvals.decide', { messageId: 'm1', decision: 'maybe' })).toMatchObject({ ok: false, error: { code: 'bad-request' } })
    expect(await call('inbound.set', { sessionId: 'session-t', mode: 'hold' })).toEqual({ ok: true, value: { own: 'hold', host: 'accept' } })
    expect(await call('inbound.get', { sessionId: 'session-t' })).toEqual({ ok: true, value: { own: 'hold', host: 'accept' } })
    expect(await call('inbound.set', { sessionId: 'session-t', mode: 'sometimes' })).toMatchObject({ ok: false, error: { code: 'bad-request' } })
    expect(await call('inbound.set', { sessionId: 'session-t', mode: null })).toEqual({ ok: true, value: { own: null, host: 'accept' } })
    expect(await call('traffic.list', {})).toMatchObject({ ok: true, value: { rows: [{ messageId: 'm1', state: 'pending' }], titles: { 'session-s': 'title of session-s' } } })
    expect(await call('nothing.here', {})).toMatchObject({ ok: false, error: { code: 'not-found' } })
  })

  it('on a store shared by machines, a page lists and decides only its machine\'s held messages, and sets only their choice', async () => {
    const { store } = open()
    const host = {
      runtime: { store, tick: () => undefined } as unknown as HomeRuntime,
      sessions: { readTitles: async (ids: readonly string[]) => new Map(ids.map(id => [id, `title of ${id}`])) } as never,
      inbound: () => 'accept' as const,
      decided: () => undefined,
      log: () => undefined,
      home: () => ({ path: '/home/u/.dsh', sandboxRoot: undefined, kind: undefined }),
      // `session-far` is a session another machine published (home/channel-machines.ts).
      elsewhere: async (sessionId: string) => sessionId === 'session-far',
    }
    const call = (endpoint: string, payload: unknown) => answerChannel(host, endpoint, payload, new AbortController().signal)
    store.holdForApproval(approval('here'))
    store.holdForApproval(approval('there', { target: 'session-far' }))
    expect(await call('approvals.list', {})).toMatchObject({ ok: true, value: { approvals: [{ messageId: 'here' }] } })
    expect((await call('approvals.list', {}) as { value: { approvals: unknown[] } }).value.approvals).toHaveLength(1)
    expect(await call('approvals.decide', { messageId: 'there', decision: 'deliver' })).toMatchObject({ ok: false, error: { code: 'not-found' } })
    expect(store.approval('there')?.state).toBe('held')
    expect(await call('inbound.set', { sessionId: 'session-far', mode: 'accept' })).toMatchObject({ ok: false, error: { code: 'not-found' } })
    expect(store.inboundOf('session-far')).toBeUndefined()
    expect(await call('approvals.decide', { messageId: 'here', decision: 'deliver' })).toEqual({ ok: true, value: { state: 'delivered' } })
    // Traffic: what this machine's sessions sent or were sent; a row between two other machines' sessions is not shown.
    store.journal({ messageId: 'sent-away', target: 'session-far', sender: 'session-s', hop: 1, mode: 'queue', state: 'recorded', seq: 3 })
    store.journal({ messageId: 'between-others', target: 'session-far', sender: 'session-far', hop: 1, mode: 'queue', state: 'recorded', seq: 4 })
    const traffic = await call('traffic.list', {}) as { value: { rows: Array<{ messageId: string }> } }
    expect(traffic.value.rows.map(row => row.messageId)).toContain('sent-away')
    expect(traffic.value.rows.map(row => row.messageId)).not.toContain('between-others')
  })
})
