/**
 * The orchestration around the home store's transitions, run through the
 * shipped modules (no copy): the guard's wake (`home/guard.ts`
 * `guardController`) when another process takes the session between its
 * look and its take; the holder's notices (`home/holding.ts`, through
 * `HomeRuntime`), posted only once `sessions.flush` has put the turn on
 * disk; the browser half's Refuse (`home/channel.ts`), which delivers
 * nothing; and a message admitted into a session live in the sending process
 * (`home/local-delivery.ts`): one store row, recorded once on disk, delivered
 * once after a SIGKILL, in order per sender and target. Each process is a real `SqliteHomeStore` connection on one
 * temporary home, with an injected liveness probe (the pids are not real
 * processes); the session is an rc.8-shaped agent
 * (test/support/rc8-sim.ts `rc8Session`).
 *
 * @module test/unit/home-orchestration
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { answerChannel, guardController, HomeRuntime, MAX_WAITING_PER_TARGET, noticeIdOf, openHomeStore, storePaths, StoreWatch, type ControllerPort, type HomeStore, type HostAgent, type NewApproval, type ProcessTag } from '../../src/testing.js'
import { lockStore } from '../support/store-lock.js'
import { rc8Session, SimAgent, type SessionLog } from '../support/rc8-sim.js'

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

function freshHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'xs-orchestration-'))
  cleanups.push(() => rmSync(home, { recursive: true, force: true }))
  return home
}

/** One simulated process on `home`: its store connection, its registry, and a runtime (not started: no tick runs behind the test's back). */
function processOn(home: string, pid: number, wrap: (store: HomeStore) => HomeStore = store => store) {
  const opened = openHomeStore(home, { pid, start: 1 }, () => true)
  const store = wrap(opened)
  const watch = new StoreWatch(opened, storePaths(home).dir)
  const live = new Map<string, HostAgent>()
  const flushes: Array<PromiseWithResolvers<void> & { readonly agent: HostAgent }> = []
  const logged: string[] = []
  const runtime = new HomeRuntime(store, watch, {
    agents: { get: id => live.get(id), list: () => [...live.values()], resume: () => Promise.reject(new Error('no resume here')) },
    log: line => logged.push(line),
    longLived: () => false,
    flush: agent => {
      const flush = Object.assign(Promise.withResolvers<void>(), { agent })
      flushes.push(flush)
      return flush.promise
    },
  })
  cleanups.push(() => {
    watch.stop()
    opened.close()
  })
  return { store: opened, runtime, live, flushes, logged }
}

/** Let the awaited continuations in the runtime run. */
const settled = () => new Promise(resolve => setImmediate(resolve))
const signal = new AbortController().signal

describe('the guard: a wake lost to another process between the look and the take', () => {
  /** An inner port that wakes every session it is asked for (and says so). */
  function wakingInner(woke: string[]): ControllerPort {
    return {
      resolve: async sessionId => {
        woke.push(sessionId)
        return { ok: true, value: { sessionId, woke: true, running: false } }
      },
      admit: async () => ({ ok: false, code: 'internal', reason: 'not used' }) as never,
      releaseWoken: async () => 'released' as never,
      waitRecorded: async () => undefined,
    }
  }

  it('does not wake the session here: the other process\'s hold wins, and the message goes to it through the store', async () => {
    const home = freshHome()
    const first = processOn(home, 701)
    // The second process's store: the first process commits its take of `s` just before the second's own
    // (both looked at the holder row first and saw nobody; the store's transaction decides).
    const second = processOn(home, 702, store => new Proxy(store, {
      get(target, name) {
        const value = Reflect.get(target, name) as unknown
        if (name === 'acquire') {
          return (sessionId: string) => {
            expect(first.store.acquire(sessionId).ok).toBe(true)
            return target.acquire(sessionId)
          }
        }
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
      },
    }))
    const woke: string[] = []
    const guarded = guardController(wakingInner(woke), second.runtime, { isLocal: () => false, agentOf: () => undefined, listEvents: async () => [] })

    const resolved = await guarded.resolve('s', { mayWake: true, signal })

    expect(resolved).toEqual({ ok: true, value: { sessionId: 's', woke: false, running: false, remote: { pid: 701, mayWake: true } } })
    expect(woke).toEqual([])
    expect(second.store.view('s').holder?.tag.pid).toBe(701)
  })

  it('wakes it here when the take succeeds, and holds it in the store for this process', async () => {
    const home = freshHome()
    const only = processOn(home, 703)
    const woke: string[] = []
    const guarded = guardController(wakingInner(woke), only.runtime, { isLocal: () => false, agentOf: () => undefined, listEvents: async () => [] })
    const resolved = await guarded.resolve('s', { mayWake: true, signal })
    expect(resolved).toEqual({ ok: true, value: { sessionId: 's', woke: true, running: false } })
    expect(woke).toEqual(['s'])
  })
})

