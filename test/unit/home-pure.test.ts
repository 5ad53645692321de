/**
 * The small decisions around the home store (docs/architecture.md §8):
 * `DSH_HOME` resolved as rc.8's `@deepseek-ai/dsh-home-paths` resolves it,
 * a process named by pid and start time (with a real second process), and
 * sessions held by another process read as live there (home/query.ts), over
 * a real store.
 *
 * @module test/unit/home-pure
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isAlive, judgeAlive, markElsewhere, openHomeStore, parseStartTime, parseState, readStartTime, resolveHome, selfTag, sessionsList, sessionsRead, withPresence, type ProcessTag } from '../../src/testing.js'
import { makeWorld, session } from '../support/fakes.js'
import { useOtherProcess } from '../support/other-process.js'

/** A real other process, alive until the file ends. */
const other = useOtherProcess()

describe('DSH_HOME', () => {
  it('resolves like the harness: the variable unless empty or blank, else ~/.dsh; a leading ~ expanded', () => {
    expect(resolveHome({ DSH_HOME: '/x/home' })).toBe('/x/home')
    expect(resolveHome({ DSH_HOME: '/x/home/../other' })).toBe('/x/other')
    expect(resolveHome({ DSH_HOME: '   ' })).toBe(join(homedir(), '.dsh'))
    expect(resolveHome({ DSH_HOME: '' })).toBe(join(homedir(), '.dsh'))
    expect(resolveHome({})).toBe(join(homedir(), '.dsh'))
    expect(resolveHome({ DSH_HOME: '~' })).toBe(homedir())
    expect(resolveHome({ DSH_HOME: '~/homes/a' })).toBe(join(homedir(), 'homes', 'a'))
  })
})

describe('process tags', () => {
  it('reads field 22 of /proc/<pid>/stat even when the name holds spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, index) => String(index + 3))
    expect(parseStartTime(`42 (a) b (c) ${fields.join(' ')}`)).toBe(22)
    expect(parseStartTime(`42 (plain) ${fields.join(' ')}`)).toBe(22)
    expect(parseStartTime('garbage')).toBeUndefined()
    expect(parseStartTime('42 (short) R 1 2')).toBeUndefined()
    expect(parseStartTime(`42 (neg) ${fields.map((field, index) => (index === 19 ? '-5' : field)).join(' ')}`)).toBeUndefined()
  })

  it('a tag is alive only with its own start time (pids are reused); an unknown start falls back to the pid', () => {
    expect(judgeAlive({ pid: 5, start: 100 }, { signal: 'alive', start: 100 })).toBe(true)
    expect(judgeAlive({ pid: 5, start: 100 }, { signal: 'alive', start: 101 })).toBe(false)
    expect(judgeAlive({ pid: 5, start: 100 }, { signal: 'dead', start: undefined })).toBe(false)
    expect(judgeAlive({ pid: 5, start: 0 }, { signal: 'alive', start: 7 })).toBe(true)
    expect(judgeAlive({ pid: 5, start: 100 }, { signal: 'alive', start: undefined })).toBe(true)
    expect(judgeAlive({ pid: 5, start: 100 }, { signal: 'alive', start: 100, state: 'Z' })).toBe(false)
    expect(judgeAlive({ pid: 5, start: 100 }, { signal: 'alive', start: 100, state: 'X' })).toBe(false)
    expect(judgeAlive({ pid: 5, start: 100 }, { signal: 'alive', start: 100, state: 'S' })).toBe(true)
    expect(parseState('42 (a) b) Z 1 2')).toBe('Z')
    expect(parseState('garbage')).toBeUndefined()
  })

  it('a real zombie (exited, not yet reaped by its parent) is dead', async () => {
    // `sh` starts a child that exits shortly, then becomes `sleep`, which never reaps it (proc(5): state Z).
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] })
    try {
      const pid = Number(await new Promise<string>(resolve => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))))
      const stat = (): string => readFileSync(`/proc/${pid}/stat`, 'utf8')
      // Until the child has exited it is a living process; then its /proc entry stays, in state Z.
      while (parseState(stat()) !== 'Z') await new Promise(resolve => setImmediate(resolve))
      expect(isAlive({ pid, start: parseStartTime(stat())! })).toBe(false)
    } finally {
      parent.kill('SIGKILL')
    }
  })

  it('judges real processes: this one, a living other, the other with another start time, one that exited', () => {
    const me = selfTag()
    expect(me.pid).toBe(process.pid)
    expect(me.start).toBe(readStartTime(process.pid))
    expect(isAlive(me)).toBe(true)
    expect(isAlive({ pid: me.pid, start: me.start + 1 })).toBe(false)
    expect(isAlive(other)).toBe(true)
    expect(isAlive({ pid: other.pid, start: other.start + 1 })).toBe(false)
    const exited = spawnSync(process.execPath, ['-e', '0'])
    expect(isAlive({ pid: exited.pid!, start: 1 })).toBe(false)
  })
})

