/**
 * What the session log says about a delivered message, and what the holder
 * does with it (docs/architecture.md §8): `deliveryState` and
 * `completedTurnAfter` (home/log-state.ts) over rc.8-shaped events
 * (`@deepseek-ai/dsh-agent@0.1.0-rc.8` lib/index.js `Inbox`), the
 * open-turn rules (home/open-turn.ts), `admitClaimed` / `settle` /
 * `recordFound` (home/owner-delivery.ts) with a real store and an
 * rc.8-shaped agent (test/support/rc8-sim.ts), and the runtime's
 * order around them: found in the live log, written to disk by
 * `sessions.flush`, only then recorded (home/holding.ts).
 *
 * @module test/unit/home-log
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { admitClaimed, blocksWake, completedTurnAfter, deliveryState, deliveryStates, HomeRuntime, openHomeStore, openTurnOf, OPEN_TURN_RECENT_MS, recordFound, settle, storePaths, StoreWatch, writerKnownGone, type HomeStore, type HostAgent } from '../../src/testing.js'
import { heldSession, rc8Session } from '../support/rc8-sim.js'

const msg = (id: string) => ({ id, role: 'user', content: [{ type: 'text', text: id }] })
let seq = 0
const event = (type: string, data: Record<string, unknown> = {}) => ({ seq: ++seq, type, time: 1000 + seq, data })
/** An rc.8 splice: `inserted` at `start`, or `removedCount` removed (a claim; a cancel with `outcome`). */
const splice = (target: 'next-turn' | 'next-step', start: number, inserted: string[], removedCount?: number, outcome?: 'canceled') =>
  event('agent/inbox/spliced', { target, start, ...(removedCount === undefined ? {} : { removedCount }), inserted: inserted.map(msg), ...(outcome === undefined ? {} : { outcome }) })

