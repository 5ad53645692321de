/**
 * A home store that cannot be used never makes a process act uncoordinated
 * (docs/architecture.md §8, "When the store fails"): the plugin driven
 * through the fake host built from the rc.8 services
 * (test/support/fake-host.ts) over a real SQLite file, with faults made by
 * real means — a second connection holding `BEGIN IMMEDIATE` for the write
 * lock, the file deleted or replaced under a running store, a store of a
 * newer release — and the supervised store (`home/store-supervisor.ts`)
 * on its own.
 *
 * No fixed sleep: the bounded retry of a send runs on vitest's fake clock,
 * and the background retry is awaited through the supervisor's `opened`.
 *
 * @module test/unit/fail-closed
 */
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { apply } from '../../src/plugin.js'
import { admitClaimed, answerChannel, createControllerPort, fileIdentity, guardController, settled, HomeRuntime, openHomeStore, RETRY_BUSY_MS, STORE_RETRY_MS, StoreSupervisor, sqliteSite, StoreUnavailableError, STORE_VERSION, storePaths, StoreWatch, topLevelOnly, type HomeStore, type HostAgent, type ProcessTag, WokenSessions } from '../../src/testing.js'
import { heldSession, rc8Session } from '../support/rc8-sim.js'
import { FakeHost, userMessageEvent } from '../support/fake-host.js'
import { lockStore as lockHome } from '../support/store-lock.js'

const homes: string[] = []
const cleanups: Array<() => void> = []
const originalHome = process.env.DSH_HOME
afterEach(() => {
  vi.useRealTimers()
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
  process.env.DSH_HOME = originalHome
})

/** A fresh home of its own (the plugin keeps one runtime per home and process). */
function freshHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'xs-fail-closed-'))
  homes.push(home)
  return home
}

/** Another program locks the store (test/support/store-lock.ts); `exclusive` unless said. */
function lockStore(home: string, how: 'write' | 'exclusive' = 'exclusive'): { release(): void } {
  return lockHome(home, how, cleanups)
}

/** The plugin mounted on `home`, a cold session, one that refuses peers, and the caller. */
function scene(home: string) {
  process.env.DSH_HOME = home
  const host = new FakeHost()
  apply(host.context(), {})
  cleanups.push(() => host.dispose())
  host.persist('session-old', 1000, { title: 'Old work', events: [userMessageEvent(0, 'u1', 'earlier question')] })
  host.persist('session-quiet', 1500, { title: 'Quiet work' })
  const me = host.goLive('session-me', 3000, [userMessageEvent(0, 'p', 'talk to old')], { title: 'My live work' })
  return { host, me }
}

/** A store on `home` as another process of this package, with `session-quiet`'s own choice set to refuse. */
function storeWithRefusingSession(home: string): void {
  const other = openHomeStore(home, { pid: 77, start: 7 }, () => true)
  other.setInbound('session-quiet', 'refuse')
  other.close()
}

const woke = (host: FakeHost): boolean => host.calls.some(call => call.startsWith('agents.resume'))