describe('the holder posts a notice only once the watched turn is on disk', () => {
  const watchOn = (store: HomeStore, messageId: string) => store.watch({ messageId, sender: 'session-from', target: 's', hop: 1, mayWake: true, maxHops: 5, perMinute: 10, expiresAt: Date.now() + 60_000 })
  const post = (store: HomeStore, messageId: string) => store.post({ messageId, target: 's', sender: 'session-from', hop: 1, mode: 'queue', text: messageId, mayWake: true })

  it('lookAtWatches (a process about to end): the flush resolves first, then the notice is posted', async () => {
    const { store, runtime, live, flushes, logged } = processOn(freshHome(), 711)
    const { resume, broken } = rc8Session('s')
    const agent = resume()
    live.set('s', agent)
    runtime.track(agent)
    await settled()
    watchOn(store, 'm')
    post(store, 'm')
    await runtime.drain('s')
    while (agent.step()) { /* the turn takes `m` and ends; no session/event reaches the runtime */ }
    expect(flushes).toHaveLength(0)

    const looked = runtime.lookAtWatches('s')
    await settled()
    expect(flushes.map(flush => flush.agent)).toEqual([agent])
    expect(store.message(noticeIdOf('m'))).toBeUndefined() // the sender could read a turn end not yet on disk
    expect(store.watchesOf('s').map(watch => watch.messageId)).toEqual(['m'])

    flushes[0]!.resolve()
    await looked
    expect(store.message(noticeIdOf('m'))).toMatchObject({ target: 'session-from', state: 'pending' })
    expect(store.watchesOf('s')).toEqual([])
    expect(logged).toEqual([])
    expect(broken).toEqual([])
  })

  it('a holder that takes the session over (persistFound\'s first look): the flush resolves first, then the notice is posted', async () => {
    const home = freshHome()
    const { log, resume } = rc8Session('s')
    // Under an earlier holder, `m` was delivered and its turn ended; that holder went before it looked.
    const earlier = resume()
    earlier.followup({ id: 'm', role: 'user', content: [{ type: 'text', text: 'm' }], source: { kind: 'plugin' } })
    while (earlier.step()) { /* the turn takes `m` and ends */ }
    log.persist()
    const { store, runtime, live, flushes, logged } = processOn(home, 712)
    watchOn(store, 'm')

    const agent = resume()
    live.set('s', agent)
    runtime.track(agent)
    await settled()
    expect(flushes.map(flush => flush.agent)).toEqual([agent])
    expect(store.message(noticeIdOf('m'))).toBeUndefined()

    flushes[0]!.resolve()
    await settled()
    await settled()
    expect(store.message(noticeIdOf('m'))).toMatchObject({ target: 'session-from', state: 'pending' })
    expect(logged).toEqual([])
  })
})

describe('the channel: a Refuse click delivers nothing', () => {
  const approval = (id: string): NewApproval => ({
    messageId: id, target: 'session-t', sender: 'session-s', senderTitle: 'S', hop: 2, mode: 'queue', text: `framed ${id}`, body: `body ${id}`,
    mayWake: true, notify: false, expiresAt: Date.now() + 60_000,
  })

  it('refuses the held message: no message row, nothing waiting for the target, the decision told once, no delivery tick', async () => {
    const { store } = processOn(freshHome(), 721)
    const ticks: number[] = []
    const decided: string[] = []
    const host = {
      runtime: { store, tick: () => { ticks.push(1) } } as unknown as HomeRuntime,
      sessions: { readTitles: async () => new Map() } as never,
      inbound: () => 'hold' as const,
      decided: (a: { messageId: string, state: string }) => { decided.push(`${a.messageId} ${a.state}`) },
      log: () => undefined,
      home: () => ({ path: '/home', sandboxRoot: undefined, kind: undefined }),
    }
    store.holdForApproval(approval('m1'))
    expect(await answerChannel(host, 'approvals.decide', { messageId: 'm1', decision: 'refuse' }, signal)).toEqual({ ok: true, value: { state: 'refused' } })
    expect(store.approval('m1')?.state).toBe('refused')
    expect(store.message('m1')).toBeUndefined()
    expect(store.waiting().has('session-t')).toBe(false)
    expect(ticks).toEqual([])
    expect(decided).toEqual(['m1 refused'])
    // A later Deliver click on it is stale: still nothing delivered.
    expect(await answerChannel(host, 'approvals.decide', { messageId: 'm1', decision: 'deliver' }, signal)).toEqual({ ok: true, value: { state: 'refused', reason: 'stale' } })
    expect(store.message('m1')).toBeUndefined()
  })
})

