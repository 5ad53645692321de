/**
 * `src/plugin.ts` driven through the fake host built from the rc.8 services
 * (test/support/fake-host.ts): mounting, `enabled: false`, a missing
 * service, disposal, and the three tools through the real adapters
 * (`src/adapters/*`).
 *
 * No wall clock and no fixed sleep: waits are on log events of the fake
 * agent, and "returns without waiting out its bound" is a fake clock that
 * never reaches the bound (`settlesWithin`). How long these sends take is
 * measured by the bench (bench/cases.ts `pluginSendCases`).
 */
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { parseFrame } from '../../src/testing.js'
import { apply, name } from '../../src/plugin.js'
import { MOUNT_GRACE_MS } from '../../src/testing.js'
import { withController } from '../support/controller-host.js'
import { FakeHost, userMessageEvent, type LogEvent } from '../support/fake-host.js'

afterEach(() => {
  vi.useRealTimers()
})

function mounted(config: unknown = {}) {
  const host = new FakeHost()
  apply(host.context(), config)
  return host
}

describe('plugin entry', () => {
  it('is a Cordis plugin named dsh-cross-session that registers the three tools once', () => {
    const host = mounted()
    expect(name).toBe('dsh-cross-session')
    expect([...host.registered.keys()]).toEqual(['sessions_list', 'sessions_read', 'sessions_send'])
    expect(host.logs).toContainEqual({ level: 'info', message: 'registered sessions_list, sessions_read, sessions_send (wakes via ctx.agents, re-read per call)' })
    for (const definition of host.registered.values()) {
      // The registry renders the returned value to the model's one text block, and hands the value to clients.
      const value = { kind: 'cancelled', tool: definition.name, step: 'listing sessions', consequence: 'Nothing was listed.' }
      expect(definition.output.render({}, value)).toEqual([{ type: 'text', text: `cancelled | ${definition.name} was cancelled while listing sessions\nNothing was listed.` }])
      expect(definition.output.presentationMeta?.({}, value)).toEqual(value)
      expect((definition.parameters as { type: string }).type).toBe('object')
    }
  })

  it('with enabled: false registers no tool at all and logs that', () => {
    const host = mounted({ enabled: false })
    expect(host.registered.size).toBe(0)
    expect(host.logs).toContainEqual({ level: 'info', message: 'enabled: false; no tools registered' })
  })

  it('logs every config value it changed', () => {
    const host = mounted({ maxHops: 99, visibility: 'everyone' })
    expect(host.logs.filter(entry => entry.level === 'warn').map(entry => entry.message)).toEqual([
      'config: visibility: expected one of all | workspace, got "everyone"; using all',
      'config: maxHops: 99 is outside 1–32 or not an integer; using 32',
    ])
  })

  it('fails the mount with one message naming a missing service and its purpose', () => {
    vi.useFakeTimers()
    const host = new FakeHost({ omit: ['sessionQuery'] })
    apply(host.context(), {})
    expect(host.registered.size).toBe(0)
    vi.advanceTimersByTime(MOUNT_GRACE_MS)
    const warnings = host.logs.filter(entry => entry.level === 'warn')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.message).toBe('mount failed: required host service "sessionQuery" (reads the session corpus for sessions_list and sessions_read) is not available; no tool was registered. Mount this plugin in a dsh host or preset composition that provides it.')
  })

  it('names every missing service', () => {
    vi.useFakeTimers()
    const host = new FakeHost({ omit: ['sessionQuery', 'agents'] })
    apply(host.context(), {})
    vi.advanceTimersByTime(MOUNT_GRACE_MS)
    expect(host.logs.filter(entry => entry.level === 'warn').map(entry => entry.message)).toEqual([
      'mount failed: required host services "sessionQuery" (reads the session corpus for sessions_list and sessions_read), "agents" (identifies the calling session and delivers sessions_send messages) are not available; no tool was registered. Mount this plugin in a dsh host or preset composition that provides it.',
    ])
  })

  it('removes all three tools and clears its timer on disposal', () => {
    const host = mounted()
    host.dispose()
    expect(host.registered.size).toBe(0)
    vi.useFakeTimers()
    const pending = new FakeHost({ omit: ['agents'] })
    apply(pending.context(), {})
    pending.dispose()
    vi.advanceTimersByTime(MOUNT_GRACE_MS * 2)
    expect(pending.logs.filter(entry => entry.level === 'warn')).toEqual([])
  })
})

