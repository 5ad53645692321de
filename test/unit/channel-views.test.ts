/**
 * The channel's views for the page's rows (src/home/channel-views.ts), over
 * a real SQLite home store and the fake session query: the sender's row
 * finds its held message by the id the tool gave it; a received row learns
 * that its message was held and delivered; the receiving conversation lists
 * what its user refused or let expire; `sessions.about` tells sessions apart.
 * @module test/unit/channel-views.test
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { answerChannel, openHomeStore, sessionsSend, type HomeRuntime, type SqliteHomeStore } from '../../src/testing.js'
import { makeWorld, session, userEvent } from '../support/fakes.js'

describe('the channel\'s row views', () => {
  const homes: string[] = []
  afterEach(() => { for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true }) })

  function setup() {
    const home = mkdtempSync(join(tmpdir(), 'xs-views-'))
    homes.push(home)
    const store: SqliteHomeStore = openHomeStore(home, { pid: 100, start: 1 }, () => true)
    const w = makeWorld()
    const me = session('session-me', 5000, { live: true, title: 'Release checklist', events: [userEvent(1, 'coordinate')] })
    const peer = session('session-peer', 1000, { live: true, title: 'Deploy keys' })
    w.corpus.add(me).add(peer)
    w.inbound.modes.set('session-peer', 'hold')
    const host = {
      runtime: { store, tick: () => undefined } as unknown as HomeRuntime,
      sessions: w.corpus,
      inbound: () => 'accept' as const,
      decided: () => undefined,
      log: () => undefined,
      home: () => ({ path: home, sandboxRoot: undefined, kind: undefined }),
    }
    const call = (endpoint: string, payload: unknown) => answerChannel(host, endpoint, payload, new AbortController().signal)
    return { store, w, me, call }
  }

  it('sends.held finds the held message of one call by the id the tool gave it, and follows it to refused', async () => {
    const { store, w, me, call } = setup()
    const args = { session_id: 'session-peer', message: 'rotate the staging key', mode: 'steer' }
    await sessionsSend(args, w.call(me, { callId: 'call_0' }), w.deps)
    // The tool's fake store kept what it held; the real store keeps the same approval.
    const { order: _order, state: _state, createdAt: _createdAt, ...held } = w.inbound.held[0]!
    store.holdForApproval(held)
    const asked = await call('sends.held', { sender: 'session-me', callId: 'call_0', args })
    expect(asked).toMatchObject({ ok: true, value: { messageId: held.messageId, held: { state: 'held', target: 'session-peer', sender: 'session-me' } } })
    // Another body under the same provider call id (`call_0` repeated) is another message: nothing held for it.
    expect(await call('sends.held', { sender: 'session-me', callId: 'call_0', args: { ...args, message: 'something else' } })).toMatchObject({ ok: true, value: { held: null } })
    store.decide(held.messageId, 'refuse', Date.now())
    const refused = await call('sends.held', { sender: 'session-me', callId: 'call_0', args })
    expect(refused).toMatchObject({ ok: true, value: { held: { state: 'refused', decidedAt: expect.any(Number) } } })
    expect(await call('sends.held', { sender: 'session-me', args })).toMatchObject({ ok: false, error: { code: 'bad-request' } })
  })

  it('messages.withdraw takes a held message back for its sender (once; a repeat says the same); sends.held then says withdrawn', async () => {
    const { store, w, me, call } = setup()
    const args = { session_id: 'session-peer', message: 'rotate the staging key' }
    await sessionsSend(args, w.call(me, { callId: 'call_1' }), w.deps)
    const { order: _order, state: _state, createdAt: _createdAt, ...held } = w.inbound.held[0]!
    store.holdForApproval(held)
    expect(await call('messages.withdraw', { messageId: held.messageId, sender: 'session-other' })).toEqual({ ok: true, value: { state: 'unknown' } })
    const first = await call('messages.withdraw', { messageId: held.messageId, sender: 'session-me' })
    expect(first).toEqual({ ok: true, value: { state: 'withdrawn', was: 'held', at: expect.any(Number) } })
    expect(await call('messages.withdraw', { messageId: held.messageId, sender: 'session-me' })).toEqual(first)
    expect(await call('sends.held', { sender: 'session-me', callId: 'call_1', args })).toMatchObject({ ok: true, value: { held: { state: 'withdrawn' }, stored: null } })
    // The target's user: no card, no refused line.
    expect(await call('approvals.list', {})).toEqual({ ok: true, value: { approvals: [] } })
    expect(await call('approvals.decided', { sessionId: 'session-peer' })).toEqual({ ok: true, value: { decided: [] } })
    expect(await call('messages.withdraw', { messageId: held.messageId })).toMatchObject({ ok: false, error: { code: 'bad-request' } })
  })

  it('messages.withdraw loses cleanly to a claim and says where the message is; sends.held follows the queue', async () => {
    const { store, call } = setup()
    const args = { session_id: 'session-peer', message: 'queued' }
    const { callIdentity, requestIdFor } = await import('../../src/model/limits.js')
    const messageId = requestIdFor('session-me', callIdentity('call_2', args))
    store.post({ messageId, target: 'session-peer', sender: 'session-me', hop: 1, mode: 'queue', text: 'queued', mayWake: true })
    expect(await call('sends.held', { sender: 'session-me', callId: 'call_2', args })).toMatchObject({ ok: true, value: { held: null, stored: { state: 'pending' } } })
    store.markLive('session-peer')
    store.claim('session-peer')
    store.record(messageId, 31, false)
    expect(await call('messages.withdraw', { messageId, sender: 'session-me' })).toEqual({ ok: true, value: { state: 'too-late', where: { kind: 'recorded', seq: 31 } } })
    expect(await call('sends.held', { sender: 'session-me', callId: 'call_2', args })).toMatchObject({ ok: true, value: { stored: { state: 'recorded' } } })
  })

  it('approvals.get says a delivered message was held first; approvals.decided lists refused and expired ones, newest first', async () => {
    const { store, call } = setup()
    const base = { target: 'session-peer', sender: 'session-me', senderTitle: 'Release checklist', hop: 1, mode: 'queue' as const, mayWake: true, notify: false }
    for (const id of ['d1', 'r1', 'e1', 'h1']) store.holdForApproval({ ...base, messageId: id, text: `framed ${id}`, body: `body ${id}`, expiresAt: id === 'e1' ? 1000 : Date.now() + 60_000 })
    store.decide('d1', 'deliver', Date.now())
    store.decide('r1', 'refuse', Date.now())
    store.expireApprovals(2000)
    expect(await call('approvals.get', { messageId: 'd1' })).toMatchObject({ ok: true, value: { approval: { state: 'delivered', decidedAt: expect.any(Number), createdAt: expect.any(Number) } } })
    expect(await call('approvals.get', { messageId: 'never-held' })).toEqual({ ok: true, value: { approval: null } })
    const decided = await call('approvals.decided', { sessionId: 'session-peer' })
    expect(decided.ok && (decided.value as { decided: Array<{ messageId: string, state: string, body: string }> }).decided.map(d => [d.messageId, d.state, d.body]).sort()).toEqual([['e1', 'expired', 'body e1'], ['r1', 'refused', 'body r1']])
    expect(await call('approvals.decided', { sessionId: 'session-me' })).toEqual({ ok: true, value: { decided: [] } })
    expect(await call('approvals.decided', {})).toMatchObject({ ok: false, error: { code: 'bad-request' } })
  })

  it('sessions.about tells sessions apart: title, workspace, log, and the process holding it or that let it go', async () => {
    const { store, call } = setup()
    store.markLive('session-me')
    const about = await call('sessions.about', { sessionIds: ['session-me', 'session-peer', 'session-gone'] })
    expect(about).toMatchObject({ ok: true, value: { sessions: {
      'session-me': { title: 'Release checklist', persisted: true, process: { pid: 100, here: true, state: 'live' }, ended: null },
      'session-peer': { title: 'Deploy keys', process: null },
      'session-gone': { title: null, cwd: null, persisted: false, live: false, process: null, ended: null },
    } } })
    store.release('session-me', 'exited')
    expect(await call('sessions.about', { sessionIds: ['session-me'] })).toMatchObject({ ok: true, value: { sessions: { 'session-me': { process: null, ended: { how: 'exited', pid: 100 } } } } })
    expect(await call('sessions.about', { sessionIds: [] })).toMatchObject({ ok: true, value: { sessions: {} } })
    expect(await call('sessions.about', { sessionIds: Array.from({ length: 51 }, (_, i) => `s${i}`) })).toMatchObject({ ok: false, error: { code: 'bad-request' } })
    expect(await call('sessions.about', { sessionIds: [42] })).toMatchObject({ ok: false, error: { code: 'bad-request' } })
  })
})
