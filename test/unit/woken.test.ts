/**
 * Concurrent wakes of one cold session, through the plugin as the harness
 * runs it (the fake host built from rc.8, test/support/fake-host.ts), and
 * the idle release bounds of woken sessions (docs/architecture.md §5: one
 * shared resume per id, the idle release, at most 8 resident).
 */
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { IDLE_RELEASE_MS, MAX_RESIDENT_WOKEN, WokenSessions, type HostAgentHandle } from '../../src/testing.js'
import { apply } from '../../src/plugin.js'
import { agentHandle, fakeAgent, FakeAgent, FakeHost } from '../support/fake-host.js'

// Each test its own home store (under this file's DSH_HOME, test/support/unit-home.ts): a local send leaves a row per
// message there (docs/architecture.md §8), which another test's fake sessions of the same ids must not be handed.
const fileHome = process.env.DSH_HOME!
beforeEach(() => {
  process.env.DSH_HOME = mkdtempSync(join(fileHome, 'test-'))
})

interface Deferred<T> { promise: Promise<T>, resolve(value: T): void, reject(error: unknown): void }
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** A host whose resume of `session-old` (the fake's rc.8 resume) waits for the test to let it go on. */
function slowWakeHost(onFirstLook?: () => void) {
  const host = new FakeHost()
  apply(host.context(), { allowResume: true })
  host.persist('session-old', 1000)
  const a = host.goLive('session-a', 2000)
  const b = host.goLive('session-b', 2001)
  const gate = deferred<void>()
  const agents = host.services.agents as { resume: (o: { resumeSessionId: string, signal?: AbortSignal }) => Promise<HostAgentHandle> }
  const resume = agents.resume.bind(agents)
  let resumes = 0
  agents.resume = async options => {
    resumes++
    await gate.promise
    // rc.8's resume rejects once its signal fired: the shared resume is never given a caller's signal (case 1).
    const handle = await resume(options)
    if (onFirstLook !== undefined) {
      // The first caller to look at the resumed agent is A: cancel it right then.
      const agent = handle.agent as FakeAgent
      const status = Object.getOwnPropertyDescriptor(FakeAgent.prototype, 'status')!.get!
      let looked = false
      Object.defineProperty(agent, 'status', {
        get: () => {
          if (!looked) {
            looked = true
            onFirstLook()
          }
          return status.call(agent)
        },
      })
    }
    return handle
  }
  // The model's text, as the registry renders the returned value (output.render).
  const send = async (from: FakeAgent, message: string, signal: AbortSignal) => {
    const definition = host.registered.get('sessions_send')!
    const args = { session_id: 'session-old', message }
    return definition.output.render(args, await definition.execute(args, { agent: from, signal, callId: `c-${message}` }))[0]!.text
  }
  return { host, a, b, gate, send, resumes: () => resumes }
}

describe('concurrent wakes of one cold session', () => {
  it('case 1: a sender cancelled during the shared resume leaves the session to the other', async () => {
    const { host, a, b, gate, send, resumes } = slowWakeHost()
    const cancelA = new AbortController()
    const sentA = send(a, 'from A', cancelA.signal)
    const sentB = send(b, 'from B', new AbortController().signal)
    await new Promise(resolve => setTimeout(resolve, 10))
    cancelA.abort(new Error('A was cancelled'))
    gate.resolve()
    const [textA, textB] = await Promise.all([sentA, sentB])
    expect(textA).toMatch(/^cancelled \| sessions_send was cancelled while resolving the target session/)
    expect(textB).toMatch(/^accepted for session-old .*\(woke a cold session\)/)
    expect(textB).not.toContain('A was cancelled')
    expect(resumes()).toBe(1)
    expect(host.live.get('session-old')?.received.map(r => r.message.content[0]?.text)).toEqual([expect.stringContaining('from B')])
    expect(host.resumeDisposed).toEqual([])
  })

  it('case 2: a sender cancelled right after the resume does not dispose the session another is delivering to', async () => {
    const cancelA = new AbortController()
    const { host, a, b, gate, send } = slowWakeHost(() => cancelA.abort(new Error('A was cancelled')))
    const sentA = send(a, 'from A', cancelA.signal)
    const sentB = send(b, 'from B', new AbortController().signal)
    await new Promise(resolve => setTimeout(resolve, 10))
    gate.resolve()
    const [textA, textB] = await Promise.all([sentA, sentB])
    expect(textB).toMatch(/^accepted for session-old/)
    expect(textA).toMatch(/^cancelled \| sessions_send was cancelled while (resolving|admitting)/)
    expect(textA).toContain('left live for another send that is delivering to it')
    expect(host.resumeDisposed).toEqual([])
    expect(host.live.has('session-old')).toBe(true)
  })

  it('after a failed resume, a session another party resumed meanwhile is used as live (rc.8 "already registered")', async () => {
    const host = new FakeHost()
    apply(host.context(), { allowResume: true })
    host.persist('session-old', 1000)
    const me = host.goLive('session-me', 2000)
    const agents = host.services.agents as { resume: (o: { resumeSessionId: string }) => Promise<HostAgentHandle> }
    const resume = agents.resume.bind(agents)
    agents.resume = async options => {
      // The web host resumed the same id at the same moment: its resume registers the agent first, so
      // this one is refused by the registry (dsh-agent@0.1.0-rc.8 AgentRegistry.enter).
      await resume({ resumeSessionId: 'session-old' })
      return await resume(options)
    }
    const text = await host.run('sessions_send', { session_id: 'session-old', message: 'hi' }, me)
    expect(text).toMatch(/^accepted for session-old \| mode=queue \| chars=2 \| hop 1 \| recorded at seq/)
    expect(text).not.toContain('woke a cold session')
  })
})

/**
 * A woken session's handle as rc.8's loop returns it: a fake agent over an
 * empty log, whose `dispose` cancels the agent and waits until it is idle
 * (test/support/fake-host.ts `agentHandle`, from dsh-agent-loop@0.1.0-rc.8
 * `AgentLoop.prepare`).
 */
function handle(id: string) {
  return agentHandle(fakeAgent({ version: 0, id, createdAt: 1, cwd: '/work/project' }))
}

describe('woken sessions do not pile up', () => {
  const never = new AbortController().signal
  const noneLive = () => undefined

  it(`releases a woken session after its turn ended and it sat idle for ${IDLE_RELEASE_MS} ms; never one running a turn`, async () => {
    let now = 0
    const woken = new WokenSessions(never, () => now)
    const h = handle('s1')
    // The turn it was woken for, held open: the agent is running.
    const turn = h.agent.prompt('the message it was woken for', { hold: true })!
    await woken.wake('s1', async () => h, noneLive, never)
    woken.delivered('s1')
    now += IDLE_RELEASE_MS * 2
    expect(h.agent.status).toBe('running')
    expect(await woken.sweep()).toEqual([]) // still running its turn
    turn.release()
    await h.agent.whenIdle()
    now += IDLE_RELEASE_MS - 1
    expect(await woken.sweep()).toEqual([])
    now += 1
    expect(await woken.sweep()).toEqual(['s1'])
    expect(h.disposed).toBe(true)
    expect(woken.size).toBe(0)
    await woken.releaseAll(() => undefined)
  })

  it(`keeps at most ${MAX_RESIDENT_WOKEN} idle woken sessions resident, releasing the least recently active`, async () => {
    let now = 0
    const woken = new WokenSessions(never, () => now)
    const handles = []
    for (let index = 0; index < MAX_RESIDENT_WOKEN + 3; index++) {
      now += 1
      const h = handle(`s${index}`)
      handles.push(h)
      await woken.wake(`s${index}`, async () => h, noneLive, never)
      woken.delivered(`s${index}`)
    }
    expect(await woken.sweep()).toEqual(['s0', 's1', 's2'])
    expect(woken.size).toBe(MAX_RESIDENT_WOKEN)
    await woken.releaseAll(() => undefined)
    expect(handles.every(h => h.disposed)).toBe(true)
  })

  it('a plugin disposal (a reload) lets a woken session finish the turn it runs before putting it back to sleep', async () => {
    const woken = new WokenSessions(never)
    const h = handle('s1')
    let running = true
    Object.defineProperty(h.agent, 'status', { get: () => (running ? 'running' : 'idle') })
    await woken.wake('s1', async () => h, noneLive, never)
    woken.delivered('s1')
    const released = woken.releaseAll(() => undefined)
    // Still answering the peer message it was woken for: not cut off.
    await new Promise(resolve => setImmediate(resolve))
    expect(h.disposed).toBe(false)
    running = false
    await released
    expect(h.disposed).toBe(true)
  })

  it('a session woken for a call that gave up before anyone claimed it goes back to sleep', async () => {
    const woken = new WokenSessions(never)
    const gate = deferred<void>()
    const h = handle('s1')
    const cancel = new AbortController()
    const waiting = woken.wake('s1', async () => {
      await gate.promise
      return h
    }, noneLive, cancel.signal)
    cancel.abort(new Error('gave up'))
    await expect(waiting).rejects.toThrow('gave up')
    gate.resolve()
    await vi.waitFor(() => expect(h.disposed).toBe(true))
    expect(woken.size).toBe(0)
  })
})