describe('deliveryState', () => {
  it('finds the message\'s own user/message (by id, or by the relay source\'s rpcId) before anything else', () => {
    const events = [splice('next-turn', 0, ['m']), event('turn/start', { turn: 1 }), splice('next-turn', 0, [], 1), event('user/message', msg('m'))]
    expect(deliveryState(events, 'm')).toEqual({ kind: 'conversation', seq: events[3]!.seq })
    expect(deliveryState([event('user/message', { id: 'other', source: { rpcId: 'm' } })], 'm')).toMatchObject({ kind: 'conversation' })
    expect(deliveryState([null, 7, 'x', { type: 'user/message', data: null }, ...events], 'm').kind).toBe('conversation')
  })

  it('inbox, cancelled, taken, in-turn, absent', () => {
    const inserted = splice('next-turn', 0, ['m'])
    expect(deliveryState([inserted], 'm')).toEqual({ kind: 'inbox' })
    expect(deliveryState([inserted, splice('next-turn', 0, [], 1, 'canceled')], 'm')).toEqual({ kind: 'cancelled' })
    const claimed = [inserted, event('turn/start', { turn: 1 }), splice('next-turn', 0, [], 1)]
    // The turn that took it is still open: it appends the user/message with its step (rc.8 `preStep`, then the append).
    expect(deliveryState(claimed, 'm')).toEqual({ kind: 'in-turn' })
    // That turn ended (interrupted: rc.8's load closes a cut-off turn) without it: it never ran.
    expect(deliveryState([...claimed, event('turn/end', { turn: 1, reason: { kind: 'interrupted' } })], 'm')).toEqual({ kind: 'taken' })
    expect(deliveryState([...claimed, event('turn/end', { turn: 1, reason: { kind: 'aborted' } }), event('turn/start', { turn: 2 })], 'm')).toEqual({ kind: 'taken' })
    expect(deliveryState([splice('next-turn', 0, ['other'])], 'm')).toEqual({ kind: 'absent' })
    expect(deliveryState([], 'm')).toEqual({ kind: 'absent' })
  })

  it('follows each list by position, as rc.8 replays its splices (inserted, removed by a claim splice, then appended as a user/message)', () => {
    const events: unknown[] = [
      splice('next-turn', 0, ['a']),
      splice('next-turn', 1, ['m']),
      splice('next-turn', 2, ['b']),
      splice('next-step', 0, ['s']),
      event('turn/start', { turn: 1 }),
      // The turn claims next-step input and one queued turn: `s`, then `a` (index 0), not `m`.
      splice('next-step', 0, [], 1),
      splice('next-turn', 0, [], 1),
      event('user/message', msg('s')),
      event('user/message', msg('a')),
      event('turn/end', { turn: 1, reason: { kind: 'completed' } }),
    ]
    expect(deliveryState(events, 'm')).toEqual({ kind: 'inbox' })
    // A cancel of index 1 ([m, b] now) takes `b`, not `m`.
    expect(deliveryState([...events, splice('next-turn', 1, [], 1, 'canceled')], 'm')).toEqual({ kind: 'inbox' })
    expect(deliveryState([...events, splice('next-turn', 1, [], 1, 'canceled')], 'b')).toEqual({ kind: 'cancelled' })
    const next = [...events, event('turn/start', { turn: 2 }), splice('next-turn', 0, [], 1)]
    expect(deliveryState(next, 'm')).toEqual({ kind: 'in-turn' })
    const appended = [...next, event('step/start', { turn: 2 }), event('user/message', msg('m'))]
    expect(deliveryState(appended, 'm')).toEqual({ kind: 'conversation', seq: (appended.at(-1) as { seq: number }).seq })
    // Inserted again after a cancel: pending again.
    expect(deliveryState([splice('next-turn', 0, ['m']), splice('next-turn', 0, [], 1, 'canceled'), splice('next-step', 0, ['m'])], 'm')).toEqual({ kind: 'inbox' })
  })

  it('one pass for many ids gives each id what a pass for it alone gives (random rc.8 walks: sends, steps, cancels, failed turns, resumes)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      let state = seed
      const random = (n: number): number => { state = (state * 1103515245 + 12345) % 2 ** 31; return state % n }
      const { log, resume } = rc8Session('s')
      let agent = resume()
      const ids: string[] = ['never-sent']
      for (let action = 0; action < 40; action++) {
        const pick = random(10)
        // Half of them carry the tracked id as the relay source's rpcId, under another message id.
        const id = `m${ids.length}`
        const message = { id: random(2) === 0 ? id : `u${ids.length}`, role: 'user' as const, content: [{ type: 'text' as const, text: 'x' }],
          source: { kind: 'plugin', rpcId: id } }
        if (pick < 3) { ids.push(id); agent.followup(message) } else if (pick < 4) { ids.push(id); agent.steer(message) } else if (pick < 8) agent.step()
        else if (pick < 9) { if (random(2) === 0) agent.cancel(); else agent.fail() } else agent = resume() // the process was killed: a new agent replays the log
        const together = deliveryStates(log.events, ids)
        for (const id of ids) expect([seed, action, id, together.get(id)]).toEqual([seed, action, id, deliveryStates(log.events, [id]).get(id)])
      }
    }
  })

  it('completedTurnAfter finds the first completed turn end after a seq', () => {
    const events = [event('user/message', msg('m')), event('turn/end', { reason: { kind: 'interrupted' } }), event('turn/end', { reason: { kind: 'completed' } }), null]
    const at = events[0]!.seq
    expect(completedTurnAfter(events, at)).toBe(events[2]!.seq)
    expect(completedTurnAfter(events, events[2]!.seq)).toBeUndefined()
    expect(completedTurnAfter([event('turn/end', {})], 0)).toBeUndefined()
  })
})

