/**
 * Unit tests of the cross-process modules (issue 8): the pure decisions, and
 * the file operations on a temporary home (real files, real rename/link
 * semantics; a real second process where liveness matters).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useOtherProcess } from '../support/other-process.js'
import { acquireLease, blocksWake, claim, claimable, deliveryReasons, ensureLayout, isAlive, isSafeSessionId, judgeAlive, judgeLease, judgePresence, layoutOf, listMailbox, liveElsewhere, MALFORMED_LEASE_GRACE_MS, markElsewhere, MAX_MESSAGE_BYTES, newMessageId, OPEN_TURN_RECENT_MS, openTurnAgeMs, parseLease, parseMailboxName, parseMessage, parsePresenceName, parseReceipt, parseStartTime, parseTag, postMessage, presenceName, PresencePublisher, readBoard, readBounded, renderRemoteTail, resolveHome, selfTag, type MailboxMessage, type SessionQueryPort } from '../../src/testing.js'

function tempLayout() {
  const layout = layoutOf(mkdtempSync(join(tmpdir(), 'xs-home-')))
  ensureLayout(layout)
  return layout
}

/** A real other process, alive until killed. */
const otherTag = useOtherProcess()

function message(sessionId: string, overrides: Partial<MailboxMessage> = {}): MailboxMessage {
  return { v: 1, messageId: newMessageId(), sessionId, requestId: `cross-session:s-from:${Math.random()}`, fromSessionId: 's-from', hop: 1, mode: 'queue', text: 'hello', createdAt: Date.now(), ...overrides }
}

describe('paths and process tags', () => {
  it('resolves DSH_HOME like the harness: env unless blank, else ~/.dsh', () => {
    expect(resolveHome({ DSH_HOME: '/x/home' })).toBe('/x/home')
    expect(resolveHome({ DSH_HOME: '   ' })).toMatch(/\.dsh$/)
    expect(resolveHome({})).toMatch(/\.dsh$/)
  })
  it('accepts harness session ids and refuses path syntax', () => {
    expect(isSafeSessionId('session-6a2d0c3e-1b2f-4c55-9d2a-0f7e2a1b9c11')).toBe(true)
    expect(isSafeSessionId('6a2d0c3e-1b2f-4c55-9d2a-0f7e2a1b9c11')).toBe(true)
    for (const bad of ['', '../x', 'a/b', 'a~b', 'a@b', '.hidden', 'a..b']) expect(isSafeSessionId(bad)).toBe(false)
    expect(parseTag('12.345')).toEqual({ pid: 12, start: 345 })
    expect(parseTag('0.1')).toBeUndefined()
    expect(parseTag('12')).toBeUndefined()
  })
  it('reads field 22 of /proc/<pid>/stat even when the name holds spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, index) => String(index + 3))
    expect(parseStartTime(`42 (a) b (c) ${fields.join(' ')}`)).toBe(22)
    expect(parseStartTime('garbage')).toBeUndefined()
  })
  it('a tag is alive only with its own start time (pids are reused)', () => {
    expect(judgeAlive({ pid: 5, start: 100 }, { signal: 'alive', start: 100 })).toBe(true)
    expect(judgeAlive({ pid: 5, start: 100 }, { signal: 'alive', start: 101 })).toBe(false)
    expect(judgeAlive({ pid: 5, start: 100 }, { signal: 'dead', start: undefined })).toBe(false)
    expect(judgeAlive({ pid: 5, start: 0 }, { signal: 'alive', start: 7 })).toBe(true)
    expect(isAlive(selfTag())).toBe(true)
    expect(isAlive(otherTag)).toBe(true)
    expect(isAlive({ pid: otherTag.pid, start: otherTag.start + 1 })).toBe(false)
  })
})

