/**
 * The read side across machines (`src/home/pg/machines-query.ts`) under the
 * real tools (`sessions_list`, `sessions_read`): this machine's port is the
 * in-memory fake; the other machines are a directory the test sets
 * (`src/home/pg/directory-cache.ts`) and a read that answers as the test
 * says. The shared store itself is proven in `test/unit/pg-*.test.ts` and
 * `test/e2e/machines.test.ts`.
 * @module test/unit/machines-query
 */
import { describe, expect, it } from 'vitest'
import { sessionsList, sessionsRead, sessionsSend, storeFault } from '../../src/testing.js'
import { DirectoryCache, DIRECTORY_FRESH_MS } from '../../src/home/pg/directory-cache.js'
import type { RemoteSession } from '../../src/home/pg/directory-rows.js'
import { withMachines, type RemoteSurface } from '../../src/home/pg/machines-query.js'
import { elsewhereOf } from '../../src/home/pg/machines-home.js'
import type { Visibility } from '../../src/model/sessions.js'
import { assistantEvent, makeWorld, session, userEvent } from '../support/fakes.js'

function remote(id: string, createdAt: number, overrides: Partial<RemoteSession> = {}): RemoteSession {
  return { header: { id, createdAt, cwd: '/work/project' }, title: `title of ${id}`, live: false, machine: 'm-server',
    machineName: 'server-1', reachable: true, ...overrides }
}

/** A world whose sessions port also lists `others`, read through `answer`. */
function machinesWorld(others: () => RemoteSession[] | Error, answer: (machine: string, id: string) => RemoteSurface,
  visibility: Visibility = 'all') {
  const w = makeWorld({ visibility })
  const me = session('session-me', 100, { live: true })
  w.corpus.add(me).add(session('session-local', 50, { title: 'a local one' }))
  const asked: Array<[string, string]> = []
  const logs: string[] = []
  let now = 0
  const directory = new DirectoryCache(async () => {
    const found = others()
    if (found instanceof Error) throw found
    return found
  }, () => undefined, () => now)
  const sessions = withMachines(w.corpus, {
    directory, visibility: () => visibility, log: line => logs.push(line),
    askSurface: async (machine, id) => {
      asked.push([machine, id])
      return answer(machine, id)
    },
  })
  return { w, me, deps: { ...w.deps, sessions }, asked, logs, tick: (ms: number) => { now += ms } }
}

