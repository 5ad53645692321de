import { describe, expect, it } from 'vitest'
import { buildFrame, failureText, parseFrame, relaySource, sessionsSend, type MailboxStage } from '../../src/testing.js'
import { makeWorld, session, userEvent } from '../support/fakes.js'

function world(settings = {}) {
  const w = makeWorld(settings)
  const me = session('session-me', 5000, { live: true, title: 'Sender "one"\nline two', events: [userEvent(1, 'please coordinate with the others')] })
  const peer = session('session-peer', 1000, { live: true, title: 'Peer' })
  const cold = session('session-cold', 900, { title: 'Cold' })
  const child = session('child-1', 1200, { header: { parentSession: 'session-peer', origin: 'subagent' } })
  w.corpus.add(me).add(peer).add(cold).add(child)
  return { w, me, peer, cold, child }
}

const NOTHING = 'Nothing was delivered.'

describe('sessions_send: accepted', () => {
  it('queues a framed message, waits until it is recorded, and says so', async () => {
    const { w, me, peer } = world()
    const text = await sessionsSend({ session_id: 'session-peer', message: 'can you run the tests?' }, w.call(me, { callId: 'c1' }), w.deps)
    expect(text).toBe([
      'accepted for session-peer | mode=queue | chars=22 | hop 1 | recorded at seq 1',
      'The message is queued in that session\'s inbox and starts its next turn now (it was idle). Its reply will not return through this call; read it later with sessions_read.',
    ].join('\n'))
    expect(w.controller.log.map(entry => entry.op)).toEqual(['resolve', 'admit', 'wait'])
    const admitted = w.controller.log[1]
    expect(admitted).toMatchObject({ op: 'admit', sessionId: 'session-peer', requestId: expect.stringMatching(/^cross-session:session-me:c1:[\w-]{16}$/), mode: 'queue' })
    const frame = parseFrame(admitted?.op === 'admit' ? admitted.text : '')
    expect(frame).toMatchObject({ fromSessionId: 'session-me', fromTitle: 'Sender "one" line two', mode: 'queue', hop: 1, body: 'can you run the tests?' })
    expect(peer.events).toHaveLength(1)
  })

  it('makes a bounded number of backend calls and never lists the corpus', async () => {
    const { w, me } = world()
    await sessionsSend({ session_id: 'session-peer', message: 'x' }, w.call(me), w.deps)
    expect(w.corpus.calls).toEqual({ lookup: 1, readTitles: 1 })
    expect(w.controller.calls).toEqual({ resolve: 1, admit: 1, waitRecorded: 1 })
  })

  it('says steer went into the running turn, or started one when idle', async () => {
    const { w, me } = world()
    w.controller.resolve = async sessionId => ({ ok: true, value: { sessionId, woke: false, running: true } })
    const running = await sessionsSend({ session_id: 'session-peer', message: 'stop, use B', mode: 'steer' }, w.call(me), w.deps)
    expect(running).toContain('| mode=steer |')
    expect(running).toContain('inserted into the turn that session is running now')
    const idle = world()
    const started = await sessionsSend({ session_id: 'session-peer', message: 'x', mode: 'steer' }, idle.w.call(idle.me), idle.w.deps)
    expect(started).toContain('That session was idle, so the steering message started a new turn.')
  })

  it('uses defaultSendMode when mode is absent', async () => {
    const { w, me } = world({ defaultSendMode: 'steer' })
    expect(await sessionsSend({ session_id: 'session-peer', message: 'x' }, w.call(me), w.deps)).toContain('mode=steer')
  })

  it('wakes a cold session when allowed and says so', async () => {
    const { w, me, cold } = world()
    const text = await sessionsSend({ session_id: 'session-cold', message: 'wake up' }, w.call(me), w.deps)
    expect(text).toMatch(/^accepted for session-cold \| mode=queue \| chars=7 \| hop 1 \(woke a cold session\) \| recorded at seq 1/)
    expect(cold.live).toBe(true)
  })

  it('truncates a long body to maxSendChars by code points and tells the sender', async () => {
    const { w, me } = world({ maxSendChars: 100 })
    const text = await sessionsSend({ session_id: 'session-peer', message: 'é'.repeat(150) }, w.call(me), w.deps)
    expect(text).toContain('chars=100 (truncated from 150)')
    expect(text).toContain('Only the first 100 characters were delivered (maxSendChars).')
    const admitted = w.controller.log.find(entry => entry.op === 'admit')
    expect(parseFrame(admitted?.op === 'admit' ? admitted.text : '')?.body).toBe('é'.repeat(100))
  })

  it('delivers the bare body when frameMessages is off', async () => {
    const { w, me } = world({ frameMessages: false })
    await sessionsSend({ session_id: 'session-peer', message: 'plain' }, w.call(me), w.deps)
    expect(w.controller.log.find(entry => entry.op === 'admit')).toMatchObject({ text: 'plain' })
    expect(w.corpus.calls.readTitles).toBeUndefined()
  })

  it('carries hop h+1 when the caller\'s turn came from a message this plugin delivered with hop h', async () => {
    const { w, me } = world()
    me.events.push(userEvent(2, buildFrame({ fromSessionId: 'session-peer', fromTitle: 'Peer', mode: 'queue', hop: 2, body: 'relay to cold' }).text, relaySource({ senderSessionId: 'session-peer', hop: 2 })))
    const text = await sessionsSend({ session_id: 'session-cold', message: 'relayed' }, w.call(me), w.deps)
    expect(text).toContain('| hop 3')
  })

  it('says when the message was admitted but not yet recorded', async () => {
    const { w, me } = world({ recordWaitMs: 250 })
    w.controller.recordOnAdmit = false
    const text = await sessionsSend({ session_id: 'session-peer', message: 'x' }, w.call(me), w.deps)
    expect(text).toContain('| admitted, not yet recorded after 250 ms')
    expect(text).toContain('It is not durable until that session\'s next turn starts')
  })

  it('never delivers a retried tool call (same call id) twice', async () => {
    const { w, me, peer } = world()
    const first = await sessionsSend({ session_id: 'session-peer', message: 'once' }, w.call(me, { callId: 'same' }), w.deps)
    const second = await sessionsSend({ session_id: 'session-peer', message: 'once' }, w.call(me, { callId: 'same' }), w.deps)
    expect(second.startsWith(first)).toBe(true)
    expect(second).toContain('was not delivered again')
    expect(w.controller.delivered.size).toBe(1)
    expect(peer.events).toHaveLength(1)
  })

  it('treats a repeated call id with other arguments as a new call (providers that answer call_0 every time)', async () => {
    const { w, me, peer, cold } = world()
    cold.live = true
    const first = await sessionsSend({ session_id: 'session-peer', message: 'body X' }, w.call(me, { callId: 'call_0' }), w.deps)
    const second = await sessionsSend({ session_id: 'session-cold', message: 'body Y' }, w.call(me, { callId: 'call_0' }), w.deps)
    expect(first).toMatch(/^accepted for session-peer /)
    expect(second).toMatch(/^accepted for session-cold /)
    expect(second).not.toContain('not delivered again')
    expect(cold.events).toHaveLength(1)
    expect(peer.events).toHaveLength(1)
    // Two deliveries, two distinct message ids.
    expect(w.controller.delivered.size).toBe(2)
    // The same target and id with another body is new too.
    const third = await sessionsSend({ session_id: 'session-peer', message: 'body Z' }, w.call(me, { callId: 'call_0' }), w.deps)
    expect(third).not.toContain('not delivered again')
    expect(peer.events).toHaveLength(2)
  })
})