describe('open turns (processes without this package)', () => {
  const now = 10_000_000
  it('finds a log ending in an open turn and how long ago it last wrote', () => {
    expect(openTurnOf([{ type: 'turn/start', time: now - 50 }, { type: 'step/start', time: now - 10 }, null], now)).toEqual({ ageMs: 10, lastTime: now - 10 })
    expect(openTurnOf([{ type: 'turn/start', time: 1 }, { type: 'turn/end', time: 2 }], now)).toBeUndefined()
    expect(openTurnOf([{ type: 'turn/start' }], now)).toEqual({ ageMs: 0, lastTime: undefined })
    expect(openTurnOf([], now)).toBeUndefined()
  })

  it('the writer is known gone when its holder died, or let go no earlier than the turn last wrote', () => {
    const turn = { ageMs: 5000, lastTime: now - 5000 }
    expect(writerKnownGone(turn, undefined)).toBe(false)
    expect(writerKnownGone(turn, { how: 'died', pid: 1, at: undefined })).toBe(true)
    expect(writerKnownGone(turn, { how: 'exited', pid: 1, at: now - 4000 })).toBe(true)
    expect(writerKnownGone(turn, { how: 'released', pid: 1, at: now - 6000 })).toBe(true) // within the clock slack
    expect(writerKnownGone(turn, { how: 'released', pid: 1, at: now - 9000 })).toBe(false) // it wrote after letting go: another writer
    expect(writerKnownGone({ ageMs: 0, lastTime: undefined }, { how: 'released', pid: 1, at: now })).toBe(false)
  })

  it('blocks a wake only for a recent open turn whose writer is not known gone', () => {
    const recent = { ageMs: 1000, lastTime: now - 1000 }
    expect(blocksWake(recent, undefined)).toBe(true)
    expect(blocksWake({ ageMs: OPEN_TURN_RECENT_MS, lastTime: now - OPEN_TURN_RECENT_MS }, undefined)).toBe(false)
    expect(blocksWake(recent, { how: 'died', pid: 1, at: undefined })).toBe(false)
    expect(blocksWake(undefined, undefined)).toBe(false)
  })
})