describe('a store locked past the wait while the process starts', () => {
  it('refuses every send readably (nothing woken, a refuse target stays refused), keeps lists and reads, and coordinates once the lock goes', async () => {
    const home = freshHome()
    storeWithRefusingSession(home)
    const lock = lockStore(home)
    const { host, me } = scene(home)
    expect(host.logs).toContainEqual({ level: 'warn', message: expect.stringMatching(/^the cross-session store is unavailable \(database is locked\): sends to other sessions are refused/) })
    // Lists and reads keep working, without presence.
    expect(await host.run('sessions_list', {}, me)).toContain('- session-old [cold, top-level]')
    expect(await host.run('sessions_read', { session_id: 'session-old' }, me)).toContain('earlier question')

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    // Both at once: the supervisor's next background try stays within reach of the clock once it is real again.
    const sends = ['session-old', 'session-quiet'].map(target => host.run('sessions_send', { session_id: target, message: 'status?' }, me))
    await vi.advanceTimersByTimeAsync(STORE_RETRY_MS + 1000)
    for (const sending of sends) {
      expect(await sending).toBe('refused: rejected | the cross-session store is unavailable (database is locked)\n'
        + 'Nothing was delivered. No session was woken. Try again shortly; if it keeps failing, tell your user (the store is the cross-session store setting\'s: cross-session/store.sqlite under DSH_HOME unless it names a server).')
    }
    vi.useRealTimers()
    expect(woke(host)).toBe(false)
    expect(host.persisted.get('session-old')!.events).toHaveLength(2)

    lock.release()
    // The same sends now: the refusing session is refused for its own choice, the cold one is woken and answers.
    expect(await host.run('sessions_send', { session_id: 'session-quiet', message: 'status?' }, me)).toMatch(/^refused: rejected \| session-quiet does not take messages from peer sessions/)
    expect(await host.run('sessions_send', { session_id: 'session-old', message: 'status?' }, me)).toMatch(/^accepted for session-old .*\(woke a cold session\) \| recorded at seq/)
    expect(host.logs).toContainEqual({ level: 'warn', message: 'the cross-session store can be used again: cross-process coordination is on' })
    // Coordination is on: this process holds what it woke, as every other process now sees.
    const other = openHomeStore(home, { pid: 78, start: 7 }, () => true)
    cleanups.push(() => other.close())
    expect(other.view('session-old').holder?.tag.pid).toBe(process.pid)
    expect(other.view('session-me').holder?.tag.pid).toBe(process.pid)
  }, 20_000)

  it('a send waits for a store locked for a moment, with the event loop free, and is accepted', async () => {
    const home = freshHome()
    storeWithRefusingSession(home)
    const lock = lockStore(home)
    const { host, me } = scene(home)
    const sending = host.run('sessions_send', { session_id: 'session-old', message: 'status?' }, me)
    // The event loop runs meanwhile: a timer falls due while the send waits.
    await new Promise(resolve => setTimeout(resolve, 0))
    lock.release()
    expect(await sending).toMatch(/^accepted for session-old .*\(woke a cold session\)/)
  }, 20_000)
})

describe('a store whose write lock another program holds while the process starts', () => {
  it('opens it (reading needs no lock): a refuse target is refused for its own choice, a send that needs a write is refused after its retries, nothing woken; once the lock goes, it coordinates', async () => {
    const home = freshHome()
    storeWithRefusingSession(home)
    const lock = lockStore(home, 'write')
    const { host, me } = scene(home)
    expect(host.logs.filter(line => line.message.includes('unavailable'))).toEqual([])
    expect(await host.run('sessions_send', { session_id: 'session-quiet', message: 'status?' }, me)).toMatch(/^refused: rejected \| session-quiet does not take messages from peer sessions/)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const sending = host.run('sessions_send', { session_id: 'session-old', message: 'status?' }, me)
    await vi.advanceTimersByTimeAsync(STORE_RETRY_MS + 1000)
    expect(await sending).toMatch(/^refused: rejected \| resolving the target session failed: the cross-session store is unavailable \(database is locked\); no session was woken/)
    vi.useRealTimers()
    expect(woke(host)).toBe(false)
    lock.release()
    expect(await host.run('sessions_send', { session_id: 'session-old', message: 'status?' }, me)).toMatch(/^accepted for session-old .*\(woke a cold session\) \| recorded at seq/)
    const other = openHomeStore(home, { pid: 79, start: 7 }, () => true)
    cleanups.push(() => other.close())
    expect(other.view('session-old').holder?.tag.pid).toBe(process.pid)
  }, 60_000) // a real file and several sends: tens of seconds on a loaded 2-core machine
})

describe('a store of a newer release on the home', () => {
  it('is never moved aside nor changed: this process refuses sends and says why, the file stays for the newer release', async () => {
    const home = freshHome()
    storeWithRefusingSession(home)
    const { file } = storePaths(home)
    const db = new DatabaseSync(file)
    db.exec('UPDATE meta SET value = \'99\' WHERE key = \'version\'')
    db.close()
    const before = fileIdentity(file)
    const { host, me } = scene(home)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const sending = host.run('sessions_send', { session_id: 'session-quiet', message: 'status?' }, me)
    await vi.advanceTimersByTimeAsync(STORE_RETRY_MS + 1000)
    expect(await sending).toMatch(new RegExp(`^refused: rejected \\| the cross-session store is unavailable \\(it was written by a newer release of dsh-cross-session \\(schema 99\\); this one writes schema ${STORE_VERSION}\\)`))
    vi.useRealTimers()
    expect(fileIdentity(file)).toBe(before)
    const again = new DatabaseSync(file)
    expect(again.prepare('SELECT value FROM meta WHERE key = \'version\'').get()).toEqual({ value: '99' })
    expect(again.prepare('SELECT mode FROM inbound WHERE session_id = \'session-quiet\'').get()).toEqual({ mode: 'refuse' })
    again.close()
  }, 20_000)
})