describe('presence', () => {
  it('names carry session and process; one directory read gives the board', () => {
    const name = presenceName('session-a', { pid: 10, start: 20 })
    expect(parsePresenceName(name)).toEqual({ sessionId: 'session-a', holder: { pid: 10, start: 20 }, name })
    expect(parsePresenceName('.tmp-x')).toBeUndefined()
    expect(parsePresenceName('a/b@1.2')).toBeUndefined()
  })
  it('judges entries: self skipped, living others live, dead ones stale', () => {
    const self = { pid: 1, start: 1 }
    const entries = [
      { sessionId: 'mine', holder: self, name: 'mine@1.1' },
      { sessionId: 'there', holder: { pid: 2, start: 2 }, name: 'there@2.2' },
      { sessionId: 'gone', holder: { pid: 3, start: 3 }, name: 'gone@3.3' },
    ]
    const { elsewhere, stale } = judgePresence(entries, self, tag => tag.pid === 2)
    expect([...elsewhere.keys()]).toEqual(['there'])
    expect(stale.map(entry => entry.sessionId)).toEqual(['gone'])
  })
  it('publishes and withdraws its own entries; another living process reads as elsewhere', () => {
    const layout = tempLayout()
    const mine = new PresencePublisher(layout.presence, selfTag())
    mine.publish('session-a')
    mine.publish('session-a')
    mine.publish('bad/id')
    const theirs = new PresencePublisher(layout.presence, otherTag)
    theirs.publish('session-b')
    writeFileSync(join(layout.presence, presenceName('session-c', { pid: otherTag.pid, start: otherTag.start + 9 })), '')
    expect(readBoard(layout.presence)).toHaveLength(3)
    const elsewhere = liveElsewhere(layout.presence, selfTag(), isAlive)
    expect([...elsewhere.keys()]).toEqual(['session-b'])
    expect(readBoard(layout.presence)).toHaveLength(2) // the reused-pid entry was removed
    mine.withdrawAll()
    expect(readBoard(layout.presence).map(entry => entry.sessionId)).toEqual(['session-b'])
  })
  it('refuses a layout directory that is a symlink', () => {
    const base = mkdtempSync(join(tmpdir(), 'xs-home-'))
    const layout = layoutOf(base)
    ensureLayout(layout)
    const evil = layoutOf(mkdtempSync(join(tmpdir(), 'xs-home-')))
    ensureLayout({ ...evil, presence: evil.root, leases: evil.root, mailbox: evil.root, receipts: evil.root })
    symlinkSync(layout.presence, join(evil.root, 'presence'))
    expect(() => ensureLayout(evil)).toThrow(/not a plain directory/)
  })
})

describe('wake lease', () => {
  it('parses and judges records', () => {
    expect(parseLease('{"pid":1,"start":2,"nonce":"n","at":3}')).toEqual({ pid: 1, start: 2, nonce: 'n', at: 3 })
    expect(parseLease('{')).toBeUndefined()
    expect(judgeLease(undefined, 0, () => true)).toBe('held')
    expect(judgeLease(undefined, MALFORMED_LEASE_GRACE_MS + 1, () => true)).toBe('stale')
    expect(judgeLease({ pid: 1, start: 2, nonce: 'n', at: 3 }, 0, () => false)).toBe('stale')
  })
  it('one holder at a time; another living holder blocks; release frees it', () => {
    const layout = tempLayout()
    const first = acquireLease(layout.leases, 'session-a', otherTag, isAlive)
    expect(first.ok).toBe(true)
    const second = acquireLease(layout.leases, 'session-a', selfTag(), isAlive)
    expect(second).toEqual({ ok: false, holder: otherTag })
    if (first.ok) first.lease.release()
    const third = acquireLease(layout.leases, 'session-a', selfTag(), isAlive)
    expect(third.ok).toBe(true)
    const mineAgain = acquireLease(layout.leases, 'session-a', selfTag(), isAlive)
    expect(mineAgain).toEqual({ ok: false, holder: selfTag() })
  })
  it('takes over a lease whose holder died, and an old release never removes the new lease', () => {
    const layout = tempLayout()
    const dead = { pid: otherTag.pid, start: otherTag.start + 1 }
    const stale = acquireLease(layout.leases, 'session-a', dead, isAlive)
    expect(stale.ok).toBe(true)
    const taken = acquireLease(layout.leases, 'session-a', selfTag(), isAlive)
    expect(taken.ok).toBe(true)
    if (stale.ok) stale.lease.release()
    expect(existsSync(join(layout.leases, 'session-a.lease'))).toBe(true)
    expect(JSON.parse(readFileSync(join(layout.leases, 'session-a.lease'), 'utf8')).pid).toBe(process.pid)
    expect(readdirSync(layout.leases)).toEqual(['session-a.lease'])
  })
})