describe('the holder admits and settles from the log', () => {
  const homes: string[] = []
  const stores: HomeStore[] = []
  afterEach(() => {
    for (const store of stores.splice(0)) store.close()
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
  })

  /** A store holding `session` live, with `ids` posted (in order) and claimed by it. */
  function holding(session: string, ids: Array<string | [string, 'queue' | 'steer']>) {
    const home = mkdtempSync(join(tmpdir(), 'xs-owner-'))
    homes.push(home)
    const store = openHomeStore(home, { pid: 201, start: 1 }, () => false)
    stores.push(store)
    store.markLive(session)
    for (const entry of ids) {
      const [messageId, mode] = typeof entry === 'string' ? [entry, 'queue' as const] : entry
      store.post({ messageId, target: session, sender: 'session-from', hop: 1, mode, text: `text of ${messageId}`, mayWake: true })
    }
    return { store, claimed: store.claim(session) }
  }
  const noLog = (line: string): never => expect.fail(line)

  it('a message already in the conversation is only found (recorded once the log is on disk); one pending in the restored inbox is awaited and the agent nudged', async () => {
    const { log, resume } = rc8Session('s')
    log.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [msg('old'), msg('pending')] })
    log.append('turn/start', { turn: 1 })
    log.append('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] })
    log.append('step/start', { turn: 1 })
    log.append('user/message', msg('old'))
    const agent = resume() // closes the cut-off turn; `pending` is in its inbox again, and nothing runs it
    expect(agent.status).toBe('idle')
    const { store, claimed } = holding('s', ['old', 'pending'])
    const held = heldSession(agent.session.events)
    expect(admitClaimed(store, agent, held, claimed, noLog)).toEqual(['pending'])
    expect(held.found).toEqual(new Map([['old', { seq: 5, running: false }]]))
    expect(store.message('old')?.state).toBe('claimed')
    expect(await recordFound(store, held)).toBe(true)
    expect(store.message('old')).toMatchObject({ state: 'recorded', seq: 5 })
    expect(agent.inbox.nextTurn.map(each => each.id)).toEqual(['pending'])
    expect(agent.inbox.nextStep.map(each => each.id)).toEqual([expect.stringMatching(/^cross-session:notice:/)])
    expect(agent.status).toBe('running')
  })

  it('a message a turn running here took is awaited, not admitted again (a new runtime of this process re-claimed it)', async () => {
    const { log, broken, resume } = rc8Session('s')
    const agent = resume()
    const { store, claimed } = holding('s', ['m'])
    expect(admitClaimed(store, agent, heldSession(log.events), claimed, noLog)).toEqual(['m'])
    agent.step() // turn 1 claims `m`
    store.unclaimAll() // what HomeRuntime.start does for a new runtime of this process
    const again = store.claim('s')
    expect(deliveryState(log.events, 'm')).toEqual({ kind: 'in-turn' })
    const held = heldSession(log.events)
    const awaited = admitClaimed(store, agent, held, again, noLog)
    expect(awaited).toEqual(['m'])
    expect(agent.inbox.hasPending).toBe(false)
    for (const id of awaited) held.awaiting.add(id) // as Holdings.drainNow does
    agent.step() // its step appends the user/message
    settle(store, agent, held)
    expect(broken).toEqual([])
    expect(log.events.filter(each => each.type === 'user/message').map(each => each.data.id)).toEqual(['m'])
    expect(held.found.get('m')).toEqual({ seq: log.userIndex('m') + 1, running: true })
    await recordFound(store, held)
    expect(store.message('m')).toMatchObject({ state: 'recorded', seq: log.userIndex('m') + 1 })
  })

  it('a message a cut-off turn took goes in front of later ones the resume restored, in its own list', () => {
    const { log, resume } = rc8Session('s')
    // The dead holder admitted m1, m2, m3 (queue) and s1 (steer); its turn took s1 and m1, then it was killed.
    log.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [msg('m1')] })
    log.append('agent/inbox/spliced', { target: 'next-turn', start: 1, inserted: [msg('m2')] })
    log.append('agent/inbox/spliced', { target: 'next-turn', start: 2, inserted: [msg('m3')] })
    log.append('agent/inbox/spliced', { target: 'next-step', start: 0, inserted: [msg('s1')] })
    log.append('turn/start', { turn: 1 })
    log.append('agent/inbox/spliced', { target: 'next-step', start: 0, removedCount: 1, inserted: [] })
    log.append('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] })
    const agent = resume()
    const { store, claimed } = holding('s', ['m1', 'm2', ['s1', 'steer'], 'm3'])
    expect(claimed.map(each => deliveryState(log.events, each.messageId).kind)).toEqual(['taken', 'inbox', 'taken', 'inbox'])
    expect(admitClaimed(store, agent, heldSession(log.events), claimed, noLog)).toEqual(['m1', 'm2', 's1', 'm3'])
    expect(agent.inbox.nextTurn.map(each => each.id)).toEqual(['m1', 'm2', 'm3'])
    // `s1` is steered as before (nothing waits in next-step), which also starts the agent: no notice is needed.
    expect(agent.inbox.nextStep.map(each => each.id)).toEqual(['s1'])
    expect(agent.status).toBe('running')
    // The insertion in front is an ordinary splice (no removal, no outcome).
    expect(log.events.find(each => each.type === 'agent/inbox/spliced' && (each.data.inserted as Array<{ id: string }>)[0]?.id === 'm1' && each.data.start === 0 && log.events.indexOf(each) > 6)?.data).toEqual({ target: 'next-turn', start: 0, inserted: [expect.objectContaining({ id: 'm1' })] })
  })

  it('a host agent without an inbox gets followup / steer as before', () => {
    const { log, resume } = rc8Session('s')
    const agent = resume()
    const received: string[] = []
    const plain = { id: 's', session: agent.session, status: 'idle' as const, whenIdle: async () => undefined, followup: (message: { id: string }) => received.push(`followup ${message.id}`), steer: (message: { id: string }) => received.push(`steer ${message.id}`) }
    const { store, claimed } = holding('s', ['q', ['t', 'steer']])
    expect(admitClaimed(store, plain, heldSession(log.events), claimed, noLog)).toEqual(['q', 't'])
    expect(received).toEqual(['followup q', 'steer t'])
    expect(log.events).toEqual([])
  })

  it('settle finds what joined the conversation (not yet recorded) and returns what a cancel or an ended turn dropped to pending', async () => {
    const { log, resume } = rc8Session('s')
    const agent = resume()
    const { store, claimed } = holding('s', ['ran', 'dropped', 'cancelled'])
    const held = heldSession([])
    for (const id of admitClaimed(store, agent, held, claimed, noLog)) held.awaiting.add(id)
    agent.step() // turn 1 claims `ran`
    agent.step() // and appends it
    agent.step() // turn 1 ends; turn 2 starts and claims `dropped`
    agent.step()
    // Found, not recorded: the store says `recorded` only once the log is on disk.
    expect(settle(store, agent, held)).toBe(false) // neither the find nor turn 1's completed end changes the store before the flush
    expect(held.found).toEqual(new Map([['ran', { seq: log.userIndex('ran') + 1, running: true }]]))
    expect(held.answeredAt).toBeGreaterThan(log.userIndex('ran'))
    expect(store.message('ran')?.state).toBe('claimed')
    expect(deliveryState(log.events, 'dropped')).toEqual({ kind: 'in-turn' })
    agent.cancel() // the user cancels: `cancelled` is cancelled in the inbox, turn 2 ends aborted without `dropped`
    expect(settle(store, agent, held)).toBe(true)
    expect(store.message('dropped')?.state).toBe('pending')
    expect(store.message('cancelled')?.state).toBe('pending')
    expect([...held.awaiting]).toEqual([])
    expect(await recordFound(store, held)).toBe(true)
    expect(store.message('ran')).toMatchObject({ state: 'recorded', seq: log.userIndex('ran') + 1 })
    // The next drain delivers both again, in order.
    const next = store.claim('s')
    expect(next.map(each => each.messageId)).toEqual(['dropped', 'cancelled'])
    expect(admitClaimed(store, agent, held, next, noLog)).toEqual(['dropped', 'cancelled'])
  })

  it('recordFound records only the ids it is given, and only those leave `found`', async () => {
    const { log, resume } = rc8Session('s')
    const agent = resume()
    const { store, claimed } = holding('s', ['a', 'b', 'c'])
    const held = heldSession([])
    for (const id of admitClaimed(store, agent, held, claimed, noLog)) held.awaiting.add(id)
    while (agent.step()) settle(store, agent, held)
    expect([...held.found.keys()]).toEqual(['a', 'b', 'c'])
    expect(await recordFound(store, held, new Set(['a', 'c', 'not-found']))).toBe(true)
    expect(store.message('a')).toMatchObject({ state: 'recorded', seq: log.userIndex('a') + 1 })
    expect(store.message('b')?.state).toBe('claimed')
    expect(store.message('c')).toMatchObject({ state: 'recorded', seq: log.userIndex('c') + 1 })
    expect([...held.found.keys()]).toEqual(['b'])
    expect(await recordFound(store, held, new Set(['a']))).toBe(false) // already gone from `found`: nothing recorded twice
    expect(await recordFound(store, held)).toBe(true) // no ids: all that is left
    expect(store.message('b')).toMatchObject({ state: 'recorded', seq: log.userIndex('b') + 1 })
    expect(held.found.size).toBe(0)
    expect(await recordFound(store, held)).toBe(false)
  })

  it('recordFound writes one flush\'s finds and the answer in one transaction: a fault records none of them and keeps them found', async () => {
    const { log, resume } = rc8Session('s')
    const agent = resume()
    const { store, claimed } = holding('s', ['a', 'b'])
    const held = heldSession([], 's')
    for (const id of admitClaimed(store, agent, held, claimed, noLog)) held.awaiting.add(id)
    while (agent.step()) settle(store, agent, held)
    const answeredAt = held.answeredAt
    expect([...held.found.keys()]).toEqual(['a', 'b'])
    expect(answeredAt).toBeGreaterThan(log.userIndex('b'))
    // The second record fails inside the batch (a disk full after the first row): the first is rolled back with it.
    let records = 0
    const faulty = new Proxy(store, {
      get: (target, name) => name !== 'recordAll' ? Reflect.get(target, name) as unknown
        : (...args: Parameters<HomeStore['recordAll']>) => target.recordAll(args[0].map(place => ({
            ...place, get seq(): number { if (++records === 2) throw Object.assign(new Error('database or disk is full'), { errcode: 13 }); return place.seq },
          })), args[1]),
    })
    await expect(recordFound(faulty, held, undefined, answeredAt)).rejects.toThrow(/disk is full/)
    expect(store.message('a')?.state).toBe('claimed')
    expect(store.message('b')?.state).toBe('claimed')
    expect([...held.found.keys()]).toEqual(['a', 'b'])
    expect(held.answeredAt).toBe(answeredAt)
    // The next flush records both and marks them answered, once.
    expect(await recordFound(store, held, undefined, answeredAt)).toBe(true)
    expect(store.message('a')).toMatchObject({ state: 'recorded', seq: log.userIndex('a') + 1, answeredSeq: answeredAt })
    expect(store.message('b')).toMatchObject({ state: 'recorded', seq: log.userIndex('b') + 1, answeredSeq: answeredAt })
    expect(held.found.size).toBe(0)
    expect(held.answeredAt).toBeUndefined()
  })

  it('after a turn that failed, what it took goes back in front of what it left parked, and the agent is woken', async () => {
    const { log, resume } = rc8Session('s')
    const agent = resume()
    const { store, claimed } = holding('s', ['first', 'second'])
    const held = heldSession([])
    for (const id of admitClaimed(store, agent, held, claimed, noLog)) held.awaiting.add(id)
    agent.step() // turn 1 claims `first`; `second` waits in next-turn
    agent.fail() // the turn ends `error`: rc.8 starts no driver after it, `second` stays parked
    expect(agent.status).toBe('idle')
    settle(store, agent, held)
    expect(store.message('first')?.state).toBe('pending')
    expect(store.message('second')?.state).toBe('claimed')
    const again = admitClaimed(store, agent, held, store.claim('s'), noLog)
    expect(again).toEqual(['first'])
    for (const id of again) held.awaiting.add(id) // as Holdings.drainNow does
    expect(agent.inbox.nextTurn.map(each => each.id)).toEqual(['first', 'second'])
    expect(agent.status).toBe('running') // woken by the notice, which rides with `first`
    while (agent.step()) settle(store, agent, held)
    expect(log.events.filter(each => each.type === 'user/message').map(each => each.data.id)).toEqual([expect.stringMatching(/^cross-session:notice:/), 'first', 'second'])
    await recordFound(store, held)
    expect(store.message('first')?.state).toBe('recorded')
    expect(held.awaiting.has('first')).toBe(false)
  })
})