describe('the supervised store', () => {
  const tag = (pid: number): ProcessTag => ({ pid, start: 1 })
  function supervised(home: string, pid: number, logs: string[] = []) {
    const supervisor = new StoreSupervisor(sqliteSite(busyMs => openHomeStore(home, tag(pid), () => true, line => logs.push(line), Date.now, busyMs), storePaths(home).file), tag(pid), line => logs.push(line))
    supervisor.start(RETRY_BUSY_MS)
    cleanups.push(() => supervisor.close())
    const events: string[] = []
    supervisor.listen(event => events.push(event))
    return { supervisor, store: supervisor.store, logs, events }
  }
  const post = (store: StoreSupervisor['store'], id: string) => store.post({ messageId: id, target: 's', sender: 'a', hop: 1, mode: 'queue', text: id, mayWake: true })
  const nextEvent = async (events: string[]) => {
    while (events.length === 0) await new Promise(resolve => setImmediate(resolve))
    return events.shift()
  }

  it('throws StoreUnavailableError at once while locked, said once, and opens in the background once the lock goes', async () => {
    const home = freshHome()
    openHomeStore(home, tag(1), () => true).close()
    const lock = lockStore(home)
    const { supervisor, store, logs, events } = supervised(home, 2)
    expect(supervisor.status()).toEqual({ open: false, why: 'database is locked', since: expect.any(Number) })
    expect(() => store.inboundOf('s')).toThrow(StoreUnavailableError)
    expect(() => store.board()).toThrow('the cross-session store is unavailable (database is locked)')
    expect(supervisor.corpus()).toBeUndefined()
    expect(logs.filter(line => line.includes('unavailable'))).toHaveLength(1)
    lock.release()
    expect(await nextEvent(events)).toBe('opened')
    expect(supervisor.status()).toEqual({ open: true })
    expect(post(store, 'm1').ok).toBe(true)
    expect(logs).toContain('the cross-session store can be used again: cross-process coordination is on')
  })

  it('the web UI reads the store\'s state through the channel: unavailable and why, or moved aside and where', async () => {
    const home = freshHome()
    openHomeStore(home, tag(1), () => true).close()
    const lock = lockStore(home)
    const { supervisor } = supervised(home, 2)
    const status = async () => await answerChannel({ runtime: { store: supervisor.store }, status: () => supervisor.status() } as unknown as Parameters<typeof answerChannel>[0], 'store.status', {}, new AbortController().signal)
    expect(await status()).toEqual({ ok: true, value: { open: false, why: 'database is locked', since: expect.any(Number) } })
    // A decision the store cannot take is said as such, never as an internal failure.
    const decide = await answerChannel({ runtime: { store: supervisor.store }, log: () => undefined } as unknown as Parameters<typeof answerChannel>[0], 'approvals.decide', { messageId: 'm', decision: 'refuse' }, new AbortController().signal)
    expect(decide).toEqual({ ok: false, error: { code: 'unavailable', message: 'the cross-session store is unavailable (database is locked); nothing was changed; try again shortly', details: {} } })
    lock.release()
    const { dir, file } = storePaths(home)
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true })
    writeFileSync(file, 'not a database at all\n'.repeat(300))
    const fresh = supervised(home, 3)
    const aside = readdirSync(dir).find(name => /^store\.sqlite\.broken-\d+$/.test(name))!
    expect(fresh.supervisor.status()).toEqual({ open: true, rebuilt: { at: expect.any(Number), aside: join(dir, aside) } })
    expect(fresh.logs).toContainEqual(expect.stringContaining('could not be read at all'))
  })

  it('a click meeting another process\'s write lock waits it out with the event loop free; one held past the wait is said unavailable', async () => {
    const home = freshHome()
    const { supervisor, store } = supervised(home, 2)
    const host = { runtime: { store: supervisor.store }, log: () => undefined, inbound: () => 'accept' } as unknown as Parameters<typeof answerChannel>[0]
    const choose = async (mode: string) => await answerChannel(host, 'inbound.set', { sessionId: 's', mode }, new AbortController().signal)
    // Held for 150 ms (a sweep, an index write): the choice is taken once it goes, and timers ran meanwhile.
    const brief = lockStore(home, 'write')
    let ticks = 0
    const ticker = setInterval(() => ticks++, 10)
    setTimeout(() => brief.release(), 150)
    expect(await choose('hold')).toEqual({ ok: true, value: { own: 'hold', host: 'accept' } })
    clearInterval(ticker)
    expect(ticks).toBeGreaterThan(3)
    expect(store.inboundOf('s')).toBe('hold')
    // Held past the click's wait: nothing changed, and the page is told why.
    const long = lockStore(home, 'write')
    expect(await choose('refuse')).toEqual({ ok: false, error: { code: 'unavailable', message: 'the cross-session store is unavailable (database is locked); nothing was changed; try again shortly', details: {} } })
    long.release()
    expect(store.inboundOf('s')).toBe('hold')
  })

  it('a deleted store file: the next call makes a new one at the path, and every process moves to that one file', async () => {
    const home = freshHome()
    const a = supervised(home, 2)
    const b = supervised(home, 3)
    expect(post(a.store, 'old').ok).toBe(true)
    const { file } = storePaths(home)
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true })
    expect(post(a.store, 'new').ok).toBe(true)
    expect(await nextEvent(a.events)).toBe('moved')
    // The other process notices on its next call (or its watch's tick) and reads the same new file.
    expect(b.store.message('new')?.text).toBe('new')
    expect(await nextEvent(b.events)).toBe('moved')
    expect(b.store.message('old')).toBeUndefined()
    expect(a.logs).toContainEqual(expect.stringContaining('the cross-session store file was deleted or replaced while in use'))
    // One file for the home: a third process opens it too.
    expect(supervised(home, 4).store.message('new')?.text).toBe('new')
  })

  it('a replaced store file: every process moves to the file now at the path, with what it holds', async () => {
    const home = freshHome()
    const a = supervised(home, 2)
    expect(post(a.store, 'in-old').ok).toBe(true)
    const elsewhere = freshHome()
    const replacement = openHomeStore(elsewhere, tag(9), () => true)
    replacement.setInbound('session-quiet', 'refuse')
    replacement.close()
    renameSync(storePaths(elsewhere).file, storePaths(home).file)
    expect(a.store.inboundOf('session-quiet')).toBe('refuse')
    expect(await nextEvent(a.events)).toBe('moved')
    expect(a.store.message('in-old')).toBeUndefined()
    // The old file's log was moved aside, never read into the new file.
    expect(readdirSync(storePaths(home).dir).filter(name => name.includes('.stale-')).sort()).toEqual([expect.stringMatching(/^store\.sqlite-shm\.stale-\d+$/), expect.stringMatching(/^store\.sqlite-wal\.stale-\d+$/)])
  })
})