describe('mailbox', () => {
  it('posts atomically (0600), lists in posting order, claims exactly once', () => {
    const layout = tempLayout()
    const first = message('session-a', { messageId: newMessageId(1000) })
    const second = message('session-a', { messageId: newMessageId(2000) })
    postMessage(layout.mailbox, second)
    postMessage(layout.mailbox, first)
    postMessage(layout.mailbox, message('session-b'))
    const entries = listMailbox(layout.mailbox).filter(entry => entry.sessionId === 'session-a')
    expect(entries.map(entry => entry.messageId)).toEqual([first.messageId, second.messageId])
    expect(readdirSync(layout.mailbox).some(name => name.startsWith('.tmp-'))).toBe(false)
    const claimedOnce = claim(layout.mailbox, entries[0]!, selfTag())
    const claimedTwice = claim(layout.mailbox, entries[0]!, otherTag)
    expect(claimedOnce).toBeDefined()
    expect(claimedTwice).toBeUndefined()
    const parsed = parseMessage(readBounded(join(layout.mailbox, claimedOnce!)))
    expect(parsed).toEqual({ ok: true, message: first })
  })
  it('claims again only what a dead claimer left', () => {
    const entries = [
      parseMailboxName('s~0000000aa-01-aa.msg')!,
      parseMailboxName(`s~0000000ab-01-ab.claimed@${otherTag.pid}.${otherTag.start}`)!,
      parseMailboxName(`s~0000000ac-01-ac.claimed@${otherTag.pid}.${otherTag.start + 1}`)!,
      parseMailboxName('t~0000000ad-01-ad.msg')!,
    ]
    expect(claimable(entries, 's', isAlive).map(entry => entry.messageId)).toEqual(['0000000aa-01-aa', '0000000ac-01-ac'])
  })
  it('validates what it reads: schema, JSON, size, no symlinks', () => {
    const layout = tempLayout()
    expect(parseMessage('{"v":2}')).toEqual({ ok: false, reason: 'the message file does not match the mailbox schema' })
    expect(parseMessage('nope').ok).toBe(false)
    expect(parseMessage(undefined).ok).toBe(false)
    writeFileSync(join(layout.root, 'target.json'), JSON.stringify(message('s')))
    symlinkSync(join(layout.root, 'target.json'), join(layout.mailbox, 'link.json'))
    expect(readBounded(join(layout.mailbox, 'link.json'))).toBeUndefined()
    writeFileSync(join(layout.mailbox, 'big.json'), 'x'.repeat(MAX_MESSAGE_BYTES + 1))
    expect(readBounded(join(layout.mailbox, 'big.json'))).toBeUndefined()
    expect(() => postMessage(layout.mailbox, message('s', { text: 'x'.repeat(MAX_MESSAGE_BYTES) }))).toThrow(/larger than the mailbox bound/)
    expect(parseReceipt('{"v":1,"messageId":"m","stage":"conversation","seq":3,"running":false,"at":1}')?.seq).toBe(3)
    expect(parseReceipt('{"v":1,"messageId":"m","stage":"bogus","running":false,"at":1}')).toBeUndefined()
  })
})

describe('open turns', () => {
  const now = 1_000_000_000
  it('finds a log ending in an open turn and how long ago it last wrote', () => {
    expect(openTurnAgeMs([{ type: 'turn/start', time: now - 50 }, { type: 'step/start', time: now - 10 }], now)).toBe(10)
    expect(openTurnAgeMs([{ type: 'turn/start', time: 1 }, { type: 'turn/end', time: 2 }], now)).toBeUndefined()
    expect(openTurnAgeMs([], now)).toBeUndefined()
  })
  it('blocks a wake only while recent and while no dead holder is known', () => {
    expect(blocksWake(1000, false)).toBe(true)
    expect(blocksWake(OPEN_TURN_RECENT_MS + 1, false)).toBe(false)
    expect(blocksWake(1000, true)).toBe(false)
    expect(blocksWake(undefined, false)).toBe(false)
    expect(deliveryReasons.openTurn(61_000)).toMatch(/still open \(last written 61 s ago\).*install dsh-cross-session in every dsh profile/)
  })
})