describe('sessions_send: refusals through the tool', () => {
  it('not-found touches nothing but the non-waking lookup', async () => {
    const { w, me } = world()
    const text = await sessionsSend({ session_id: 'session-ghost', message: 'x' }, w.call(me), w.deps)
    expect(text).toBe(`refused: not-found | no session with id "session-ghost"\n${NOTHING} Re-run sessions_list for a valid id and pass it exactly as printed.`)
    expect(w.controller.log).toEqual([])
  })

  it('not-messageable: nothing touches the target after the lookup; the owner is named', async () => {
    const { w, me, child } = world({ allowResume: false })
    const text = await sessionsSend({ session_id: 'child-1', message: 'x' }, w.call(me), w.deps)
    expect(text).toContain('refused: not-messageable | child-1 is a subagent session owned by session-peer')
    expect(w.controller.log).toEqual([])
    expect(w.corpus.calls).toEqual({ lookup: 1 })
    expect(child.live).toBe(false)
  })

  it('resume-disabled: with allowResume false a cold target is never resolved or woken', async () => {
    const { w, me, cold } = world({ allowResume: false })
    const text = await sessionsSend({ session_id: 'session-cold', message: 'x' }, w.call(me), w.deps)
    expect(text).toContain('refused: resume-disabled | session-cold is cold')
    expect(text).toContain('The session was left untouched')
    expect(w.controller.log).toEqual([])
    expect(cold.live).toBe(false)
    expect(cold.events).toEqual([])
  })

  it('resume-disabled race: a target that goes cold between lookup and delivery is refused, not woken', async () => {
    const { w, me, peer } = world({ allowResume: false })
    w.controller.goColdAfterResolve = true
    const text = await sessionsSend({ session_id: 'session-peer', message: 'x' }, w.call(me), w.deps)
    expect(text).toMatch(/^refused: rejected \| admitting the message failed: the session went cold before delivery/)
    expect(w.controller.log.map(entry => entry.op)).toEqual(['resolve', 'admit'])
    expect(w.controller.log.some(entry => entry.op === 'wake')).toBe(false)
    expect(w.controller.log[0]).toMatchObject({ mayWake: false })
    expect(peer.events).toEqual([])
  })

  it('a prompt that fails after a wake is rejected and the woken session is put back', async () => {
    const { w, me, cold } = world()
    w.controller.admitFailure = { reason: { kind: 'failure', failure: 'session/agent-busy' }, code: 'session/agent-busy' }
    const text = await sessionsSend({ session_id: 'session-cold', message: 'x' }, w.call(me), w.deps)
    // Only the failure table's row reaches the model, then what happened to the woken session.
    expect(text).toContain(`refused: rejected | admitting the message failed: ${failureText('session/agent-busy')}; the session this call woke was put back to sleep (its handle was disposed)`)
    expect(w.controller.log.map(entry => entry.op)).toEqual(['resolve', 'wake', 'admit', 'release'])
    expect(cold.live).toBe(false)
  })

  it('a cancellation while waking puts the woken session back and delivers nothing', async () => {
    const { w, me, cold } = world()
    const abort = new AbortController()
    w.controller.afterResolve = () => abort.abort()
    const text = await sessionsSend({ session_id: 'session-cold', message: 'x' }, w.call(me, { signal: abort.signal }), w.deps)
    expect(text).toBe('cancelled | sessions_send was cancelled while resolving the target session; the session this call woke was put back to sleep (its handle was disposed)\nNothing was delivered.')
    expect(w.controller.log.map(entry => entry.op)).toEqual(['resolve', 'wake', 'release'])
    expect(cold.live).toBe(false)
  })

  it('a cancellation after admission still reports the delivery, never "nothing delivered"', async () => {
    const { w, me, peer } = world()
    const abort = new AbortController()
    w.controller.recordOnAdmit = false
    w.controller.afterAdmit = () => abort.abort()
    const text = await sessionsSend({ session_id: 'session-peer', message: 'x' }, w.call(me, { signal: abort.signal }), w.deps)
    expect(text).toMatch(/^accepted for session-peer \| mode=queue \| chars=1 \| hop 1 \| admitted; recording not confirmed \(wait cancelled\)/)
    expect(w.controller.delivered.size).toBe(1)
    expect(peer.live).toBe(true)
  })

  it('rejected carries the controller\'s failure (its table row) when resolution fails', async () => {
    const { w, me } = world()
    w.controller.resolveFailure = { reason: { kind: 'failure', failure: 'gateway/internal' }, code: 'gateway/internal' }
    expect(await sessionsSend({ session_id: 'session-cold', message: 'x' }, w.call(me), w.deps)).toContain(`refused: rejected | resolving the target session failed: ${failureText('gateway/internal')}`)
  })

  it('empty-body and self-target make no backend call', async () => {
    const { w, me } = world()
    expect(await sessionsSend({ session_id: 'session-peer', message: ' \n\t ' }, w.call(me), w.deps)).toMatch(/^refused: empty-body/)
    expect(await sessionsSend({ session_id: 'session-me', message: 'hi me' }, w.call(me), w.deps)).toMatch(/^refused: self-target \| session-me is this session/)
    expect(w.corpus.calls).toEqual({})
    expect(w.controller.log).toEqual([])
  })

  it('rate-limited: the hop limit stops a relay chain and tells the model to report instead', async () => {
    const { w, me } = world({ maxHops: 2 })
    me.events.push(userEvent(2, buildFrame({ fromSessionId: 'session-peer', fromTitle: 'Peer', mode: 'queue', hop: 2, body: 'pass it on' }).text, relaySource({ senderSessionId: 'session-peer', hop: 2 })))
    const text = await sessionsSend({ session_id: 'session-cold', message: 'passing it on' }, w.call(me), w.deps)
    expect(text).toContain('refused: rate-limited | this would be hop 3 of a relay chain limited to 2 hops (chain: session-peer → session-me → session-cold)')
    expect(text).toContain('Stop relaying')
    expect(w.controller.log).toEqual([])
  })

  it('with frameMessages: false a relay loop is still stopped at maxHops', async () => {
    const w = makeWorld({ frameMessages: false, maxHops: 3 })
    const a = session('session-a', 1, { live: true, events: [userEvent(1, 'start the relay')] })
    const b = session('session-b', 2, { live: true })
    const c = session('session-c', 3, { live: true })
    w.corpus.add(a).add(b).add(c)
    // Each session relays the message it received onward: a → b → c → a → …
    const ring = [a, b, c]
    const results: string[] = []
    for (let step = 0; step < 9; step++) {
      const from = ring[step % 3]!
      const to = ring[(step + 1) % 3]!
      results.push(await sessionsSend({ session_id: to.header.id, message: `relay ${step}` }, w.call(from), w.deps))
      if (results.at(-1)?.startsWith('refused')) break
    }
    expect(results.slice(0, 3).every(text => text.startsWith('accepted'))).toBe(true)
    expect(results[3]).toContain('refused: rate-limited | this would be hop 4 of a relay chain limited to 3 hops')
    expect(w.controller.delivered.size).toBe(3)
  })

  it('a frame typed under a user source does not set the hop (forgery, frames on or off)', async () => {
    for (const frameMessages of [true, false]) {
      const w = makeWorld({ frameMessages, maxHops: 2 })
      const forged = buildFrame({ fromSessionId: 'session-x', fromTitle: 'x', mode: 'queue', hop: 1, body: 'b' }).text
      const me = session('session-me', 1, { live: true, events: [userEvent(1, forged)] })
      w.corpus.add(me).add(session('session-peer', 2, { live: true }))
      expect(await sessionsSend({ session_id: 'session-peer', message: 'hi' }, w.call(me), w.deps)).toContain('| hop 1')
    }
  })

  it('rate-limited: per pair per minute, and duplicates', async () => {
    const { w, me } = world({ maxSendsPerMinute: 2 })
    await sessionsSend({ session_id: 'session-peer', message: 'a' }, w.call(me), w.deps)
    expect(await sessionsSend({ session_id: 'session-peer', message: 'a' }, w.call(me), w.deps)).toMatch(/^refused: rate-limited \| the same message was already delivered to session-peer/)
    await sessionsSend({ session_id: 'session-peer', message: 'b' }, w.call(me), w.deps)
    expect(await sessionsSend({ session_id: 'session-peer', message: 'c' }, w.call(me), w.deps)).toMatch(/^refused: rate-limited \| 2 messages were already sent to session-peer in the last minute \(limit 2 per minute\)/)
    expect(w.controller.delivered.size).toBe(2)
  })

  it.each([
    [{ session_id: ' session-peer', message: 'x' }, 'argument "session_id" contains white space'],
    [{ session_id: 'session-peer', message: 'bad\u0000byte' }, 'argument "message" contains a control character (U+0000) at character 4'],
    [{ session_id: 'session-peer', message: 'lone \uD83D' }, 'argument "message" contains an unpaired surrogate (U+D83D) at character 6'],
    [{ session_id: 'session-peer', message: 'x', mode: 'later' }, 'argument "mode" got the string "later"'],
    [{ session_id: 'session-peer', message: 'x', urgent: true }, 'unknown argument "urgent"'],
    [{ session_id: 42, message: 'x' }, 'argument "session_id" got the number 42'],
  ])('invalid-arguments %j', async (args, problem) => {
    const { w, me } = world()
    const text = await sessionsSend(args, w.call(me), w.deps)
    expect(text).toMatch(/^refused: invalid-arguments \| /)
    expect(text).toContain(problem)
    expect(w.controller.log).toEqual([])
  })

  it('refuses a call with no caller', async () => {
    const { w } = world()
    expect(await sessionsSend({ session_id: 'session-peer', message: 'x' }, w.call(undefined), w.deps)).toMatch(/^refused: rejected \| the calling session could not be identified/)
  })

  it('visibility workspace: another workspace reads as not-found', async () => {
    const { w, me, peer } = world({ visibility: 'workspace' })
    peer.header = { ...peer.header, cwd: '/elsewhere' }
    expect(await sessionsSend({ session_id: 'session-peer', message: 'x' }, w.call(me), w.deps)).toMatch(/^refused: not-found \| no session with id "session-peer"/)
    expect(w.controller.log).toEqual([])
  })
})