describe('the runtime records a message only once its log is on disk', () => {
  const cleanups: Array<() => void> = []
  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup()
  })

  /** A store, and a `HomeRuntime` on it (not started: no tick runs behind the test's back) whose `flush` resolves when the test says so. */
  function runtimeOn(home: string, pid: number) {
    const store = openHomeStore(home, { pid, start: 1 }, () => true)
    const watch = new StoreWatch(store, storePaths(home).dir)
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
      store.close()
    })
    return { store, runtime, live, flushes, logged }
  }
  function freshHome(): string {
    const home = mkdtempSync(join(tmpdir(), 'xs-flush-'))
    cleanups.push(() => rmSync(home, { recursive: true, force: true }))
    return home
  }
  const post = (store: HomeStore, messageId: string) => store.post({ messageId, target: 's', sender: 'session-from', hop: 1, mode: 'queue', text: messageId, mayWake: true })
  /** Let the flush's continuation run (`await` in `Holdings.persistFound`). */
  const settled = () => new Promise(resolve => setImmediate(resolve))

  /** A runtime (process start time `start`) holding live session `s`, with message `m` claimed and admitted. */
  async function heldWithMessage(start: number) {
    const { store, runtime, live, flushes, logged } = runtimeOn(freshHome(), start)
    const { log, resume } = rc8Session('s')
    const agent = resume()
    live.set('s', agent)
    runtime.track(agent)
    post(store, 'm')
    await runtime.drain('s')
    return { store, runtime, live, flushes, logged, log, agent }
  }

  it('settle → flush → recordFound: recorded only after `sessions.flush` resolved; what is found meanwhile goes with the next flush', async () => {
    const { store, runtime, flushes, logged, log, agent } = await heldWithMessage(401)
    agent.step() // turn 1 claims `m`
    agent.step() // and appends its user/message
    runtime.onSessionEvent('s') // rc.8 `session/event`: found, and a flush asked for
    expect(flushes.map(flush => flush.agent)).toEqual([agent])
    expect(store.message('m')?.state).toBe('claimed')
    await settled()
    expect(store.message('m')?.state).toBe('claimed') // still: the flush has not resolved

    post(store, 'n')
    await runtime.drain('s')
    while (agent.step()) runtime.onSessionEvent('s') // turn 1 ends, turn 2 takes `n` and appends it
    expect(log.userIndex('n')).toBeGreaterThan(0)
    expect(flushes).toHaveLength(1) // one flush at a time per session
    expect(store.message('n')?.state).toBe('claimed')

    flushes[0]!.resolve()
    await settled()
    expect(store.message('m')).toMatchObject({ state: 'recorded', seq: log.userIndex('m') + 1 })
    expect(store.message('n')?.state).toBe('claimed') // found during the first flush: it waits for its own
    expect(flushes).toHaveLength(2)
    flushes[1]!.resolve()
    await settled()
    expect(store.message('n')).toMatchObject({ state: 'recorded', seq: log.userIndex('n') + 1 })
    expect(logged).toEqual([])
  })

  it('a rejected flush records nothing; the next look at the log flushes again', async () => {
    const { store, runtime, flushes, logged, log, agent } = await heldWithMessage(402)
    while (agent.step()) runtime.onSessionEvent('s')
    flushes[0]!.reject(new Error('disk full'))
    await settled()
    expect(store.message('m')?.state).toBe('claimed')
    expect(logged.join('\n')).toContain('disk full')
    runtime.onSessionEvent('s') // the tick's scan: nothing new in the log, but `m` is still found
    expect(flushes).toHaveLength(2)
    flushes[1]!.resolve()
    await settled()
    expect(store.message('m')).toMatchObject({ state: 'recorded', seq: log.userIndex('m') + 1 })
  })

  it('a session let go before its flush resolved records nothing there: the message returns to pending and its next holder records it from the log', async () => {
    const home = freshHome()
    const first = runtimeOn(home, 403)
    const { log, broken, resume } = rc8Session('s')
    const agent = resume()
    first.live.set('s', agent)
    first.runtime.track(agent)
    post(first.store, 'm')
    await first.runtime.drain('s')
    while (agent.step()) first.runtime.onSessionEvent('s')
    expect(first.flushes).toHaveLength(1)
    // rc.8 disposes the agent: `agent/disposed` (the registry no longer lists it), then its log is drained to disk.
    agent.dispose()
    first.live.delete('s')
    first.runtime.untrack('s')
    expect(first.store.message('m')?.state).toBe('pending')
    first.flushes[0]!.resolve()
    await settled()
    expect(first.store.message('m')?.state).toBe('pending') // the late flush cannot record what this process no longer claims

    const second = runtimeOn(home, 404)
    const again = resume()
    second.live.set('s', again)
    second.runtime.track(again)
    await second.runtime.drain('s') // the log shows `m` in the conversation: found, not delivered again
    expect(second.store.message('m')?.state).toBe('claimed')
    expect(second.flushes).toHaveLength(1)
    second.flushes[0]!.resolve()
    await settled()
    expect(second.store.message('m')).toMatchObject({ state: 'recorded', seq: log.userIndex('m') + 1 })
    expect(log.events.filter(each => each.type === 'user/message').map(each => each.data.id)).toEqual(['m'])
    expect(broken).toEqual([])
  })
})
