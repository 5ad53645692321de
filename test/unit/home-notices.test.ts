/**
 * Notices (docs/tools.md#notices, docs/architecture.md §8 "Notices"): the
 * store's watch transitions on a real SQLite file with several simulated
 * processes (one notice per message, the drops in their order, expiry,
 * sweep, a deleted sender), the holder's pure reading of the watched turn
 * from an rc.8-shaped log, the notice text, and the loop bound (a notice
 * counts towards the hop limit, so a ping-pong of notified sends ends).
 *
 * @module test/unit/home-notices
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  NOTICE_EXCERPT_CHARS, NOTICE_INTRO, ORPHAN_LOOK_MS, OrphanWatches, RETAIN_MS, fireEndedWatches, latestRelay, noticeIdOf, noticeOutcome, noticeText, openHomeStore, outgoingHop, relaySource, watchedTurn,
  type HomeStore, type HostAgent, type NewWatch, type ProcessTag,
} from '../../src/testing.js'

const dirs: string[] = []
const opened: HomeStore[] = []
afterEach(() => {
  for (const store of opened.splice(0)) store.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function processes(count = 2, now?: () => number) {
  const home = mkdtempSync(join(tmpdir(), 'xs-notice-'))
  dirs.push(home)
  const dead = new Set<number>()
  const alive = (tag: ProcessTag): boolean => !dead.has(tag.pid)
  const stores = Array.from({ length: count }, (_, index) => {
    const store = openHomeStore(home, { pid: 201 + index, start: 3 }, alive, undefined, now)
    opened.push(store)
    return store
  })
  return { dead, stores: stores as HomeStore[] as [HomeStore, HomeStore] }
}

let counter = 0
function watch(overrides: Partial<NewWatch> = {}): NewWatch {
  return { messageId: `cross-session:A:w${++counter}`, sender: 'session-A', target: 'session-B', hop: 1, mayWake: true, maxHops: 4, perMinute: 6, expiresAt: Date.now() + 60_000, ...overrides }
}
const ended = { turnEndSeq: 30, outcome: 'completed' as const, answeredBySend: false, text: 'the notice' }

describe('the watch transitions', () => {
  it('one watch per message; the turn end posts exactly one notice, from the target to the sender at hop + 1', () => {
    const { stores: [a, b] } = processes()
    const w = watch()
    expect(a.watch(w).state).toBe('watching')
    expect(a.watch({ ...w, hop: 3 }).hop).toBe(1)
    expect(b.watchedTargets()).toEqual(new Set(['session-B']))
    expect(b.watchesOf('session-B').map(x => x.messageId)).toEqual([w.messageId])
    const fired = b.fireWatch(w.messageId, ended)
    expect(fired).toMatchObject({ state: 'noticed', noticeId: noticeIdOf(w.messageId), turnEndSeq: 30, outcome: 'completed' })
    // A second look (another holder, a retry after a crash) posts nothing.
    expect(a.fireWatch(w.messageId, { ...ended, turnEndSeq: 40 })).toMatchObject({ state: 'noticed', turnEndSeq: 30 })
    expect(a.waiting()).toEqual(new Set(['session-A']))
    expect(a.message(noticeIdOf(w.messageId))).toMatchObject({ sender: 'session-B', target: 'session-A', hop: 2, mode: 'queue', text: 'the notice', mayWake: true, state: 'pending', notice: 'completed', expiresAt: w.expiresAt })
    expect(b.watchedTargets()).toEqual(new Set())
  })

  it('a notice never asks for a notice: the notice is a message row and registers no watch', () => {
    const { stores: [a] } = processes()
    const w = watch()
    a.watch(w)
    a.fireWatch(w.messageId, ended)
    expect(a.watchOf(noticeIdOf(w.messageId))).toBeUndefined()
    expect(a.watchedTargets()).toEqual(new Set())
  })

  it.each([
    ['answered-by-send', {}, { answeredBySend: true }],
    ['hop-limit', { hop: 4, maxHops: 4 }, {}],
    ['expired', { expiresAt: Date.now() - 1 }, {}],
  ] as const)('drops without a notice when %s', (reason, overrides, endedOverrides) => {
    const { stores: [a] } = processes()
    const w = watch(overrides)
    a.watch(w)
    expect(a.fireWatch(w.messageId, { ...ended, ...endedOverrides })).toMatchObject({ state: 'dropped', reason })
    expect(a.message(noticeIdOf(w.messageId))).toBeUndefined()
  })

  it('counts notices towards the pair rate of target → sender', () => {
    const { stores: [a] } = processes()
    const watches = Array.from({ length: 3 }, () => watch({ perMinute: 2 }))
    for (const w of watches) a.watch(w)
    expect(watches.map(w => a.fireWatch(w.messageId, ended)?.state)).toEqual(['noticed', 'noticed', 'dropped'])
    expect(a.watchOf(watches[2]!.messageId)?.reason).toBe('pair-rate')
  })

  it('a notice expires: not claimed after its expiry, and the sweep expires watches and waiting notices', () => {
    let now = 1_000_000
    const { stores: [a, b] } = processes(2, () => now)
    const early = watch({ expiresAt: now + 1000 })
    const never = watch({ expiresAt: now + 1000, target: 'session-C' })
    a.watch(early)
    a.watch(never)
    b.fireWatch(early.messageId, ended)
    expect(b.adoptable()).toEqual(['session-A'])
    now += 2000
    // Nobody wakes the sender for an expired notice.
    expect(b.adoptable()).toEqual([])
    expect(a.markLive('session-A').ok).toBe(true)
    expect(a.claim('session-A')).toEqual([])
    expect(a.message(noticeIdOf(early.messageId))).toMatchObject({ state: 'refused', reason: 'expired' })
    a.sweep(now, RETAIN_MS)
    expect(a.watchOf(never.messageId)).toMatchObject({ state: 'dropped', reason: 'expired' })
    a.sweep(now + RETAIN_MS + 1, RETAIN_MS)
    expect(a.watchOf(never.messageId)).toBeUndefined()
  })

  it('a deleted sender: its watches are dropped with the messages refused for it', () => {
    const { stores: [a, b] } = processes()
    const w = watch()
    a.watch(w)
    expect(b.refuseWaiting('session-A', 'target-gone')).toBe(0)
    expect(a.watchOf(w.messageId)).toMatchObject({ state: 'dropped', reason: 'sender-gone' })
  })

  it('a deleted target: the watches on it are dropped with the messages refused for it (no turn of it will end)', () => {
    const { stores: [a, b] } = processes()
    const w = watch()
    a.watch(w)
    b.refuseWaiting('session-B', 'target-gone')
    expect(a.watchOf(w.messageId)).toMatchObject({ state: 'dropped', reason: 'target-gone' })
    expect(a.watchedTargets()).toEqual(new Set())
  })

  it('unwatch withdraws a watch whose send was not accepted', () => {
    const { stores: [a] } = processes()
    const w = watch()
    a.watch(w)
    a.unwatch(w.messageId)
    expect(a.watchOf(w.messageId)).toBeUndefined()
    expect(a.watchedTargets()).toEqual(new Set())
  })
})

// rc.8-shaped log events (`@deepseek-ai/dsh-session@0.1.0-rc.8` lib/types/types.d.ts).
const user = (seq: number, id: string, text = 'q') => ({ seq, type: 'user/message', data: { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } } })
const assistant = (seq: number, text: string, blocks: unknown[] = []) => ({ seq, type: 'assistant/message', data: { turn: 1, step: 1, message: { role: 'assistant', content: [{ type: 'text', text }, ...blocks] } } })
const toolResult = (seq: number, callId: string, text: string) => ({ seq, type: 'tool/result', data: { message: { role: 'user', content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }] }] } } })
const turnEnd = (seq: number, kind: string) => ({ seq, type: 'turn/end', data: { turn: 1, reason: { kind } } })
const turnStart = (seq: number) => ({ seq, type: 'turn/start', data: { turn: 1 } })

describe('the watched turn, read from the log', () => {
  it('is the first turn end after the message; the last answer and how it ended', () => {
    const events = [turnStart(1), user(2, 'm'), assistant(3, 'first'), assistant(4, 'final answer'), turnEnd(5, 'completed'), user(6, 'x'), turnEnd(7, 'error')]
    expect(watchedTurn(events, 'm')).toEqual({ messageSeq: 2, turnEndSeq: 5, reason: 'completed', lastAnswer: 'final answer', sentTo: new Set() })
    expect(watchedTurn(events.slice(0, 4), 'm')).toBeUndefined()
    expect(watchedTurn(events, 'never')).toBeUndefined()
  })

  it('maps rc.8 turn end reasons to completed, failed, interrupted', () => {
    expect(['completed', 'max-tokens', 'aborted', 'interrupted', 'error', 'blocked', 'new-kind'].map(noticeOutcome))
      .toEqual(['completed', 'completed', 'interrupted', 'interrupted', 'failed', 'failed', 'failed'])
  })

  it('sees an accepted sessions_send to the sender in that turn (then no notice), not a refused one', () => {
    const call = (id: string, to: string) => ({ type: 'tool-call', id, name: 'sessions_send', arguments: JSON.stringify({ session_id: to, message: 'hi' }) })
    const events = [user(1, 'm'), assistant(2, '', [call('c1', 'session-A'), call('c2', 'session-Z')]), toolResult(3, 'c1', 'accepted for session-A | mode=queue'), toolResult(4, 'c2', 'refused: not-found | …'), turnEnd(5, 'completed')]
    expect(watchedTurn(events, 'm')?.sentTo).toEqual(new Set(['session-A']))
  })

  it('the notice text: package intro, outcome, the answer cut visibly at the excerpt length, the exact read call', () => {
    const w = { ...watch(), state: 'watching' as const, createdAt: 0 }
    const text = noticeText(w, { messageSeq: 22, turnEndSeq: 27, reason: 'completed', lastAnswer: '😀'.repeat(NOTICE_EXCERPT_CHARS + 50), sentTo: new Set(), title: 'Fix "it"' })
    const lines = text.split('\n')
    expect(lines[0]).toBe(NOTICE_INTRO)
    expect(lines[1]).toBe('from-session: session-B ("Fix \\"it\\"")')
    expect(lines[2]).toBe('turn: completed | it took your message at seq 22 and ended at seq 27 | hop 2')
    expect(lines[3]).toMatch(/^--- answer begins [0-9A-Za-z]{12} ---$/)
    expect(lines[4]).toBe(`${'😀'.repeat(NOTICE_EXCERPT_CHARS)}…[truncated 50 chars]`)
    expect(lines[6]).toBe('Read the rest: sessions_read {"session_id":"session-B","after_seq":22}')
    expect(noticeText(w, { messageSeq: 1, turnEndSeq: 2, reason: 'error', sentTo: new Set() })).toContain('turn: failed |')
  })

  it('the excerpt is peer text: control characters become U+FFFD, as in a read (docs/tools.md#sessions_read)', () => {
    const w = { ...watch(), state: 'watching' as const, createdAt: 0 }
    const text = noticeText(w, { messageSeq: 1, turnEndSeq: 2, reason: 'completed', lastAnswer: 'red \u001b[31mALERT\u001b[0m\u0000 done\r\nnext', sentTo: new Set() })
    expect(text.split('\n').slice(4, 6)).toEqual(['red \uFFFD[31mALERT\uFFFD[0m\uFFFD done', 'next'])
  })

  it('fireEndedWatches posts what the holder reads, once', () => {
    const { stores: [a] } = processes()
    const w = watch({ messageId: 'm' })
    a.watch(w)
    const agent = { id: 'session-B', session: { events: [user(1, 'm'), assistant(2, 'done'), turnEnd(3, 'completed')] } } as unknown as HostAgent
    expect(fireEndedWatches(a, agent)).toEqual(['session-A'])
    expect(fireEndedWatches(a, agent)).toEqual([])
    expect(a.message(noticeIdOf('m'))?.text).toContain('done')
  })
})

describe('a watched turn that ended under a holder that let the session go before looking', () => {
  // The holder (pid 201) ran the watched turn to its end on disk, then was SIGKILLed (or exited) before
  // fireEndedWatches; nothing wakes the target again, so no holder would ever look.
  function orphaned() {
    const { dead, stores: [holder, host] } = processes()
    const w = watch({ messageId: 'm' })
    holder.watch(w)
    expect(holder.markLive('session-B').ok).toBe(true)
    dead.add(201)
    const onDisk = [user(1, 'm'), assistant(2, 'done'), turnEnd(3, 'completed')]
    const reads: string[] = []
    const orphans = new OrphanWatches(host, async id => {
      reads.push(id)
      return onDisk
    }, () => undefined)
    return { holder, host, dead, reads, orphans, onDisk }
  }

  it('a long-lived host reads its log on disk and posts the one notice; nothing is woken', async () => {
    const { host, reads, orphans } = orphaned()
    let posted = 0
    await orphans.run(() => posted++, 1000)
    expect(reads).toEqual(['session-B'])
    expect(posted).toBe(1)
    expect(host.watchOf('m')).toMatchObject({ state: 'noticed', turnEndSeq: 3 })
    expect(host.message(noticeIdOf('m'))).toMatchObject({ sender: 'session-B', target: 'session-A', state: 'pending' })
    // Looked at once per ORPHAN_LOOK_MS, and not at all once nothing watches it.
    await orphans.run(() => posted++, 1000 + ORPHAN_LOOK_MS + 1)
    expect(reads).toEqual(['session-B'])
  })

  it('a session with a living holder is left to it; a turn not yet ended is looked at again later', async () => {
    const { host, dead, reads, orphans, onDisk } = orphaned()
    dead.delete(201)
    await orphans.run(() => undefined, 1000)
    expect(reads).toEqual([])
    dead.add(201)
    onDisk.pop()
    await orphans.run(() => undefined, 1000)
    expect(host.watchOf('m')?.state).toBe('watching')
    await orphans.run(() => undefined, 1000 + ORPHAN_LOOK_MS - 1)
    expect(reads).toEqual(['session-B'])
    // Each look that posts nothing doubles the wait (a watch whose message never arrived costs little).
    await orphans.run(() => undefined, 1000 + ORPHAN_LOOK_MS)
    await orphans.run(() => undefined, 1000 + ORPHAN_LOOK_MS + 2 * ORPHAN_LOOK_MS - 1)
    expect(reads).toEqual(['session-B', 'session-B'])
    onDisk.push(turnEnd(3, 'error'))
    await orphans.run(() => undefined, 1000 + 3 * ORPHAN_LOOK_MS)
    expect(reads).toEqual(['session-B', 'session-B', 'session-B'])
    expect(host.watchOf('m')).toMatchObject({ state: 'noticed', outcome: 'failed' })
  })

  it('a session whose log cannot be read (deleted) is logged once, not at every look', async () => {
    const { stores: [, host], dead } = processes()
    host.watch(watch({ messageId: 'gone', target: 'session-gone' }))
    dead.add(201)
    const logs: string[] = []
    const orphans = new OrphanWatches(host, async () => { throw new Error('not found') }, message => logs.push(message))
    for (let look = 0; look < 4; look++) await orphans.run(() => undefined, look * 3_600_000)
    expect(logs).toEqual(['reading the log of session-gone for its notices failed: Error: not found'])
    expect(host.watchOf('gone')?.state).toBe('watching')
  })
})

describe('the loop bound', () => {
  it('a ping-pong of notified sends ends at maxHops: each notice is one hop, and the send it starts is the next', () => {
    const { stores: [a] } = processes()
    const maxHops = 4
    let relay: { senderSessionId: string, hop: number } | undefined
    const hops: string[] = []
    for (let round = 0; round < 10; round++) {
      const { hop } = outgoingHop(relay)
      if (hop > maxHops) {
        hops.push(`send refused at hop ${hop}`)
        break
      }
      const [from, to] = round % 2 === 0 ? ['session-A', 'session-B'] : ['session-B', 'session-A']
      const w = watch({ sender: from, target: to, hop, maxHops })
      a.watch(w)
      const fired = a.fireWatch(w.messageId, ended)!
      if (fired.state !== 'noticed') {
        hops.push(`send hop ${hop}, notice dropped (${fired.reason})`)
        break
      }
      const notice = a.message(fired.noticeId!)!
      hops.push(`send hop ${hop}, notice hop ${notice.hop}`)
      // The notice starts the sender's next turn; its next send counts from the notice's recorded hop.
      relay = latestRelay([{ type: 'user/message', data: { id: notice.messageId, content: [{ type: 'text', text: notice.text }], source: relaySource({ senderSessionId: notice.sender, hop: notice.hop, notice: 'completed' }) } }])
    }
    expect(hops).toEqual(['send hop 1, notice hop 2', 'send hop 3, notice hop 4', 'send refused at hop 5'])
  })
})