describe('sessions_send: notify (docs/tools.md#notices)', () => {
  it('asks for one notice before admission, with the sender\'s limits, and says so', async () => {
    const { w, me } = world({ maxHops: 5, maxSendsPerMinute: 3, noticeTtlMs: 2 * 3_600_000 })
    const order: string[] = []
    const watch = w.controller.watchAnswer.bind(w.controller)
    w.controller.watchAnswer = request => {
      order.push(`watch (admitted ${w.controller.delivered.size})`)
      return watch(request)
    }
    const text = await sessionsSend({ session_id: 'session-peer', message: 'tell me when done', notify: true }, w.call(me, { callId: 'n1' }), w.deps)
    expect(order).toEqual(['watch (admitted 0)'])
    expect(text.split('\n').at(-1)).toBe('Notice: when the turn that takes this message ends, one notice comes to this session (expires in 2 h); no need to wait or poll.')
    const [requestId, request] = [...w.controller.watches][0]!
    expect(requestId).toMatch(/^cross-session:session-me:n1:/)
    expect(request).toEqual({ requestId, senderSessionId: 'session-me', targetId: 'session-peer', hop: 1, mayWake: true, wakeEndedRun: false, maxHops: 5, perMinute: 3, ttlMs: 7_200_000 })
    expect(w.controller.delivered.has(requestId)).toBe(true)
  })

  it('follows notifyByDefault when the argument is absent; notify: false asks for nothing', async () => {
    const { w, me } = world({ notifyByDefault: true })
    expect(await sessionsSend({ session_id: 'session-peer', message: 'a' }, w.call(me, { callId: 'd1' }), w.deps)).toContain('\nNotice: when the turn')
    expect(await sessionsSend({ session_id: 'session-peer', message: 'b', notify: false }, w.call(me, { callId: 'd2' }), w.deps)).not.toContain('Notice:')
    expect(w.controller.calls.watchAnswer).toBe(1)
  })

  it('refuses notify: true from a subagent (no process holds one, a notice would never reach it); notifyByDefault asks for none', async () => {
    const { w, child } = world()
    child.live = true
    const text = await sessionsSend({ session_id: 'session-peer', message: 'tell me when done', notify: true }, w.call(child), w.deps)
    expect(text).toBe('refused: invalid-arguments | argument "notify" is true, but this session is a subagent: no dsh process holds a subagent, so a notice could never reach it; call again without "notify" and check the target with sessions_read\n'
      + `${NOTHING} Fix that argument and call sessions_send again.`)
    expect(w.controller.calls).toEqual({})
    const byDefault = world({ notifyByDefault: true })
    byDefault.child.live = true
    expect(await sessionsSend({ session_id: 'session-peer', message: 'no notice' }, byDefault.w.call(byDefault.child), byDefault.w.deps)).not.toContain('Notice:')
    expect(byDefault.w.controller.calls.watchAnswer).toBeUndefined()
  })

  it('says when this process cannot watch (no home store)', async () => {
    const { w, me } = world()
    w.controller.canWatch = false
    expect(await sessionsSend({ session_id: 'session-peer', message: 'x', notify: true }, w.call(me), w.deps)).toContain('\nNotice: not available in this dsh process (no cross-session store); read its answer later with sessions_read.')
  })

  it('withdraws the watch when the send is refused after it', async () => {
    const { w, me } = world()
    w.controller.admitFailure = { reason: { kind: 'failure', failure: 'session/agent-busy' }, code: 'session/agent-busy' }
    expect(await sessionsSend({ session_id: 'session-peer', message: 'x', notify: true }, w.call(me), w.deps)).toMatch(/^refused:/)
    expect(w.controller.calls).toMatchObject({ watchAnswer: 1, unwatchAnswer: 1 })
    expect(w.controller.watches.size).toBe(0)
  })

  it.each([
    ['self-target', { session_id: 'session-me' }, {}],
    ['not-found', { session_id: 'session-nobody' }, {}],
    ['not-messageable', { session_id: 'child-1' }, {}],
    ['resume-disabled', { session_id: 'session-cold' }, { allowResume: false }],
    ['empty-body', { message: '   ' }, {}],
  ] as const)('refused %s (decided before the watch) asks for nothing', async (code, args, settings) => {
    const { w, me } = world(settings)
    expect(await sessionsSend({ session_id: 'session-peer', message: 'x', notify: true, ...args }, w.call(me), w.deps)).toMatch(new RegExp(`^refused: ${code} \\|`))
    expect(w.controller.calls.watchAnswer).toBeUndefined()
  })

  it('refused rate-limited (a duplicate body) asks for nothing more: the first send\'s watch stays, alone', async () => {
    const { w, me } = world()
    await sessionsSend({ session_id: 'session-peer', message: 'same', notify: true }, w.call(me, { callId: 'r1' }), w.deps)
    expect(await sessionsSend({ session_id: 'session-peer', message: 'same', notify: true }, w.call(me, { callId: 'r2' }), w.deps)).toMatch(/^refused: rate-limited \|/)
    expect(w.controller.calls.watchAnswer).toBe(1)
    expect([...w.controller.watches.keys()]).toEqual([expect.stringMatching(/^cross-session:session-me:r1:/)])
  })

  it('withdraws the watch when resolving fails, and when the call is cancelled while resolving', async () => {
    const { w, me } = world()
    w.controller.resolveFailure = { reason: { kind: 'failure', failure: 'gateway/internal' }, code: 'gateway/internal' }
    expect(await sessionsSend({ session_id: 'session-peer', message: 'x', notify: true }, w.call(me), w.deps)).toMatch(/^refused: rejected \|/)
    w.controller.resolveFailure = undefined
    const abort = new AbortController()
    w.controller.afterResolve = () => abort.abort()
    expect(await sessionsSend({ session_id: 'session-peer', message: 'y', notify: true }, w.call(me, { signal: abort.signal }), w.deps)).toMatch(/^cancelled \|/)
    expect(w.controller.calls).toMatchObject({ watchAnswer: 2, unwatchAnswer: 2 })
    expect(w.controller.watches.size).toBe(0)
  })

  it('a store that fails to withdraw the watch still returns the refusal itself, not an unexpected failure', async () => {
    const { w, me } = world()
    w.controller.admitFailure = { reason: { kind: 'failure', failure: 'session/agent-busy' }, code: 'session/agent-busy' }
    w.controller.unwatchAnswer = () => { throw new Error('database is locked') }
    const text = await sessionsSend({ session_id: 'session-peer', message: 'x', notify: true }, w.call(me), w.deps)
    expect(text).toMatch(/^refused: rejected \| .*agent-busy/)
    expect(text).not.toContain('unexpected')
    expect(w.logs.join('\n')).toContain('database is locked')
  })

  it('a message the holding process refused (the target was deleted) withdraws its watch and promises no notice', async () => {
    const { w, me } = world()
    const resolve = w.controller.resolve.bind(w.controller)
    w.controller.resolve = async (sessionId, options) => {
      const resolved = await resolve(sessionId, options)
      return resolved.ok ? { ok: true, value: { ...resolved.value, remote: { pid: 48213, mayWake: true } } } : resolved
    }
    // As the home store's mailbox wait reports a holder's refusal (src/model/outcomes.ts `MailboxStage`).
    const refusedStage: MailboxStage = { stage: 'refused', reason: 'target-gone' }
    Object.assign(w.controller, { waitRecorded: async () => refusedStage })
    const text = await sessionsSend({ session_id: 'session-peer', message: 'x', notify: true }, w.call(me), w.deps)
    expect(text).toContain('| refused by that process: that session no longer exists')
    expect(text).not.toContain('Notice:')
    expect(w.controller.calls).toMatchObject({ watchAnswer: 1, unwatchAnswer: 1 })
    expect(w.controller.watches.size).toBe(0)
  })

  it('refused before any backend call (bad notify) asks for nothing', async () => {
    const { w, me } = world()
    expect(await sessionsSend({ session_id: 'session-peer', message: 'x', notify: 'yes' }, w.call(me), w.deps)).toMatch(/^refused: invalid-arguments \| argument "notify" got the string "yes"; it accepts true or false/)
    expect(w.controller.calls.watchAnswer).toBeUndefined()
  })
})