describe('a write the store refuses changes nothing in memory, and is tried again', () => {
  /** The real store, whose `release` fails as a locked database does while `locked` is set (the connection seam). */
  function faultyRelease(store: HomeStore): { store: HomeStore, fault: { locked: boolean } } {
    const fault = { locked: false }
    const seam = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown
        if (key !== 'release' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value
        return (...args: unknown[]) => {
          if (fault.locked) throw Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5, errstr: 'database is locked' })
          return (value as (...given: unknown[]) => unknown).apply(target, args)
        }
      },
    })
    return { store: seam, fault }
  }

  it('a session that went away while its release failed stays held here until the release succeeds: no row stays live for a process without it', () => {
    const home = freshHome()
    const real = openHomeStore(home, { pid: process.pid, start: 1 }, tag => tag.pid === process.pid)
    const { store, fault } = faultyRelease(real)
    const watch = new StoreWatch(store, storePaths(home).dir)
    const live = new Map<string, HostAgent>()
    const logged: string[] = []
    const runtime = new HomeRuntime(store, watch, { agents: { get: id => live.get(id), list: () => [...live.values()], resume: () => Promise.reject(new Error('no resume')) }, log: line => logged.push(line), longLived: () => false })
    cleanups.push(() => {
      watch.stop()
      real.close()
    })
    const other = openHomeStore(home, { pid: 99_999, start: 1 }, tag => tag.pid === process.pid)
    cleanups.push(() => other.close())
    const agent = rc8Session('s').resume()
    live.set('s', agent)
    runtime.track(agent)
    expect(other.view('s').holder?.tag.pid).toBe(process.pid)

    live.delete('s')
    fault.locked = true
    runtime.untrack('s')
    expect(logged).toContainEqual(expect.stringContaining('letting go of s in the cross-session store failed (tried again shortly): Error: database is locked'))
    expect(runtime.holds('s')).toBe(true)
    runtime.tick()
    expect(runtime.holds('s')).toBe(true)

    fault.locked = false
    runtime.tick()
    expect(runtime.holds('s')).toBe(false)
    expect(other.view('s')).toEqual({ lastLetGo: { how: 'released', pid: process.pid, at: expect.any(Number) } })
  })
})

