/**
 * Nothing grows with idle sessions: a send (waking a cold peer, or to a live
 * one) and a list make the same number of `ctx.agents` lookups whether this
 * process holds 1 or 1,001 idle live sessions (docs/performance.md, "Registry
 * calls"), on a host that emits `session/event` (rc.8) and on one that does not.
 *
 * Driven through `apply` on the fake host built from rc.8's services
 * (test/support/fake-host.ts), and through the home runtime's tick (which
 * runs on every store commit and every 2 s, so during a send too); the
 * lookups are counted at `agents.get`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { apply } from '../../src/plugin.js'
import { HomeRuntime, openHomeStore, storePaths, StoreWatch, type HostAgents } from '../../src/testing.js'
import { FakeHost, userMessageEvent } from '../support/fake-host.js'
import { withController } from '../support/controller-host.js'

interface Counted {
  host: FakeHost
  gets: () => number
  me: ReturnType<FakeHost['goLive']>
}

/** A mounted host with `idle` idle live top-level sessions beside the caller, and `agents.get` counted. */
function scene(idle: number, sessionEvents: boolean): Counted {
  const host = new FakeHost({ sessionEvents })
  const agents = host.services.agents as { get(id: string): unknown }
  const get = agents.get.bind(agents)
  let gets = 0
  agents.get = (id: string) => {
    gets += 1
    return get(id)
  }
  host.persist('session-cold', 1000, { title: 'Cold work', events: [userMessageEvent(0, 'u1', 'earlier question')] })
  for (let index = 0; index < idle; index++) host.goLive(`session-idle-${index}`, 2000 + index, [userMessageEvent(0, `i${index}`, 'idle')], { title: `Idle ${index}` })
  const me = host.goLive('session-me', 900_000, [userMessageEvent(0, 'p', 'talk to peers')], { title: 'Me' })
  // Mounted after they went live: the home runtime's first reconcile holds every one of them.
  apply(host.context(), {})
  return { host, gets: () => gets, me }
}

/** `agents.get` calls made by `work`. */
async function counted(scene: Counted, work: () => Promise<string>): Promise<{ gets: number, text: string }> {
  const before = scene.gets()
  const text = await work()
  return { gets: scene.gets() - before, text }
}

describe.each([true, false])('registry lookups with session/event %s', { timeout: 60_000 }, sessionEvents => {
  it('a send that wakes a cold session asks the registry as often with 1,001 idle live sessions as with 1', async () => {
    const one = scene(1, sessionEvents)
    const many = scene(1001, sessionEvents)
    // A call id per scene: they share this file's home store, where a message keeps its request id (a retry is not sent twice).
    const a = await counted(one, () => one.host.run('sessions_send', { session_id: 'session-cold', message: 'status?' }, one.me, `call-1a-${sessionEvents}`))
    const b = await counted(many, () => many.host.run('sessions_send', { session_id: 'session-cold', message: 'status?' }, many.me, `call-1b-${sessionEvents}`))
    expect(a.text).toMatch(/^accepted for session-cold .*woke a cold session/)
    expect(b.text).toMatch(/^accepted for session-cold .*woke a cold session/)
    expect(b.gets).toBeLessThanOrEqual(Math.ceil(a.gets * 1.1))
    one.host.dispose()
    many.host.dispose()
  })

  it('a send to a live peer asks the registry as often with 1,001 idle live sessions as with 1', async () => {
    const one = scene(1, sessionEvents)
    const many = scene(1001, sessionEvents)
    const a = await counted(one, () => one.host.run('sessions_send', { session_id: 'session-idle-0', message: 'hello' }, one.me, `call-2a-${sessionEvents}`))
    const b = await counted(many, () => many.host.run('sessions_send', { session_id: 'session-idle-0', message: 'hello' }, many.me, `call-2b-${sessionEvents}`))
    expect(a.text).toMatch(/^accepted for session-idle-0 /)
    expect(b.text).toMatch(/^accepted for session-idle-0 /)
    expect(b.gets).toBeLessThanOrEqual(Math.ceil(a.gets * 1.1))
    one.host.dispose()
    many.host.dispose()
  })

  it('a list asks the registry as often with 1,001 idle live sessions as with 1', async () => {
    const one = scene(1, sessionEvents)
    const many = scene(1001, sessionEvents)
    for (const args of [{}, { query: 'idle' }, { live_only: true }]) {
      const a = await counted(one, () => one.host.run('sessions_list', args, one.me))
      const b = await counted(many, () => many.host.run('sessions_list', args, many.me))
      expect(a.text).toContain('session-idle-0')
      expect(b.gets).toBeLessThanOrEqual(Math.ceil(a.gets * 1.1))
    }
    one.host.dispose()
    many.host.dispose()
  })
})

