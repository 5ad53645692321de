/**
 * One drain of a session held live here (src/home/drain-once.ts,
 * docs/architecture.md §8 "Off the event loop"), with a real store and an
 * rc.8-shaped agent (test/support/rc8-sim.ts): a drain that finds nothing
 * waiting looks nothing up and writes nothing; a session that is not here,
 * or does not take stored messages now, is not claimed for; what a claim
 * took is admitted in posting order behind what an earlier drain left
 * unadmitted; a session no longer held when the claim answers gets
 * nothing, and what the claim took goes back to pending at once.
 *
 * @module test/unit/drain-once
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { drainOnce, openHomeStore, type HeldSession, type HostAgent, type SqliteHomeStore, type StoredMessage } from '../../src/testing.js'
import { heldSession, rc8Session } from '../support/rc8-sim.js'

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

/** A store on a fresh home (its transitions on the event loop) where `session` is live here, with `ids` posted to it in order. */
function storeWith(session: string, ids: readonly string[]): SqliteHomeStore {
  const home = mkdtempSync(join(tmpdir(), 'xs-drain-'))
  // This process (pid 301) lives: its claims stay its own until handed back.
  const store = openHomeStore(home, { pid: 301, start: 1 }, tag => tag.pid === 301)
  cleanups.push(() => rmSync(home, { recursive: true, force: true }), () => store.close())
  store.markLive(session)
  for (const messageId of ids) store.post({ messageId, target: session, sender: 'session-from', hop: 1, mode: 'queue', text: `text of ${messageId}`, mayWake: true })
  return store
}

/** The host of one agent: every lookup counted; `present`/`admits` say, per lookup, whether it is there and takes messages. */
function hostOf(agent: HostAgent, present: () => boolean = () => true, admits: () => boolean = () => true) {
  const lookups: string[] = []
  const logged: string[] = []
  const host = {
    agents: { get: (id: string) => (lookups.push(id), id === agent.id && present() ? agent : undefined), resume: async () => { throw new Error('no resume') } },
    log: (line: string) => logged.push(line),
    admits: () => admits(),
  }
  return { host, lookups, logged }
}

const ids = (messages: readonly { readonly id: string }[]): string[] => messages.map(message => message.id)

describe('drainOnce', () => {
  it('finds nothing waiting: no lookup, no transaction, nothing claimed for another session', async () => {
    const store = storeWith('s', [])
    store.markLive('t')
    store.post({ messageId: 'for-t', target: 't', sender: 'session-from', hop: 1, mode: 'queue', text: 'x', mayWake: true })
    const { host, lookups } = hostOf(rc8Session('s').resume())
    const before = store.times().transactions
    expect(await drainOnce(store, host, 's', () => heldSession([], 's'), new Map())).toBe(false)
    expect(lookups).toEqual([])
    expect(store.times().transactions).toBe(before)
    expect(store.message('for-t')?.state).toBe('pending')
  })

  it('claims nothing for a session that is not here, or does not take stored messages now', async () => {
    const store = storeWith('s', ['m'])
    const agent = rc8Session('s').resume()
    const absent = hostOf(agent, () => false)
    expect(await drainOnce(store, absent.host, 's', () => heldSession([], 's'), new Map())).toBe(false)
    expect(absent.lookups).toEqual(['s'])
    const refusing = hostOf(agent, () => true, () => false)
    expect(await drainOnce(store, refusing.host, 's', () => heldSession([], 's'), new Map())).toBe(false)
    expect(store.message('m')?.state).toBe('pending')
    expect(agent.inbox.nextTurn).toEqual([])
  })

  it('admits what it claimed, behind what an earlier drain left unadmitted, and settles the session from its log', async () => {
    const store = storeWith('s', ['first', 'second'])
    const earlier = store.claim('s').filter(message => message.messageId === 'first')
    store.unclaim('second')
    const agent = rc8Session('s').resume()
    const { host } = hostOf(agent)
    const held: HeldSession = heldSession([], 's')
    const unadmitted = new Map<string, StoredMessage[]>([['s', earlier]])
    expect(await drainOnce(store, host, 's', () => held, unadmitted)).toBe(true)
    expect(ids(agent.inbox.nextTurn)).toEqual(['first', 'second'])
    expect([...held.awaiting]).toEqual(['first', 'second'])
    expect(unadmitted.has('s')).toBe(false)
    expect(store.message('second')?.state).toBe('claimed')
    // Settled: the log as it is now has been looked at.
    expect(held.scanned).toBe(agent.session.events.length)
    expect(held.scanned).toBeGreaterThan(0)
  })

  it('admits once a kept claim that went back to pending meanwhile and was claimed again', async () => {
    const store = storeWith('s', ['m', 'n'])
    const kept = store.claim('s').filter(message => message.messageId === 'm')
    store.unclaim('n')
    // What a stopped worker's hand-back, or a join, does to this process's claims.
    store.unclaimAll()
    const agent = rc8Session('s').resume()
    const { host, logged } = hostOf(agent)
    const unadmitted = new Map<string, StoredMessage[]>([['s', kept]])
    expect(await drainOnce(store, host, 's', () => heldSession([], 's'), unadmitted)).toBe(true)
    expect(ids(agent.inbox.nextTurn)).toEqual(['m', 'n'])
    expect(logged).toEqual([])
    expect(store.message('m')?.state).toBe('claimed')
  })

  it('keeps what it claimed for the next drain when the session left, or stopped taking messages, before its admission', async () => {
    for (const gone of ['left', 'refuses'] as const) {
      const store = storeWith('s', ['m'])
      const agent = rc8Session('s').resume()
      // The first lookup (before the claim) finds it; the second (after) does not, or it takes nothing now.
      let lookups = 0
      const { host } = gone === 'left' ? hostOf(agent, () => ++lookups === 1) : hostOf(agent, () => true, () => ++lookups === 1)
      const unadmitted = new Map<string, StoredMessage[]>()
      expect(await drainOnce(store, host, 's', () => heldSession([], 's'), unadmitted)).toBe(true)
      expect(unadmitted.get('s')?.map(message => message.messageId)).toEqual(['m'])
      expect(store.message('m')?.state).toBe('claimed')
      expect(agent.inbox.nextTurn).toEqual([])
    }
  })

  it('a claim that finds nothing, with nothing left unadmitted, admits nothing', async () => {
    const store = storeWith('s', [])
    const agent = rc8Session('s').resume()
    const { host } = hostOf(agent)
    const unadmitted = new Map<string, StoredMessage[]>([['s', []]])
    expect(await drainOnce(store, host, 's', () => heldSession([], 's'), unadmitted)).toBe(false)
    expect(agent.inbox.nextTurn).toEqual([])
  })

  it('hands what the claim took back to pending at once when the session is no longer held here as it answers', async () => {
    const store = storeWith('s', ['m', 'n'])
    const agent = rc8Session('s').resume()
    const { host, logged } = hostOf(agent)
    const unadmitted = new Map<string, StoredMessage[]>()
    expect(await drainOnce(store, host, 's', () => undefined, unadmitted)).toBe(false)
    expect(store.message('m')).toMatchObject({ state: 'pending' })
    expect(store.message('m')?.claimer).toBeUndefined()
    expect(store.message('n')?.state).toBe('pending')
    expect(unadmitted.has('s')).toBe(false)
    expect(agent.inbox.nextTurn).toEqual([])
    expect(logged).toEqual([])
    // Another holder claims them next, in order.
    expect(store.claim('s').map(message => message.messageId)).toEqual(['m', 'n'])
  })
})