describe('a subagent is never woken for what waits for it', () => {
  it('the adoption refuses what waits for a subagent (misaddressed) instead of waking it; a top-level session is woken', async () => {
    const home = freshHome()
    const store = openHomeStore(home, { pid: 5, start: 1 }, () => false)
    cleanups.push(() => store.close())
    for (const target of ['child-1', 'session-top']) store.post({ messageId: `for-${target}`, target, sender: 'session-x', hop: 1, mode: 'queue', text: 'x', mayWake: true })
    const headers: Record<string, Record<string, unknown>> = { 'child-1': { id: 'child-1', parentSession: 'session-top', origin: 'subagent' }, 'session-top': { id: 'session-top' } }
    const woken: string[] = []
    const adopt = topLevelOnly(async sessionId => { woken.push(sessionId); return true }, { lookup: async id => ({ header: headers[id] } as never) }, store)
    expect(await adopt('child-1')).toBe(false)
    expect(await adopt('session-top')).toBe(true)
    expect(woken).toEqual(['session-top'])
    expect(store.message('for-child-1')).toMatchObject({ state: 'refused', reason: 'misaddressed' })
    expect(store.message('for-session-top')?.state).toBe('pending')
  })
})

describe('a decision of the target\'s user that comes while a message waits', () => {
  it('a message waiting in the store when its target\'s user switches to refuse is refused, never delivered; its sender reads why', () => {
    const home = freshHome()
    const store = openHomeStore(home, { pid: process.pid, start: 1 }, tag => tag.pid === process.pid)
    cleanups.push(() => store.close())
    const { log, resume } = rc8Session('s')
    const agent = resume()
    store.markLive('s')
    store.post({ messageId: 'waiting', target: 's', sender: 'session-x', hop: 1, mode: 'queue', text: 'hello', mayWake: true })
    store.setInbound('s', 'refuse')
    const held = heldSession(agent.session.events, 's')
    expect(admitClaimed(store, agent, held, store.claim('s'), () => undefined)).toEqual([])
    expect(store.message('waiting')).toMatchObject({ state: 'refused', reason: 'inbound-refused' })
    expect(log.events.filter(event => event.type === 'user/message')).toEqual([])
    expect(settled(store.message('waiting'))).toEqual({ stage: 'refused', reason: 'inbound-refused' })
  })
})