describe.each([true, false])('on a controller-line host with session/event %s', { timeout: 60_000 }, sessionEvents => {
  // docs/performance.md "Budgets": at most 10 `agents.get` per accepted send, the controller's own lookups
  // (`ctx.sessionController`, test/support/fake-controller.ts) and the woken session's answer wait included.
  it('a send that wakes a cold session, and one to a live peer, ask the registry at most 10 times each', async () => {
    const host = new FakeHost({ sessionEvents })
    withController(host)
    const agents = host.services.agents as { get(id: string): unknown }
    const get = agents.get.bind(agents)
    let gets = 0
    agents.get = (id: string) => {
      gets += 1
      return get(id)
    }
    apply(host.context(), { allowResume: true })
    const me = host.goLive('session-me', 1)
    host.goLive('session-live', 2)
    for (const id of ['session-cold-0', 'session-cold-1']) host.persist(id, 1000)
    const perSend: number[] = []
    for (const [target, shape] of [['session-cold-0', /woke a cold session/], ['session-cold-1', /woke a cold session/], ['session-live', /recorded at seq/]] as const) {
      const before = gets
      const text = await host.run('sessions_send', { session_id: target, message: `note for ${target}` }, me)
      expect(text).toMatch(new RegExp(`^accepted for ${target} `))
      expect(text).toMatch(shape)
      perSend.push(gets - before)
    }
    expect(Math.max(...perSend)).toBeLessThanOrEqual(10)
    host.dispose()
  })
})

describe('the home runtime\'s tick', () => {
  /** `agents.get` calls of three ticks of a started runtime holding `idle` idle sessions. */
  function ticksOf(idle: number): number {
    const home = mkdtempSync(join(tmpdir(), 'xs-registry-'))
    const host = new FakeHost()
    for (let index = 0; index < idle; index++) host.goLive(`session-idle-${index}`, 2000 + index, [userMessageEvent(0, `i${index}`, 'idle')])
    const agents = host.services.agents as HostAgents
    let gets = 0
    const counted: HostAgents = { ...agents, get: id => { gets += 1; return agents.get(id) }, list: () => agents.list!(), resume: options => agents.resume(options) }
    const store = openHomeStore(home, { pid: process.pid, start: 1 }, () => true)
    const watch = new StoreWatch(store, storePaths(home).dir)
    const runtime = new HomeRuntime(store, watch, { agents: counted, log: () => undefined, longLived: () => false })
    try {
      runtime.start()
      expect(runtime.holds('session-idle-0')).toBe(true)
      const before = gets
      for (let tick = 0; tick < 3; tick++) runtime.tick()
      return gets - before
    } finally {
      runtime.stop()
      watch.stop()
      rmSync(home, { recursive: true, force: true })
    }
  }

  it('asks the registry for no session by id: one listing serves every held session', () => {
    expect(ticksOf(1)).toBe(0)
    expect(ticksOf(1001)).toBe(0)
  }, 60_000) // 1,001 sessions held in a real store: seconds on a loaded 2-core machine
})