describe('texts and liveness marks', () => {
  it('says each mailbox outcome honestly', () => {
    const base = { pid: 42, mode: 'queue' as const, recordWaitMs: 5000, waitCancelled: false }
    expect(renderRemoteTail({ ...base, recorded: { seq: 7, stage: 'conversation', running: false } }).head).toBe(' | live in another dsh process (pid 42); delivered through the mailbox | recorded at seq 7')
    expect(renderRemoteTail({ ...base, recorded: { stage: 'claimed' } }).head).toContain('claimed by that process, not yet recorded after 5000 ms')
    const pending = renderRemoteTail({ ...base, recorded: { stage: 'pending' } })
    expect(pending.head).toContain('still pending in the mailbox after 5000 ms')
    expect(pending.body).toContain('before any newer message')
    expect(renderRemoteTail({ ...base, recorded: { stage: 'refused', reason: 'bad file' } }).head).toContain('refused by that process: bad file')
  })
  it('marks a row live elsewhere, never a row live here', () => {
    const elsewhere = new Map([['a', { holder: { pid: 9 } }]])
    const cold = { header: { id: 'a', createdAt: 1 }, live: false, persisted: true }
    expect(markElsewhere(cold, elsewhere)).toEqual({ ...cold, live: true, elsewhere: { pid: 9 } })
    const here = { ...cold, live: true }
    expect(markElsewhere(here, elsewhere)).toBe(here)
  })
})

describe('tools over a port that knows other processes', () => {
  it('list rows and the read header say live, marked with the other process', async () => {
    const { makeWorld, session } = await import('../support/fakes.js')
    const { sessionsList } = await import('../../src/testing.js')
    const { sessionsRead } = await import('../../src/testing.js')
    const w = makeWorld()
    const me = session('session-me', 2, { live: true })
    const peer = session('session-peer', 1, { live: false, events: [] })
    w.corpus.add(me).add(peer)
    const elsewhere = new Map([['session-peer', { holder: { pid: 4242 } }]])
    const inner = w.deps.sessions
    const sessions: SessionQueryPort = {
      listSessions: async signal => (await inner.listSessions(signal)).map(row => markElsewhere(row, elsewhere)),
      readTitles: (ids, signal) => inner.readTitles(ids, signal),
      readSurface: (id, signal) => inner.readSurface(id, signal),
      lookup: (id, signal) => inner.lookup(id, signal),
      isLive: id => inner.isLive(id) || elsewhere.has(id),
      liveElsewhere: id => (elsewhere.has(id) ? { pid: 4242 } : undefined),
    }
    const deps = { ...w.deps, sessions }
    const list = await sessionsList({}, w.call(me), deps)
    expect(list).toContain('- session-peer [live, top-level] | cwd=/work/project | preset=standard | live in another dsh process (pid 4242)')
    const read = await sessionsRead({ session_id: 'session-peer' }, w.call(me), deps)
    expect(read.split('\n').slice(0, 2)).toEqual([
      'session session-peer [live, top-level] | cwd=/work/project | preset=standard | live in another dsh process (pid 4242)',
      '(this reads its persisted log, which can trail the live session by the harness\'s write batch)',
    ])
  })
})

describe('sweep', () => {
  it('removes only old leftovers', async () => {
    const { sweepable, STALE_PRESENCE_SWEEP_MS, RECEIPT_SWEEP_MS } = await import('../../src/testing.js')
    expect(sweepable('presence-stale', STALE_PRESENCE_SWEEP_MS + 1)).toBe(true)
    expect(sweepable('presence-stale', 1000)).toBe(false)
    expect(sweepable('receipt', RECEIPT_SWEEP_MS + 1)).toBe(true)
    expect(sweepable('receipt', 1000)).toBe(false)
    expect(sweepable('temp', 2 * 60 * 60_000)).toBe(true)
  })
})