describe('live in another process', () => {
  const home = mkdtempSync(join(tmpdir(), 'xs-presence-'))
  afterAll(() => rmSync(home, { recursive: true, force: true }))
  const peerTag = (): ProcessTag => other
  const holder = (state: 'waking' | 'live') => ({ tag: { pid: 9, start: 1 }, state, woke: false })

  it('marks a row live there, never a row live here, never a session still being woken', () => {
    const elsewhere = new Map([['a', holder('live')], ['b', holder('waking')]])
    const cold = { header: { id: 'a', createdAt: 1 }, live: false, persisted: true }
    expect(markElsewhere(cold, elsewhere)).toEqual({ ...cold, live: true, elsewhere: { pid: 9 } })
    const here = { ...cold, live: true }
    expect(markElsewhere(here, elsewhere)).toBe(here)
    const waking = { ...cold, header: { id: 'b', createdAt: 1 } }
    expect(markElsewhere(waking, elsewhere)).toBe(waking)
    expect(markElsewhere({ ...cold, header: { id: 'c', createdAt: 1 } }, elsewhere).live).toBe(false)
  })

  it('list rows and the read header say live, marked with the other process, through a real store', async () => {
    const w = makeWorld()
    const me = session('session-me', 2, { live: true })
    const peer = session('session-peer', 1, { live: false, events: [] })
    const waking = session('session-waking', 0, { live: false, events: [] })
    w.corpus.add(me).add(peer).add(waking)
    const theirs = openHomeStore(home, peerTag(), isAlive)
    const mine = openHomeStore(home, selfTag(), isAlive)
    theirs.markLive('session-peer')
    theirs.acquire('session-waking')
    // withPresence spreads the inner port (`...inner`): it must be a plain object, as the indexed port is (a class instance would lose its methods).
    const inner = w.deps.sessions
    const plain = { listSessions: inner.listSessions.bind(inner), readTitles: inner.readTitles.bind(inner), readSurface: inner.readSurface.bind(inner), lookup: inner.lookup.bind(inner), isLive: inner.isLive.bind(inner) }
    const sessions = withPresence(plain, mine)
    expect(sessions.isLive('session-peer')).toBe(true)
    expect(sessions.isLive('session-waking')).toBe(false)
    expect(sessions.liveElsewhere?.('session-peer')).toEqual({ pid: other.pid })
    expect(sessions.liveElsewhere?.('session-me')).toBeUndefined()
    const deps = { ...w.deps, sessions }
    const list = await sessionsList({}, w.call(me), deps)
    expect(list).toContain(`- session-peer [live, top-level] | cwd=/work/project | preset=standard | live in another dsh process (pid ${other.pid})`)
    expect(list).toMatch(/- session-waking \[(?!live)/)
    const read = await sessionsRead({ session_id: 'session-peer' }, w.call(me), deps)
    expect(read.split('\n')[0]).toBe(`session session-peer [live, top-level] | cwd=/work/project | preset=standard | live in another dsh process (pid ${other.pid})`)
    // Once the other process lets go, nothing is marked.
    theirs.release('session-peer', 'released')
    expect(sessions.isLive('session-peer')).toBe(false)
    expect(await sessionsList({}, w.call(me), deps)).not.toContain('live in another dsh process')
    theirs.close()
    mine.close()
  })
})