describe('order per sender and target across a local admission and a crash', () => {
  /** A process whose inner port resumes `log` from what is on disk and admits into that agent (rc.8 `followup`), as the adapter does. */
  function waker(home: string, pid: number, log: SessionLog, dead: Set<number>, beforeAdmit: () => void = () => undefined) {
    const alive = (tag: ProcessTag) => !dead.has(tag.pid)
    const store = openHomeStore(home, { pid, start: 1 }, alive)
    const watch = new StoreWatch(store, storePaths(home).dir)
    const live = new Map<string, SimAgent>()
    const logged: string[] = []
    const runtime = new HomeRuntime(store, watch, {
      agents: { get: id => live.get(id), list: () => [...live.values()], resume: () => Promise.reject(new Error('through the inner port')) },
      log: line => logged.push(line),
      longLived: () => false,
      flush: async () => { log.persist() },
    })
    cleanups.push(() => {
      watch.stop()
      store.close()
    })
    const inner: ControllerPort = {
      resolve: async sessionId => {
        if (live.has(sessionId)) return { ok: true, value: { sessionId, woke: false, running: false } }
        log.lose() // what the last writer had not written is gone; the resume reads the disk
        const agent = new SimAgent(log, () => undefined, () => undefined)
        live.set(sessionId, agent)
        runtime.track(agent)
        return { ok: true, value: { sessionId, woke: true, running: false } }
      },
      admit: async (target, prompt) => {
        beforeAdmit()
        // As adapters/controller.ts: a target gone since the resolve is refused, never woken here.
        const agent = live.get(target.sessionId)
        if (agent === undefined) return { ok: false, reason: { kind: 'went-cold' } }
        agent.followup({ id: prompt.requestId, role: 'user', content: [{ type: 'text', text: prompt.text }], source: { kind: 'plugin' } })
        return { ok: true, value: { mode: prompt.mode, running: true } }
      },
      releaseWoken: async () => 'put-back-to-sleep',
      waitRecorded: async () => undefined,
    }
    const guard = guardController(inner, runtime, { isLocal: id => live.has(id), agentOf: id => live.get(id), listEvents: async () => [], log: line => logged.push(line) })
    return { store, guard, live, runtime, logged }
  }
  const prompt = (requestId: string) => ({ requestId, mode: 'queue' as const, text: requestId, provenance: { senderSessionId: 'session-from', hop: 1 }, signal })

  // The later message, admitted straight into the live target, has a store row claimed by this process
  // (home/local-delivery.ts), so the next holder, which orders re-admissions by the stored posting order
  // (home/owner-delivery.ts admitClaimed), puts the earlier one in front of it.
  it('a stored message a dead turn took is delivered before a later one from the same sender admitted locally', async () => {
    const home = freshHome()
    const dead = new Set<number>()
    const { log, broken } = rc8Session('s')
    const first = waker(home, 731, log, dead)
    // m0 went through the store (its target was held elsewhere, or handed to a host that died).
    first.store.post({ messageId: 'm0', target: 's', sender: 'session-from', hop: 1, mode: 'queue', text: 'm0', mayWake: true })
    // The same sender, now in this process, sends m1: the guard wakes `s` here, delivers m0 first, then admits m1 locally.
    const resolved = await first.guard.resolve('s', { mayWake: true, signal })
    if (!resolved.ok) throw new Error('expected a wake')
    expect((await first.guard.admit(resolved.value, prompt('m1'))).ok).toBe(true)
    const agent = first.live.get('s')!
    expect(agent.inbox.nextTurn.map(message => message.id)).toEqual(['m0', 'm1'])
    agent.step() // turn 1 takes m0 (rc.8 `Inbox.claim`)…
    log.persist() // …and a background write puts that on disk; then the process is SIGKILLed before the user/message
    dead.add(731)

    const next = waker(home, 732, log, dead)
    const again = await next.guard.resolve('s', { mayWake: true, signal })
    expect(again.ok && again.value.woke).toBe(true)
    const resumed = next.live.get('s')!
    while (resumed.step()) { /* run every turn */ }
    // The sender's messages (the holder's own notice that nudges the restored inbox aside), each once, in send order.
    const order = log.events.filter(event => event.type === 'user/message').map(event => event.data.id as string)
      .filter(id => !id.startsWith('cross-session:notice:'))
    expect(broken).toEqual([])
    expect(order).toEqual(['m0', 'm1'])
  })

  /** The sender's messages in `log` (not the holder's own notices), in log order. */
  const sent = (log: SessionLog) => log.events.filter(event => event.type === 'user/message').map(event => event.data.id as string)
    .filter(id => !id.startsWith('cross-session:notice:'))

  it('a message admitted locally survives a SIGKILL before its insertion reached the disk: the next holder delivers it once', async () => {
    const home = freshHome()
    const dead = new Set<number>()
    const { log, broken } = rc8Session('s')
    const first = waker(home, 741, log, dead)
    const resolved = await first.guard.resolve('s', { mayWake: true, signal })
    if (!resolved.ok) throw new Error('expected a wake')
    const admitted = await first.guard.admit(resolved.value, prompt('m1'))
    expect(admitted).toMatchObject({ ok: true, value: { stored: true } })
    // One row, posted and claimed by this process in one transaction.
    expect(first.store.message('m1')).toMatchObject({ state: 'claimed', claimer: { pid: 741 }, sender: 'session-from', mode: 'queue' })
    dead.add(741) // SIGKILLed before rc.8 wrote the inbox splice: the log on disk has nothing of m1

    const next = waker(home, 742, log, dead)
    const again = await next.guard.resolve('s', { mayWake: true, signal })
    expect(again.ok && again.value.woke).toBe(true)
    const resumed = next.live.get('s')!
    while (resumed.step()) { /* run every turn */ }
    next.runtime.onSessionEvent('s') // `session/event`: the holder settles from the log, then records once it is on disk
    await settled()
    expect(broken).toEqual([])
    expect(sent(log)).toEqual(['m1'])
    expect(next.store.message('m1')).toMatchObject({ state: 'recorded', seq: log.events[log.userIndex('m1')]!.seq })
    expect(log.persisted).toBeGreaterThan(log.userIndex('m1'))
  })

  it('a message admitted locally is recorded once its log is on disk, and a later holder does not deliver it again', async () => {
    const home = freshHome()
    const dead = new Set<number>()
    const { log, broken } = rc8Session('s')
    const first = waker(home, 751, log, dead)
    const resolved = await first.guard.resolve('s', { mayWake: true, signal })
    if (!resolved.ok) throw new Error('expected a wake')
    await first.guard.admit(resolved.value, prompt('m1'))
    const agent = first.live.get('s')!
    while (agent.step()) { /* the turn takes m1 and ends */ }
    first.runtime.onSessionEvent('s')
    await settled()
    expect(first.store.message('m1')).toMatchObject({ state: 'recorded', seq: log.events[log.userIndex('m1')]!.seq })
    dead.add(751)

    const next = waker(home, 752, log, dead)
    await next.guard.resolve('s', { mayWake: true, signal })
    const resumed = next.live.get('s')!
    while (resumed.step()) { /* nothing more to run */ }
    expect(broken).toEqual([])
    expect(sent(log)).toEqual(['m1'])
  })

  /**
   * A process that woke `s` through its guard (the resolve made, nothing admitted yet). `beforeAdmit` runs in the
   * inner port's admission, once the store row is posted.
   */
  async function wokenAlone(pid: number, beforeAdmit: (home: string) => void = () => undefined) {
    const home = freshHome()
    const { log, broken } = rc8Session('s')
    const only = waker(home, pid, log, new Set(), () => beforeAdmit(home))
    const resolved = await only.guard.resolve('s', { mayWake: true, signal })
    if (!resolved.ok) throw new Error('expected a wake')
    return { only, log, broken, resolved: resolved.value }
  }

  /** {@link wokenAlone}, whose target goes cold before the admission: the inner port refuses `m1` (`went-cold`). */
  async function refusedAdmission(pid: number, beforeAdmit?: (home: string) => void) {
    const { only, resolved } = await wokenAlone(pid, beforeAdmit)
    only.live.delete('s')
    expect(await only.guard.admit(resolved, prompt('m1'))).toEqual({ ok: false, reason: { kind: 'went-cold' } })
    return only
  }

  it('a stored message of the same sender still waiting for a session live here is delivered before a later local one', async () => {
    const { only, log, broken, resolved } = await wokenAlone(761)
    // m0 was posted while `s` was held elsewhere, and this holder has not claimed it yet (no tick ran).
    only.store.post({ messageId: 'm0', target: 's', sender: 'session-from', hop: 1, mode: 'queue', text: 'm0', mayWake: true })
    expect((await only.guard.admit(resolved, prompt('m1'))).ok).toBe(true)
    const agent = only.live.get('s')!
    while (agent.step()) { /* run every turn */ }
    expect(broken).toEqual([])
    expect(sent(log)).toEqual(['m0', 'm1'])
  })

  it('a local admission into a target with too many waiting is refused as full: the waiting ones go first, it is not admitted', async () => {
    const { only, broken, resolved } = await wokenAlone(781)
    for (let n = 0; n < MAX_WAITING_PER_TARGET; n++)
      only.store.post({ messageId: `w${n}`, target: 's', sender: 'session-other', hop: 1, mode: 'queue', text: `w${n}`, mayWake: true })
    expect(await only.guard.admit(resolved, prompt('m1'))).toEqual({ ok: false, reason: { kind: 'store-full' } })
    const agent = only.live.get('s')!
    expect(agent.inbox.nextTurn).toHaveLength(MAX_WAITING_PER_TARGET)
    expect(agent.inbox.nextTurn.some(message => message.id === 'm1')).toBe(false)
    expect(only.store.message('m1')).toBeUndefined()
    expect(broken).toEqual([])
  })

  it('the same request id admitted again (a retried call) is delivered once', async () => {
    const { only, log, broken, resolved } = await wokenAlone(791)
    expect(await only.guard.admit(resolved, prompt('m1'))).toMatchObject({ ok: true, value: { stored: true } })
    expect(await only.guard.admit(resolved, prompt('m1'))).toMatchObject({ ok: true, value: { stored: true } })
    const agent = only.live.get('s')!
    expect(agent.inbox.nextTurn.map(message => message.id)).toEqual(['m1'])
    while (agent.step()) { /* run every turn */ }
    expect(broken).toEqual([])
    expect(sent(log)).toEqual(['m1'])
  })

  it('a local admission that fails leaves no row: nothing was delivered', async () => {
    const only = await refusedAdmission(771)
    expect(only.store.message('m1')).toBeUndefined()
    expect(only.runtime.awaited('s')).toEqual(new Set())
  })

  it('a refused local admission drops its row before the refusal is answered, waiting out a lock taken in between', async () => {
    // The row is posted; the store is locked before the inner port refuses, and let go 300 ms later.
    const only = await refusedAdmission(772, home => {
      const lock = lockStore(home, 'write', cleanups)
      setTimeout(() => lock.release(), 300)
    })
    // Answered only once the row is gone: no later holder can deliver what the sender was told was not delivered.
    expect(only.store.message('m1')).toBeUndefined()
    expect(only.logged.filter(line => line.includes('m1'))).toEqual([])
  })

  it('a drop still locked out after its wait goes on in the background, and the row is this live process\'s claim until then', async () => {
    let lock: { release(): void } | undefined
    const only = await refusedAdmission(773, home => {
      lock = lockStore(home, 'write', cleanups)
    })
    expect(only.logged.some(line => line.includes('m1') && line.includes('trying in the background'))).toBe(true)
    // Claimed by this process (alive): no other process delivers it.
    expect(only.store.message('m1')).toMatchObject({ state: 'claimed', claimer: { pid: 773 } })
    lock!.release()
    await vi.waitFor(() => expect(only.store.message('m1')).toBeUndefined(), { timeout: 5_000, interval: 20 })
  }, 15_000)
})