describe('the tools through the rc.8 adapters', () => {
  // Each test its own home store (under this file's DSH_HOME, test/support/unit-home.ts): a local send leaves a row per
  // message there (docs/architecture.md §8), which another test's fake sessions of the same ids must not be handed.
  const fileHome = process.env.DSH_HOME!
  beforeEach(() => {
    process.env.DSH_HOME = mkdtempSync(join(fileHome, 'test-'))
  })
  afterAll(() => {
    process.env.DSH_HOME = fileHome
  })

  function scene(config: unknown = {}) {
    const host = mounted(config)
    // Logs as rc.8 stores them: seqs from 0; the title is the log's own session/title event (seq 1).
    host.persist('session-old', 1000, { title: 'Old work', events: [userMessageEvent(0, 'u1', 'earlier question')] })
    host.persist('child-1', 2000, { header: { parentSession: 'session-old', origin: 'subagent' } })
    const me = host.goLive('session-me', 3000, [userMessageEvent(0, 'p', 'talk to old')], { title: 'My live work' })
    return { host, me }
  }

  /**
   * With fake timers on: advance the fake clock by `ms` (running what falls
   * due) and say whether `work` settled by then. A send that waited out a
   * bound longer than `ms` has not.
   */
  async function settlesWithin<T>(work: Promise<T>, ms: number): Promise<{ settled: boolean, value?: T }> {
    let outcome: { settled: boolean, value?: T } = { settled: false }
    void work.then(value => { outcome = { settled: true, value } })
    await vi.advanceTimersByTimeAsync(ms)
    return outcome
  }

  const eventAt = (events: readonly LogEvent[], seq: number) => events.find(event => event.seq === seq)

  it('sessions_list reads one listing and one title batch; a live session\'s title comes from its log', async () => {
    const { host, me } = scene()
    const text = await host.run('sessions_list', {}, me)
    expect(text).toContain('- session-old [cold, top-level] | cwd=/work/project\n  Old work')
    expect(text).toMatch(/- session-me \[live, top-level\] \| cwd=\/work\/project \| this session\n {2}My live work\n/)
    expect(text).toMatch(/\n2 of 2 considered sessions/)
    expect(host.calls).toEqual(['sessionQuery.listSessions', 'sessionQuery.readTitleSnapshots(2)'])
  })

  it('sessions_read reads the surface without waking', async () => {
    const { host, me } = scene()
    const text = await host.run('sessions_read', { session_id: 'session-old' }, me)
    expect(text).toContain('session session-old [cold, top-level]')
    expect(text).toContain('--- user (seq 0, user) ---\nearlier question')
    expect(host.calls.some(call => call.startsWith('agents.resume'))).toBe(false)
    expect(await host.run('sessions_read', { session_id: 'session-ghost' }, me)).toMatch(/^refused: not-found/)
  })

  it('sessions_send wakes a cold session with the default model and delivers a framed user message', async () => {
    const { host, me } = scene()
    const text = await host.run('sessions_send', { session_id: 'session-old', message: 'status?' }, me, 'call-7')
    // session-old's log is seqs 0 (user/message) and 1 (session/title); the rc.8 loop then appends, for one followup
    // to an idle agent: 2 the inbox insertion, 3 turn/start, 4 the claim, 5 step/start, 6 the message's own
    // user/message, 7 the reply, 8 step/end, 9 turn/end (dsh-agent-loop@0.1.0-rc.8 ReactLoopAgent.turn).
    expect(text).toMatch(/^accepted for session-old \| mode=queue \| chars=7 \| hop 1 \(woke a cold session\) \| recorded at seq 6 \| its turn ended \(completed\) at seq 9\n/)
    expect(host.calls).toContain('agents.resume(session-old, {"provider":"deepseek","model":"deepseek-v4-flash"})')
    const woken = host.live.get('session-old')!
    expect(woken.received).toHaveLength(1)
    const delivered = woken.received[0]
    expect(delivered?.via).toBe('followup')
    expect(delivered?.message).toMatchObject({ id: expect.stringMatching(/^cross-session:session-me:call-7:/), role: 'user', source: { kind: 'plugin', plugin: 'dsh-cross-session', form: 'relay', senderSessionId: 'session-me', hop: 1 } })
    expect(parseFrame(delivered?.message.content[0]?.text ?? '')?.body).toBe('status?')
    // The log agrees with the result: seq 6 is that message, seq 9 its turn's completed end.
    expect(eventAt(woken.session.events, 6)).toMatchObject({ type: 'user/message', data: { id: delivered?.message.id } })
    expect(eventAt(woken.session.events, 9)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'completed' } } })
    // Disposing the plugin disposes the session it woke.
    host.dispose()
    await woken.whenIdle()
    await vi.waitFor(() => expect(host.resumeDisposed).toEqual(['session-old']))
  })

  it('disposal cancels a send still waiting for its message to be recorded', async () => {
    const { host, me } = scene({ recordWaitMs: 30000 })
    const busy = host.goLive('session-busy', 2500)
    // A turn whose step never ends: a steer stays in the inbox (rc.8 claims next-step input at the next step boundary).
    const held = busy.prompt('a long job', { hold: true })!
    await held.reached
    const admitted = busy.nextEvent(event => event.type === 'agent/inbox/spliced' && event.data.target === 'next-step')
    vi.useFakeTimers()
    const pending = host.run('sessions_send', { session_id: 'session-busy', message: 'steer me', mode: 'steer' }, me)
    await admitted
    host.dispose()
    // Far short of the 30 s bound: only a cancelled wait has returned by then.
    const outcome = await settlesWithin(pending, 1000)
    expect(outcome.settled).toBe(true)
    expect(outcome.value).toMatch(/^accepted for session-busy \| mode=steer .*\| admitted; recording not confirmed \(wait cancelled\)/)
  })

  it('two senders waking the same cold session at once share one resume', async () => {
    const { host, me } = scene()
    const other = host.goLive('session-other', 3500)
    const [first, second] = await Promise.all([
      host.run('sessions_send', { session_id: 'session-old', message: 'from me' }, me),
      host.run('sessions_send', { session_id: 'session-old', message: 'from other' }, other),
    ])
    expect(host.calls.filter(call => call.startsWith('agents.resume'))).toHaveLength(1)
    expect(first).toMatch(/^accepted for session-old/)
    expect(second).toMatch(/^accepted for session-old/)
    const woken = host.live.get('session-old')!
    expect(woken.received).toHaveLength(2)
    // Each is its own turn in the one log: the second was queued behind the first's.
    const turns = woken.session.events.filter(event => event.type === 'turn/start').map(event => event.data.turn)
    expect(turns).toEqual([1, 2])
  })

  it('with allowResume: false never calls resume, and the log of the cold target is untouched', async () => {
    const { host, me } = scene({ allowResume: false })
    const before = JSON.stringify(host.persisted.get('session-old'))
    const text = await host.run('sessions_send', { session_id: 'session-old', message: 'status?' }, me)
    expect(text).toMatch(/^refused: resume-disabled/)
    expect(host.calls.some(call => call.startsWith('agents.resume'))).toBe(false)
    expect(JSON.stringify(host.persisted.get('session-old'))).toBe(before)
  })

  it('steer goes to a live agent\'s running turn', async () => {
    const { host, me } = scene()
    const busy = host.goLive('session-busy', 2500)
    const held = busy.prompt('a long job', { hold: true })!
    await held.reached
    // The running step ends once the steer is in the inbox; the next step of the same turn claims it.
    void busy.nextEvent(event => event.type === 'agent/inbox/spliced' && event.data.target === 'next-step').then(() => held.release())
    const text = await host.run('sessions_send', { session_id: 'session-busy', message: 'change of plan', mode: 'steer' }, me)
    // 0 the prompt's insertion, 1 turn/start, 2 claim, 3 step/start, 4 the prompt, then 5 the steer's insertion;
    // released: 6 reply, 7 step/end, 8 the claim of the steer, 9 step/start, 10 the steer's user/message.
    expect(text).toMatch(/^accepted for session-busy \| mode=steer \| chars=14 \| hop 1 \| recorded at seq 10\n/)
    expect(text).toContain('inserted into the turn that session is running now')
    expect(busy.received[0]?.via).toBe('steer')
    await busy.whenIdle()
    const events = busy.session.events
    expect(events.filter(event => event.type === 'turn/start')).toHaveLength(1)
    expect(eventAt(events, 10)).toMatchObject({ type: 'user/message', data: { id: busy.received[0]?.message.id } })
  })

  it('queue to a running agent returns at the inbox record and says it is not in the conversation yet', async () => {
    const { host, me } = scene()
    const busy = host.goLive('session-busy', 2500)
    const held = busy.prompt('a long job', { hold: true })!
    await held.reached
    vi.useFakeTimers()
    // 0–4: the prompt's insertion, turn/start, claim, step/start, the prompt; the queued message's insertion is seq 5.
    const outcome = await settlesWithin(host.run('sessions_send', { session_id: 'session-busy', message: 'when you are done' }, me), 0)
    expect(outcome.settled).toBe(true)
    const text = outcome.value ?? ''
    expect(text).toMatch(/^accepted for session-busy \| mode=queue \| chars=17 \| hop 1 \| in its inbox at seq 5, not yet in its conversation\n/)
    expect(text).toContain('becomes its next turn after the current one ends')
    expect(text).toContain('It is not durable until that session\'s next turn starts')
    vi.useRealTimers()
    held.release()
    await busy.whenIdle()
    // It did become the next turn.
    const turnOf = busy.session.events.filter(event => event.type === 'turn/start' || (event.type === 'user/message' && event.data.id === busy.received[0]?.message.id))
    expect(turnOf.map(event => event.type === 'turn/start' ? event.data.turn : 'message')).toEqual([1, 2, 'message'])
  })

  it('refuses a subagent naming its owner, and falls back to the current initiator as caller', async () => {
    const { host, me } = scene()
    host.initiator = me
    const text = await host.run('sessions_send', { session_id: 'child-1', message: 'x' }, undefined)
    expect(text).toContain('refused: not-messageable | child-1 is a subagent session owned by session-old')
  })

  it('refuses a call with no caller at all (rc.8 currentInitiator is undefined outside a turn)', async () => {
    const { host } = scene()
    expect(await host.run('sessions_list', {}, undefined)).toMatch(/^refused: rejected \| the calling session could not be identified/)
  })

  it('wakes through ctx.sessionController when the host has one (later harness lines)', async () => {
    const host = new FakeHost()
    const controller = withController(host)
    apply(host.context(), {})
    host.persist('session-old', 1000)
    const me = host.goLive('session-me', 3000)
    const text = await host.run('sessions_send', { session_id: 'session-old', message: 'hi' }, me, 'c9')
    // An empty log: 0 insertion, 1 turn/start, 2 claim, 3 step/start, 4 the message.
    expect(text).toMatch(/^accepted for session-old .*\(woke a cold session\) \| recorded at seq 4/)
    expect(controller.calls.resolveAgent).toBe(1)
    expect(host.logs).toContainEqual({ level: 'info', message: 'registered sessions_list, sessions_read, sessions_send (wakes via ctx.sessionController, re-read per call)' })
    expect(host.calls).not.toContain('sessionQuery.readTitleSnapshot')
  })
})