describe('a woken session the store could not take', () => {
  it('is put back to sleep (released through the inner port), never left awake for good, and the send fails', async () => {
    const home = freshHome()
    const real = openHomeStore(home, { pid: process.pid, start: 1 }, tag => tag.pid === process.pid)
    // The connection seam: handing over what a cut-off turn left unanswered fails as a full disk does.
    const store = new Proxy(real, {
      get(target, key, receiver) {
        if (key === 'takeUnanswered') return () => { throw Object.assign(new Error('database or disk is full'), { errcode: 13, errstr: 'database or disk is full' }) }
        const value = Reflect.get(target, key, receiver) as unknown
        return typeof value === 'function' ? value.bind(target) : value
      },
    }) as unknown as HomeStore
    const watch = new StoreWatch(store, storePaths(home).dir)
    cleanups.push(() => {
      watch.stop()
      real.close()
    })
    const live = new Map<string, HostAgent>()
    const runtime = new HomeRuntime(store, watch, { agents: { get: id => live.get(id), list: () => [...live.values()], resume: () => Promise.reject(new Error('no resume')) }, log: () => undefined, longLived: () => false })
    const released: string[] = []
    const inner = {
      resolve: async (sessionId: string) => {
        live.set(sessionId, rc8Session(sessionId).resume())
        return { ok: true as const, value: { sessionId, woke: true, running: false } }
      },
      releaseWoken: async (target: { sessionId: string }) => {
        released.push(target.sessionId)
        live.delete(target.sessionId)
        return 'put-back-to-sleep' as const
      },
    } as unknown as Parameters<typeof guardController>[0]
    const guarded = guardController(inner, runtime, { isLocal: id => live.has(id), agentOf: id => live.get(id), listEvents: undefined })
    await expect(guarded.resolve('s', { mayWake: true, signal: new AbortController().signal })).rejects.toThrow('database or disk is full')
    expect(released).toEqual(['s'])
    expect(live.has('s')).toBe(false)
  })
})

describe('"recorded" on the local path', () => {
  it('means the log on disk, as on the cross-process path: the record wait resolves only once the session\'s log was flushed', async () => {
    const requestId = 'cross-session:me:c1:abc'
    const agent = { id: 'session-peer', status: 'idle', session: { header: { id: 'session-peer' }, events: [{ type: 'user/message', seq: 4, data: { id: requestId, role: 'user' } }] } }
    const flushed = Promise.withResolvers<void>()
    const flushes: unknown[] = []
    const port = createControllerPort({
      agents: { get: (id: string) => (id === agent.id ? agent : undefined), list: () => [agent], resume: () => Promise.reject(new Error('no resume')) } as never,
      sessionController: () => undefined,
      defaultModel: () => undefined,
      flush: async given => {
        flushes.push(given)
        await flushed.promise
      },
    }, new WokenSessions())
    let done = false
    const waiting = port.waitRecorded({ sessionId: agent.id, woke: false, running: false }, requestId, { timeoutMs: 1000, signal: new AbortController().signal, settleForInbox: false }).then(recorded => {
      done = true
      return recorded
    })
    while (flushes.length === 0) await new Promise(resolve => setImmediate(resolve))
    expect(flushes).toEqual([agent])
    expect(done).toBe(false)
    flushed.resolve()
    expect(await waiting).toEqual({ seq: 4, stage: 'conversation' })
  })
})

describe('the main store file deleted alone', () => {
  it('its stale log is moved aside, never read into the new file: the new store opens empty and works', async () => {
    const home = freshHome()
    const tag = { pid: 2, start: 1 }
    const supervisor = new StoreSupervisor(sqliteSite(busyMs => openHomeStore(home, tag, () => true, () => undefined, Date.now, busyMs), storePaths(home).file), tag, () => undefined)
    supervisor.start(RETRY_BUSY_MS)
    cleanups.push(() => supervisor.close())
    const { store } = supervisor
    store.setInbound('s', 'hold')
    expect(store.post({ messageId: 'old', target: 's', sender: 'a', hop: 1, mode: 'queue', text: 'x', mayWake: true }).ok).toBe(true)
    rmSync(storePaths(home).file)
    expect(store.message('old')).toBeUndefined()
    expect(store.inboundOf('s')).toBeUndefined()
    expect(store.post({ messageId: 'new', target: 's', sender: 'a', hop: 1, mode: 'queue', text: 'y', mayWake: true }).ok).toBe(true)
    // Another process opens the same new file, and reads what was written there.
    const other = openHomeStore(home, { pid: 3, start: 1 }, () => true)
    cleanups.push(() => other.close())
    expect(other.message('new')?.text).toBe('y')
    expect(readdirSync(storePaths(home).dir).filter(name => name.includes('-wal.stale-'))).toHaveLength(1)
  })
})