describe('sessions of other machines', () => {
  it('are listed beside this machine\'s, newest first, each with its machine and whether it is reachable now', async () => {
    const { w, me, deps } = machinesWorld(() => [remote('session-far', 200, { live: true }),
      remote('session-asleep', 10, { machineName: 'laptop', reachable: false, live: true })], () => ({ kind: 'not-found' }))
    const text = await sessionsList({}, w.call(me), deps)
    const lines = text.split('\n')
    expect(lines[0]).toBe('- session-far [live, top-level] | cwd=/work/project | machine=server-1')
    expect(lines[1]).toBe('  title of session-far')
    expect(lines.find(line => line.startsWith('- session-asleep'))).toBe('- session-asleep [cold, top-level] | cwd=/work/project | machine=laptop (not reachable now)')
    expect(lines.find(line => line.startsWith('- session-local'))).not.toContain('machine=')
    expect(text).toContain('4 of 4 considered sessions')
  })

  it('match a query by their published title', async () => {
    const { w, me, deps } = machinesWorld(() => [remote('session-far', 200), remote('session-other', 150)], () => ({ kind: 'not-found' }))
    const text = await sessionsList({ query: 'of session-far' }, w.call(me), deps)
    expect(text.split('\n').filter(line => line.startsWith('- '))).toEqual(['- session-far [cold, top-level] | cwd=/work/project | machine=server-1'])
  })

  it('are read through their machine: the same window, cursor and markers as a local read', async () => {
    const events = [userEvent(1, 'first question'), assistantEvent(2, 'first answer'), userEvent(3, 'second question'), assistantEvent(4, 'second answer')]
    const { w, me, deps, asked } = machinesWorld(() => [remote('session-far', 200, { live: true })], (_machine, id) => ({
      kind: 'surface', surface: { session: { id, createdAt: 200, cwd: '/work/project' }, capturedThroughSeq: 4, events },
    }))
    const whole = await sessionsRead({ session_id: 'session-far' }, w.call(me), deps)
    expect(whole.split('\n')[0]).toBe('session session-far [live, top-level] | cwd=/work/project | machine=server-1')
    expect(whole).toContain('title: title of session-far')
    expect(whole).toContain('second answer')
    const after = await sessionsRead({ session_id: 'session-far', after_seq: 2 }, w.call(me), deps)
    expect(after).toContain('second question')
    expect(after).not.toContain('first answer')
    expect(asked).toEqual([['m-server', 'session-far'], ['m-server', 'session-far']])
    // The same read of a local session of the same events reads the same, but for the machine.
    w.corpus.add(session('session-near', 200, { live: true, events, title: 'title of session-far' }))
    const local = await sessionsRead({ session_id: 'session-near' }, w.call(me), deps)
    expect(local.split('\n').slice(1)).toEqual(whole.split('\n').slice(1))
  })

  it('a read no process of its machine answered is refused readably, naming what to try', async () => {
    const { w, me, deps } = machinesWorld(() => [remote('session-far', 200)], () => ({ kind: 'unanswered', waitedMs: 5000 }))
    const text = await sessionsRead({ session_id: 'session-far' }, w.call(me), deps)
    expect(text).toMatch(/^refused: rejected \| /)
    expect(text).toContain('machine/unanswered: no dsh process of the session\'s machine answered in time')
    expect(text).not.toMatch(/at \w+ \(/)
  })

  it('a session of a machine not reachable now is refused at once, its machine never asked', async () => {
    const { w, me, deps, asked } = machinesWorld(() => [remote('session-far', 200, { reachable: false })], () => ({ kind: 'not-found' }))
    const text = await sessionsRead({ session_id: 'session-far' }, w.call(me), deps)
    expect(text).toContain('machine/unreachable: no dsh process of the session\'s machine is running now')
    expect(asked).toEqual([])
  })

  it('a session its machine no longer has is not-found, as a local one', async () => {
    const { w, me, deps } = machinesWorld(() => [remote('session-far', 200)], () => ({ kind: 'not-found' }))
    expect(await sessionsRead({ session_id: 'session-far' }, w.call(me), deps)).toMatch(/^refused: not-found \| /)
  })

  it('while the shared store cannot be reached, the list has this machine\'s rows (said once) and a remote read is refused', async () => {
    const down = storeFault('connect ECONNREFUSED 127.0.0.1:5432', 'the PostgreSQL server cannot be reached')
    const { w, me, deps, logs, tick } = machinesWorld(() => down, () => ({ kind: 'not-found' }))
    const listed = await sessionsList({}, w.call(me), deps)
    expect(listed.split('\n').filter(line => line.startsWith('- ')).map(line => line.split(' ')[1]).sort()).toEqual(['session-local', 'session-me'])
    tick(DIRECTORY_FRESH_MS)
    await sessionsList({}, w.call(me), deps)
    expect(logs.filter(line => line.includes('not listed'))).toHaveLength(1)
    const read = await sessionsRead({ session_id: 'session-far' }, w.call(me), deps)
    expect(read).toContain('machine/store-down')
    // A local read is untouched.
    expect(await sessionsRead({ session_id: 'session-local' }, w.call(me), deps)).toMatch(/^session session-local /)
  })

  it('follow their machine\'s inbound setting: a send to one whose machine refuses peer messages is refused, whatever this one says', async () => {
    const { w, me, deps } = machinesWorld(() => [remote('session-far', 200, { live: true, hostInbound: 'refuse' })], () => ({ kind: 'not-found' }))
    expect(deps.settings.inbound).toBe('accept')
    const text = await sessionsSend({ session_id: 'session-far', message: 'hello there' }, w.call(me), deps)
    expect(text).toMatch(/^refused: rejected \| /)
    expect(text).toContain('session-far does not take messages from peer sessions (its user set inbound messages to refuse)')
    expect(w.controller.log).toEqual([])
  })

  it('a send is refused while the shared store cannot be read, never decided by this machine\'s inbound setting alone', async () => {
    const down = storeFault('connect ECONNREFUSED 127.0.0.1:5432', 'the PostgreSQL server cannot be reached')
    const { w, me, deps } = machinesWorld(() => down, () => ({ kind: 'not-found' }))
    const text = await sessionsSend({ session_id: 'session-far', message: 'hello there' }, w.call(me), deps)
    expect(text).toMatch(/^refused: rejected \| the cross-session store is unavailable \(the PostgreSQL server cannot be reached\)/)
    expect(w.controller.log).toEqual([])
  })

  it('do not exist with visibility workspace: a path names a directory of its own machine only', async () => {
    const { w, me, deps, asked } = machinesWorld(() => [remote('session-far', 200)], () => ({ kind: 'not-found' }), 'workspace')
    expect(await sessionsList({}, w.call(me), deps)).not.toContain('session-far')
    expect(await sessionsRead({ session_id: 'session-far' }, w.call(me), deps)).toMatch(/^refused: not-found \| /)
    expect(asked).toEqual([])
  })
})

describe('the directory cache', () => {
  it('reads once while fresh, again once stale or after a change is heard, and shares a read in flight', async () => {
    let reads = 0
    let now = 0
    let heard: () => void = () => undefined
    const cache = new DirectoryCache(async () => {
      reads++
      return [remote(`s-${reads}`, reads)]
    }, listener => { heard = listener }, () => now)
    const [a, b] = await Promise.all([cache.get(), cache.get()])
    expect(a).toBe(b)
    expect(reads).toBe(1)
    now += DIRECTORY_FRESH_MS - 1
    await cache.get()
    expect(reads).toBe(1)
    now += 1
    expect((await cache.get()).byId.has('s-2')).toBe(true)
    heard()
    expect((await cache.get()).byId.has('s-3')).toBe(true)
    expect(reads).toBe(3)
  })

  it('keeps the reading it made known through a change heard while it was read (the questions asked right after a read)', async () => {
    let heard: () => void = () => undefined
    let release: () => void = () => undefined
    const cache = new DirectoryCache(async () => {
      await new Promise<void>(resolve => { release = resolve })
      return [remote('s-1', 1)]
    }, listener => { heard = listener })
    const reading = cache.get()
    heard()
    release()
    await reading
    expect(cache.known()?.byId.has('s-1')).toBe(true)
  })

  it('a page\'s question "another machine\'s?" reads the directory whatever the visibility, and calls a session this machine lacks not its own', async () => {
    const w = makeWorld({ visibility: 'workspace' })
    w.corpus.add(session('session-here', 1))
    const directory = new DirectoryCache(async () => [remote('session-far', 2)], () => undefined)
    const elsewhere = elsewhereOf(directory, w.corpus)
    const signal = new AbortController().signal
    expect(await elsewhere('session-far', signal)).toBe(true)
    expect(await elsewhere('session-here', signal)).toBe(false)
    expect(await elsewhere('session-nowhere', signal)).toBe(true)
  })
})
