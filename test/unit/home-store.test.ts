/**
 * The home store (docs/architecture.md §8): every transition of
 * `SqliteHomeStore` against a real SQLite file in a temporary directory,
 * with two or three stores on separate connections standing for separate
 * `dsh` processes and an injected liveness probe (a process is dead once
 * its tag is in `dead`); and opening the store (`home/store-open.ts`):
 * modes, refused symlinks, a broken or foreign file moved aside.
 *
 * @module test/unit/home-store
 */
import { spawn } from 'node:child_process'
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_WAITING_PER_TARGET, openHomeStore, RETAIN_MS, retryStore, STORE_VERSION, storeFaultWhy, storePaths, type HomeStore, type NewMessage, type ProcessTag } from '../../src/testing.js'

const dirs: string[] = []
const opened: HomeStore[] = []
afterEach(() => {
  for (const store of opened.splice(0)) store.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'xs-store-'))
  dirs.push(home)
  return home
}

/** Stores on one home, one per simulated process (pid 101, 102, …), and the set that kills them. */
function processes(count = 3, home = tempHome()) {
  const dead = new Set<number>()
  const alive = (tag: ProcessTag): boolean => !dead.has(tag.pid)
  const stores = Array.from({ length: count }, (_, index) => {
    const store = openHomeStore(home, { pid: 101 + index, start: 7 }, alive)
    opened.push(store)
    return store
  })
  return { home, dead, stores: stores as HomeStore[] as [HomeStore, HomeStore, HomeStore] }
}

let counter = 0
function message(target: string, overrides: Partial<NewMessage> = {}): NewMessage {
  return { messageId: `m${++counter}`, target, sender: 'session-from', hop: 1, mode: 'queue', text: 'hello', mayWake: true, ...overrides }
}

function post(store: HomeStore, target: string, overrides: Partial<NewMessage> = {}): string {
  const posted = store.post(message(target, overrides))
  if (!posted.ok) throw new Error('post refused')
  return posted.message.messageId
}

describe('one holder', () => {
  it('acquire vs acquire: the first takes it, the second sees the living holder', () => {
    const { stores: [a, b] } = processes()
    expect(a.acquire('s')).toEqual({ ok: true, already: false })
    expect(b.acquire('s')).toEqual({ ok: false, holder: { tag: a.self, state: 'waking', woke: true } })
    expect(a.acquire('s')).toEqual({ ok: true, already: true })
    expect(b.view('s')).toEqual({ holder: { tag: a.self, state: 'waking', woke: true } })
    // The wake went through: live there, still marked as woken by it.
    expect(a.markLive('s')).toEqual({ ok: true, already: true })
    expect(b.view('s')).toEqual({ holder: { tag: a.self, state: 'live', woke: true } })
    expect(b.markLive('s')).toEqual({ ok: false, holder: { tag: a.self, state: 'live', woke: true } })
  })

  it('markLive (a user opened it) conflicts with another living holder, and is no wake', () => {
    const { stores: [a, b] } = processes()
    expect(a.markLive('s')).toEqual({ ok: true, already: false })
    expect(b.markLive('s')).toEqual({ ok: false, holder: { tag: a.self, state: 'live', woke: false } })
    expect(b.acquire('s')).toEqual({ ok: false, holder: { tag: a.self, state: 'live', woke: false } })
    // A live holder stays live when it acquires again.
    expect(a.acquire('s')).toEqual({ ok: true, already: true })
    expect(b.view('s').holder?.state).toBe('live')
  })

  it('a dead holder is replaced in the same transition, and its claims go back to pending', () => {
    const { dead, stores: [a, b, c] } = processes()
    a.markLive('s')
    const first = post(c, 's')
    const second = post(c, 's')
    expect(a.claim('s').map(claimed => claimed.messageId)).toEqual([first, second])
    dead.add(a.self.pid)
    // Nobody living holds it; the row still names the dead claimer until a holder is installed.
    expect(b.view('s')).toEqual({ lastLetGo: { how: 'died', pid: a.self.pid, at: undefined } })
    expect(b.message(first)).toMatchObject({ state: 'claimed', claimer: a.self })
    expect(b.acquire('s')).toEqual({ ok: true, already: false, previous: { how: 'died', pid: a.self.pid, at: undefined } })
    expect(b.message(first)).toMatchObject({ state: 'pending' })
    expect(b.message(first)?.claimer).toBeUndefined()
    expect(b.message(second)?.state).toBe('pending')
    expect(c.view('s')).toEqual({ holder: { tag: b.self, state: 'waking', woke: true } })
    b.markLive('s')
    expect(b.claim('s').map(claimed => claimed.messageId)).toEqual([first, second])
  })

  it('the board lists sessions held by other living processes; a view says how a gone holder let go', () => {
    const { dead, stores: [a, b, c] } = processes()
    a.markLive('live-in-a')
    a.markLive('dies-with-a')
    b.acquire('waking-in-b')
    b.markLive('released-by-b')
    b.release('released-by-b', 'released')
    c.markLive('mine')
    dead.add(a.self.pid)
    a.release('live-in-a', 'released') // a dead process's connection can still commit; its row is judged by the probe, not by this
    const board = c.board()
    expect([...board.elsewhere.keys()]).toEqual(['waking-in-b'])
    expect(board.elsewhere.get('waking-in-b')).toEqual({ tag: b.self, state: 'waking', woke: true })
    // How each gone holder let go is read per session.
    expect(Object.fromEntries(['dies-with-a', 'live-in-a', 'released-by-b', 'waking-in-b', 'mine'].map(id => [id, c.view(id).lastLetGo?.how]))).toEqual({ 'dies-with-a': 'died', 'live-in-a': 'released', 'released-by-b': 'released', 'waking-in-b': undefined, 'mine': undefined })
  })

  it('the long-lived host is the first living one to join, never this process', () => {
    const { dead, stores: [a, b, c] } = processes()
    c.join(false)
    a.join(true)
    b.join(true)
    expect(c.longLivedHost()).toEqual(a.self)
    expect(a.longLivedHost()).toEqual(b.self)
    dead.add(a.self.pid)
    expect(c.longLivedHost()).toEqual(b.self)
    b.leave('exited')
    expect(c.longLivedHost()).toBeUndefined()
  })
})

describe('how a holder let go', () => {
  it('released and exited keep the pid and the time; died has no time', () => {
    const { dead, stores: [a, b, c] } = processes()
    const before = Date.now()
    a.markLive('s1')
    a.release('s1', 'released')
    const released = c.view('s1').lastLetGo
    expect(released).toMatchObject({ how: 'released', pid: a.self.pid })
    expect(released?.at).toBeGreaterThanOrEqual(before)
    b.markLive('s2')
    b.leave('exited')
    expect(c.view('s2').lastLetGo).toMatchObject({ how: 'exited', pid: b.self.pid })
    a.markLive('s3')
    dead.add(a.self.pid)
    expect(c.view('s3').lastLetGo).toEqual({ how: 'died', pid: a.self.pid, at: undefined })
    // The next holder learns it once, with the hold.
    expect(c.acquire('s1')).toMatchObject({ ok: true, already: false, previous: { how: 'released', pid: a.self.pid } })
    expect(c.view('s1')).toEqual({ holder: { tag: c.self, state: 'waking', woke: true } })
  })

  it('wake-failed keeps what the row knew of the holder before (nothing was written to the log)', () => {
    const { dead, stores: [a, b, c] } = processes()
    a.markLive('s')
    a.release('s', 'released')
    const byA = c.view('s').lastLetGo
    expect(b.acquire('s')).toMatchObject({ ok: true, previous: byA })
    b.release('s', 'wake-failed')
    expect(c.view('s')).toEqual({ lastLetGo: byA })
    // Also after a death: the dead writer stays the one the next waker hears of.
    a.markLive('t')
    dead.add(a.self.pid)
    expect(b.acquire('t')).toMatchObject({ ok: true, previous: { how: 'died', pid: a.self.pid } })
    b.release('t', 'wake-failed')
    expect(c.view('t')).toEqual({ lastLetGo: { how: 'died', pid: a.self.pid, at: undefined } })
  })

  it('only the holder lets go; its claims on that session (only) return to pending', () => {
    const { stores: [a, b, c] } = processes()
    a.markLive('s')
    a.markLive('t')
    const onS = post(c, 's')
    const onT = post(c, 't')
    a.claim('s')
    a.claim('t')
    b.release('s', 'released')
    expect(c.view('s').holder?.tag).toEqual(a.self)
    expect(c.message(onS)?.state).toBe('claimed')
    a.release('s', 'released')
    expect(c.view('s').holder).toBeUndefined()
    expect(c.message(onS)?.state).toBe('pending')
    expect(c.message(onT)).toMatchObject({ state: 'claimed', claimer: a.self })
  })

  it('leave lets go of everything this process holds and returns all its claims', () => {
    const { stores: [a, b, c] } = processes()
    a.join(true)
    a.markLive('s')
    a.acquire('t')
    const claimedByA = post(c, 's')
    a.claim('s')
    b.markLive('u')
    const claimedByB = post(c, 'u')
    b.claim('u')
    a.leave('exited')
    expect(c.view('s').lastLetGo).toMatchObject({ how: 'exited', pid: a.self.pid })
    expect(c.view('t').lastLetGo).toMatchObject({ how: 'exited', pid: a.self.pid })
    expect(c.message(claimedByA)?.state).toBe('pending')
    expect(c.message(claimedByB)).toMatchObject({ state: 'claimed', claimer: b.self })
    expect(c.longLivedHost()).toBeUndefined()
    expect(a.heldHere()).toEqual([])
    expect(b.heldHere()).toEqual(['u'])
  })
})

describe('messages', () => {
  it('a post is idempotent by message id: a repeat returns the stored message unchanged', () => {
    const { stores: [a, b] } = processes()
    const first = a.post(message('s', { messageId: 'request-1', text: 'first text' }))
    expect(first).toMatchObject({ ok: true, duplicate: false, message: { messageId: 'request-1', state: 'pending', text: 'first text', mayWake: true, target: 's' } })
    const again = b.post(message('s', { messageId: 'request-1', text: 'retried text', mayWake: false }))
    expect(again).toEqual({ ok: true, duplicate: true, message: first.ok ? first.message : undefined })
  })

  it(`refuses a post once ${MAX_WAITING_PER_TARGET} wait for one target (pending or claimed), per target`, () => {
    const { stores: [a, b] } = processes()
    a.markLive('s')
    const ids = Array.from({ length: MAX_WAITING_PER_TARGET }, () => post(b, 's'))
    a.claim('s') // claimed ones still wait
    expect(b.post(message('s'))).toEqual({ ok: false, reason: 'full' })
    expect(b.post(message('other')).ok).toBe(true)
    // A repeated id is still answered (nothing new is stored).
    expect(b.post(message('s', { messageId: ids[0]! }))).toMatchObject({ ok: true, duplicate: true })
    a.record(ids[0]!, 3, false)
    expect(b.post(message('s')).ok).toBe(true)
  })

  it('only the live holder claims: not a waking one, not another process', () => {
    const { stores: [a, b, c] } = processes()
    const id = post(c, 's')
    expect(a.claim('s')).toEqual([])
    a.acquire('s')
    expect(a.claim('s')).toEqual([])
    expect(b.claim('s')).toEqual([])
    a.markLive('s')
    expect(b.claim('s')).toEqual([])
    expect(a.claim('s')).toMatchObject([{ messageId: id, state: 'claimed', claimer: a.self }])
    expect(c.message(id)).toMatchObject({ state: 'claimed', claimer: a.self })
  })

  it('claims come out in posting order, never this process\'s own claims again', () => {
    const { stores: [a, b, c] } = processes()
    a.markLive('s')
    const ids = [post(b, 's', { sender: 'x' }), post(c, 's', { sender: 'y' }), post(b, 's', { sender: 'x', mode: 'steer' }), post(c, 'other')]
    const claimed = a.claim('s')
    expect(claimed.map(each => each.messageId)).toEqual(ids.slice(0, 3))
    expect(claimed.map(each => each.order)).toEqual([...claimed.map(each => each.order)].sort((x, y) => x - y))
    const later = post(b, 's')
    expect(a.claim('s').map(each => each.messageId)).toEqual([later])
    expect(a.claim('s')).toEqual([])
  })

  it('record, unclaim and refuse act only on a claim of this process', () => {
    const { stores: [a, b, c] } = processes()
    a.markLive('s')
    const [recorded, unclaimed, refused] = [post(c, 's'), post(c, 's'), post(c, 's')]
    expect(a.record(recorded, 4, true)).toBe(false) // still pending
    a.claim('s')
    expect(b.record(recorded, 4, true)).toBe(false)
    b.unclaim(unclaimed)
    b.refuse(refused, 'misaddressed')
    expect(c.message(unclaimed)?.state).toBe('claimed')
    expect(c.message(refused)?.state).toBe('claimed')
    expect(a.record(recorded, 4, true)).toBe(true)
    expect(c.message(recorded)).toMatchObject({ state: 'recorded', seq: 4, running: true })
    expect(a.record(recorded, 9, false)).toBe(false) // recorded is final
    expect(c.message(recorded)?.seq).toBe(4)
    a.unclaim(unclaimed)
    expect(c.message(unclaimed)).toMatchObject({ state: 'pending' })
    expect(c.message(unclaimed)?.claimer).toBeUndefined()
    a.refuse(refused, 'misaddressed')
    expect(c.message(refused)).toMatchObject({ state: 'refused', reason: 'misaddressed' })
    a.unclaim(refused)
    expect(c.message(refused)?.state).toBe('refused')
    expect(c.waiting()).toEqual(new Set(['s']))
  })

  it('answered marks the recorded messages before a completed turn; takeUnanswered hands the rest over once', () => {
    const { stores: [a, b] } = processes()
    a.markLive('s')
    const [early, late, open] = [post(b, 's'), post(b, 's'), post(b, 's')]
    a.claim('s')
    a.record(early, 5, false)
    a.record(late, 9, true)
    a.record(open, 20, true)
    a.answered('s', 7)
    expect(b.message(early)?.answeredSeq).toBe(7)
    expect(b.message(late)?.answeredSeq).toBeUndefined()
    a.answered('s', 12)
    expect(b.message(early)?.answeredSeq).toBe(7)
    expect(b.message(late)?.answeredSeq).toBe(12)
    expect(a.takeUnanswered('s').map(each => each.messageId)).toEqual([open])
    expect(a.takeUnanswered('s')).toEqual([])
    expect(a.takeUnanswered('other')).toEqual([])
  })

  it('waiting lists targets with pending or claimed messages; adoptable those that may wake and have no living holder', () => {
    const { dead, stores: [a, b, c] } = processes()
    post(c, 'cold')
    post(c, 'no-wake', { mayWake: false })
    post(c, 'held-by-a')
    a.markLive('held-by-a')
    post(c, 'held-by-b')
    b.markLive('held-by-b')
    const done = post(c, 'done')
    a.markLive('done')
    a.claim('done')
    a.record(done, 1, false)
    a.release('done', 'released')
    expect(c.waiting()).toEqual(new Set(['cold', 'no-wake', 'held-by-a', 'held-by-b']))
    expect(new Set(c.adoptable())).toEqual(new Set(['cold']))
    b.claim('held-by-b')
    dead.add(b.self.pid)
    expect(new Set(c.adoptable())).toEqual(new Set(['cold', 'held-by-b']))
    expect(c.waiting()).toEqual(new Set(['cold', 'no-wake', 'held-by-a', 'held-by-b']))
  })

  it('heldHere names the sessions whose row names this process; unclaimAll returns only this process\'s claims', () => {
    const { stores: [a, b, c] } = processes()
    a.markLive('s1')
    a.acquire('s2')
    b.markLive('s3')
    expect(a.heldHere().sort()).toEqual(['s1', 's2'])
    expect(c.heldHere()).toEqual([])
    const mine = post(c, 's1')
    const theirs = post(c, 's3')
    a.claim('s1')
    b.claim('s3')
    a.unclaimAll()
    expect(c.message(mine)?.state).toBe('pending')
    expect(c.message(theirs)).toMatchObject({ state: 'claimed', claimer: b.self })
  })

  it('refuseWaiting refuses what waits for a target nobody living holds', () => {
    const { dead, stores: [a, b, c] } = processes()
    const [pending, claimed] = [post(c, 's'), post(c, 's')]
    a.markLive('s')
    a.claim('s')
    a.unclaim(pending)
    expect(c.refuseWaiting('s', 'target-gone')).toBe(0)
    dead.add(a.self.pid)
    expect(b.refuseWaiting('s', 'target-gone')).toBe(2)
    for (const id of [pending, claimed]) expect(c.message(id)).toMatchObject({ state: 'refused', reason: 'target-gone' })
    expect(c.waiting()).toEqual(new Set())
  })
})

describe('sweep, changes, size', () => {
  it('drops recorded and refused messages older than the retention, never a pending or claimed one, and rows of dead processes', () => {
    const { dead, stores: [a, b, c] } = processes()
    a.markLive('s')
    const [recorded, refused, claimed, pending] = [post(c, 's'), post(c, 's'), post(c, 's'), post(c, 's')]
    a.claim('s')
    a.unclaim(pending)
    a.record(recorded, 3, false)
    a.refuse(refused, 'misaddressed')
    b.join(true)
    expect(c.sweep(Date.now(), RETAIN_MS)).toBe(0)
    expect(c.message(recorded)?.state).toBe('recorded')
    dead.add(b.self.pid)
    const muchLater = Date.now() + 10 * RETAIN_MS
    expect(c.sweep(muchLater, RETAIN_MS)).toBe(2)
    expect(c.message(recorded)).toBeUndefined()
    expect(c.message(refused)).toBeUndefined()
    expect(c.message(claimed)?.state).toBe('claimed')
    expect(c.message(pending)?.state).toBe('pending')
    // b's row is gone: alive again (a reused pid), it is not a long-lived host until it joins.
    dead.delete(b.self.pid)
    expect(c.longLivedHost()).toBeUndefined()
    // A swept id is forgotten: posting it again stores it anew.
    expect(c.post(message('s', { messageId: recorded }))).toMatchObject({ ok: true, duplicate: false })
  })

  it('changed() says whether another connection committed since the last call (PRAGMA data_version)', () => {
    const { stores: [a, b] } = processes()
    b.changed()
    expect(b.changed()).toBe(false)
    post(a, 's')
    expect(b.changed()).toBe(true)
    expect(b.changed()).toBe(false)
    // Its own commits do not count: the runtime pokes its own listeners (home/store-watch.ts).
    post(b, 's')
    expect(b.changed()).toBe(false)
    a.view('s') // reads commit nothing
    expect(b.changed()).toBe(false)
  })

  it('bytes() counts the database and its WAL', () => {
    const { home, stores: [a] } = processes(1)
    post(a, 's', { text: 'x'.repeat(10_000) })
    const { file } = storePaths(home)
    expect(a.bytes()).toBe(statSync(file).size + statSync(`${file}-wal`).size)
    expect(a.bytes()).toBeGreaterThan(10_000)
  })
})

describe('opening the store', () => {
  it('creates the directory 0700 and the database 0600 (and SQLite its WAL and shared memory alike), in WAL mode', () => {
    const { home, stores: [a] } = processes(1)
    post(a, 's')
    const { dir, file } = storePaths(home)
    expect(lstatSync(dir).mode & 0o777).toBe(0o700)
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(lstatSync(path).mode & 0o777, path).toBe(0o600)
    const db = new DatabaseSync(file)
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    db.close()
  })

  it('refuses a symlink in place of the directory', () => {
    const home = tempHome()
    const elsewhere = tempHome()
    symlinkSync(elsewhere, join(home, 'cross-session'))
    expect(() => openHomeStore(home, { pid: 1, start: 1 }, () => true)).toThrow(/not a plain directory/)
    expect(readdirSync(elsewhere)).toEqual([])
  })

  it('refuses a symlink in place of the database file, and never writes through it', () => {
    const home = tempHome()
    const { dir, file } = storePaths(home)
    mkdirSync(dir, { mode: 0o700 })
    const target = join(tempHome(), 'victim')
    writeFileSync(target, 'keep me')
    symlinkSync(target, file)
    expect(() => openHomeStore(home, { pid: 1, start: 1 }, () => true)).toThrow(/is a symbolic link; refusing to use it/)
    expect(readFileSync(target, 'utf8')).toBe('keep me')
  })

  it('moves a file that is not a database aside, says so, and starts a working store', () => {
    const home = tempHome()
    const { dir, file } = storePaths(home)
    mkdirSync(dir, { mode: 0o700 })
    writeFileSync(file, 'not a database at all\n'.repeat(300))
    const logs: string[] = []
    const store = openHomeStore(home, { pid: 1, start: 1 }, () => true, line => logs.push(line))
    opened.push(store)
    expect(logs).toEqual([expect.stringMatching(/could not be read at all \(Error: file is not a database\); moved to .*store\.sqlite\.broken-\d+ and started a new one: the inbound choices, held and waiting messages it kept are lost/)])
    const aside = readdirSync(dir).filter(name => name.startsWith('store.sqlite.broken-'))
    expect(aside).toHaveLength(1)
    // Every process (and the web UI) can say so: the new store names the file moved aside.
    expect(store.rebuilt()).toEqual({ at: expect.any(Number), aside: join(dir, aside[0]!) })
    expect(readFileSync(join(dir, aside[0]!), 'utf8')).toMatch(/^not a database at all/)
    store.markLive('s')
    const id = post(store, 's')
    expect(store.claim('s').map(each => each.messageId)).toEqual([id])
    expect(lstatSync(file).mode & 0o777).toBe(0o600)
  })

  it('a store of a newer (or unknown) schema version is never moved aside nor changed: opening it fails, naming why', () => {
    const home = tempHome()
    const first = openHomeStore(home, { pid: 1, start: 1 }, () => true)
    const kept = post(first, 's')
    first.close()
    const again = openHomeStore(home, { pid: 1, start: 1 }, () => true, line => expect.fail(line))
    expect(again.message(kept)?.messageId).toBe(kept)
    again.close()
    const { dir, file } = storePaths(home)
    for (const version of ['99', '0', 'x']) {
      const db = new DatabaseSync(file)
      db.prepare('UPDATE meta SET value = ? WHERE key = \'version\'').run(version)
      db.close()
      expect(() => openHomeStore(home, { pid: 1, start: 1 }, () => true, line => expect.fail(line))).toThrow(`store schema ${version}, this release writes ${STORE_VERSION}`)
      expect(readdirSync(dir).filter(name => name.includes('broken'))).toEqual([])
    }
    const db = new DatabaseSync(file)
    expect(db.prepare('SELECT value FROM meta WHERE key = \'version\'').get()).toEqual({ value: 'x' })
    expect(db.prepare('SELECT message_id FROM messages').all()).toEqual([{ message_id: kept }])
    db.close()
  })

  it('migrates the previous release\'s store (schema 4) in place: inbound choices, held and pending messages are kept', () => {
    const home = tempHome()
    const previous = openHomeStore(home, { pid: 1, start: 1 }, () => true)
    previous.setInbound('quiet', 'refuse')
    previous.setInbound('careful', 'hold')
    expect(previous.holdForApproval({ messageId: 'held-1', target: 'careful', sender: 'a', senderTitle: '', hop: 1, mode: 'queue', text: 't', body: 'b', mayWake: true, notify: false, expiresAt: Date.now() + 60_000 }).ok).toBe(true)
    const pending = post(previous, 's')
    previous.close()
    // What schema 4 was: this schema without the corpus surfaces (git history of src/home/store-schema.ts).
    const { dir, file } = storePaths(home)
    const db = new DatabaseSync(file)
    db.exec('DROP TABLE corpus_surfaces; UPDATE meta SET value = \'4\' WHERE key = \'version\'')
    db.close()
    const logs: string[] = []
    const migrated = openHomeStore(home, { pid: 2, start: 1 }, () => true, line => logs.push(line))
    opened.push(migrated)
    expect(logs).toEqual([expect.stringContaining(`migrated in place from schema 4 to ${STORE_VERSION}`)])
    expect(readdirSync(dir).filter(name => name.includes('broken'))).toEqual([])
    expect(migrated.inboundOf('quiet')).toBe('refuse')
    expect(migrated.inboundOf('careful')).toBe('hold')
    expect(migrated.approvals(Date.now()).map(approval => approval.messageId)).toEqual(['held-1'])
    migrated.markLive('s')
    expect(migrated.claim('s').map(each => each.messageId)).toEqual([pending])
    expect(migrated.corpus().surface('/nowhere')).toBeUndefined()
  })

  it('keeps the corpus rows of a schema 6 store (a header as JSON text): its fields become columns, a row without a usable header is left out', () => {
    const home = tempHome()
    openHomeStore(home, { pid: 1, start: 1 }, () => true).close()
    const { file } = storePaths(home)
    const db = new DatabaseSync(file)
    // Schema 6's corpus_logs, verbatim (git history of src/home/store-schema.ts).
    db.exec(`DROP TABLE corpus_logs;
CREATE TABLE IF NOT EXISTS corpus_logs (
  path TEXT PRIMARY KEY,
  root TEXT NOT NULL, session_id TEXT NOT NULL, dir_name TEXT NOT NULL,
  identity TEXT NOT NULL, header TEXT NOT NULL,
  title_revision TEXT, title_identity TEXT, title TEXT, title_bytes INTEGER) STRICT;
CREATE INDEX IF NOT EXISTS corpus_logs_by_root ON corpus_logs (root);
CREATE INDEX IF NOT EXISTS corpus_logs_by_session ON corpus_logs (session_id);
UPDATE meta SET value = '6' WHERE key = 'version';`)
    const insert = db.prepare('INSERT INTO corpus_logs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    const header = (value: object): string => JSON.stringify(value)
    insert.run('/r/p/a/log', 'R', 'a', 'a', '1:2:3', header({ id: 'a', createdAt: 1_700_000_000_123, cwd: '/w', agentPreset: 'p' }), '1:2:3:40:5:6', '1:2:3', 'Alpha', 40)
    insert.run('/r/p/b/log', 'R', 'b', 'b', '1:4:3', header({ id: 'b', createdAt: 5.5, parentSession: 'a', origin: 'subagent' }), null, null, null, null)
    insert.run('/r/p/c/log', 'R', 'c', 'c', '1:5:3', header({ id: 'c', createdAt: 'soon', cwd: '' }), '1:5:3:9:1:1', '1:5:3', null, 9)
    insert.run('/r/p/d/log', 'R', 'd', 'd', '1:6:3', '{not json', null, null, null, null)
    insert.run('/r/p/e/log', 'R', 'e', 'e', '1:7:3', header({ id: 'another', createdAt: 5 }), null, null, null, null)
    db.close()
    const logs: string[] = []
    const store = openHomeStore(home, { pid: 2, start: 1 }, () => true, line => logs.push(line))
    opened.push(store)
    expect(logs).toEqual([expect.stringContaining(`migrated in place from schema 6 to ${STORE_VERSION} (corpus_logs: rewritten, its rows kept)`)])
    const rows = store.corpus().all('R').sort((x, y) => x.path.localeCompare(y.path))
    expect(rows).toEqual([
      { path: '/r/p/a/log', sessionId: 'a', dirName: 'a', identity: '1:2:3', header: { id: 'a', createdAt: 1_700_000_000_123, cwd: '/w', agentPreset: 'p' },
        title: { revision: '1:2:3:40:5:6', identity: '1:2:3', value: 'Alpha', completeBytes: 40 } },
      { path: '/r/p/b/log', sessionId: 'b', dirName: 'b', identity: '1:4:3', header: { id: 'b', createdAt: 5.5, parentSession: 'a', origin: 'subagent' } },
      // A bad `createdAt` reads as 0 and an empty workspace as none, as when the header was first read; a log with no title keeps that.
      { path: '/r/p/c/log', sessionId: 'c', dirName: 'c', identity: '1:5:3', header: { id: 'c', createdAt: 0 },
        title: { revision: '1:5:3:9:1:1', identity: '1:5:3', value: undefined, completeBytes: 9 } },
    ])
    // The rows this release writes read back the same.
    store.corpus().write('R', { headers: [{ ...rows[1]!, path: '/r/p/f/log' }], removed: ['/r/p/a/log'], titles: [] })
    expect(store.corpus().byPath('/r/p/f/log')?.header).toEqual(rows[1]!.header)
    expect(store.corpus().bySession('R', 'a')).toBeUndefined()
  })

  it('migrates a store the first release made (schema 1) in place: its pending messages are kept and claimed first', () => {
    const home = tempHome()
    const { dir, file } = storePaths(home)
    mkdirSync(dir, { mode: 0o700 })
    // The schema of the first release of the store, verbatim (git history of src/home/store-schema.ts).
    const db = new DatabaseSync(file)
    db.exec(V1_SCHEMA)
    db.exec('INSERT INTO meta (key, value) VALUES (\'version\', \'1\')')
    db.exec(`INSERT INTO messages (message_id, target, sender, hop, mode, text, may_wake, state, created_at, updated_at)
      VALUES ('old-1', 's', 'a', 1, 'queue', 'from release 1', 1, 'pending', 1, 1)`)
    db.close()
    const logs: string[] = []
    const store = openHomeStore(home, { pid: 1, start: 1 }, () => true, line => logs.push(line))
    opened.push(store)
    expect(logs).toEqual([expect.stringMatching(new RegExp(`migrated in place from schema 1 to ${STORE_VERSION} \\(messages: added notice, expires_at, claimed\\)`))])
    expect(readdirSync(dir).filter(name => name.includes('broken'))).toEqual([])
    store.markLive('s')
    const id = post(store, 's')
    expect(store.claim('s').map(each => each.messageId)).toEqual(['old-1', id])
  })

  it('a transition meeting another process\'s write lock fails fast with SQLITE_BUSY (a store fault), and the retry gets it through once the lock is gone', async () => {
    const { home, stores: [a] } = processes(1)
    const { file } = storePaths(home)
    // A real other process takes the write lock and holds it until told to let go.
    const holder = spawn(process.execPath, ['--no-warnings', '-e', `
      const db = new (require('node:sqlite').DatabaseSync)(${JSON.stringify(file)})
      db.exec('BEGIN IMMEDIATE')
      process.stdout.write('locked\\n')
      process.stdin.once('data', () => { db.exec('COMMIT'); process.exit(0) })
    `], { stdio: ['pipe', 'pipe', 'inherit'] })
    await new Promise<void>(resolve => holder.stdout.once('data', () => resolve()))
    let thrown: unknown
    try {
      a.post(message('s'))
    } catch (error: unknown) {
      thrown = error
    }
    expect(storeFaultWhy(thrown)).toBe('database is locked')
    expect(a.waiting()).toEqual(new Set())
    const tries: string[] = []
    const posted = retryStore(() => {
      tries.push('try')
      if (tries.length === 2) holder.stdin.write('go\n')
      return a.post(message('s'))
    }, new AbortController().signal, 60_000)
    expect((await posted).ok).toBe(true)
    expect(tries.length).toBeGreaterThan(1)
    expect(a.waiting()).toEqual(new Set(['s']))
    await new Promise(resolve => holder.once('exit', resolve))
  })
})

/** The store's schema as the first release wrote it (version 1). */
const V1_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS processes (
  pid INTEGER NOT NULL, start INTEGER NOT NULL,
  long_lived INTEGER NOT NULL, joined_at INTEGER NOT NULL,
  PRIMARY KEY (pid, start)) STRICT;
CREATE TABLE IF NOT EXISTS holders (
  session_id TEXT PRIMARY KEY,
  pid INTEGER, start INTEGER,
  state TEXT NOT NULL CHECK (state IN ('waking', 'live', 'free')),
  woke INTEGER NOT NULL DEFAULT 0,
  since INTEGER NOT NULL,
  let_go TEXT, let_go_pid INTEGER, let_go_at INTEGER) STRICT;
CREATE TABLE IF NOT EXISTS messages (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id TEXT NOT NULL UNIQUE,
  target TEXT NOT NULL, sender TEXT NOT NULL, hop INTEGER NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('queue', 'steer')),
  text TEXT NOT NULL, may_wake INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'claimed', 'recorded', 'refused')),
  claimer_pid INTEGER, claimer_start INTEGER,
  seq INTEGER, running INTEGER, reason TEXT,
  answered_seq INTEGER, reoffered INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS messages_by_target ON messages (target, state, n);
CREATE INDEX IF NOT EXISTS messages_waiting ON messages (target) WHERE state IN ('pending', 'claimed');
CREATE INDEX IF NOT EXISTS messages_by_claimer ON messages (claimer_pid, claimer_start) WHERE state = 'claimed';
CREATE INDEX IF NOT EXISTS messages_done ON messages (updated_at) WHERE state IN ('recorded', 'refused');
CREATE INDEX IF NOT EXISTS holders_by_pid ON holders (pid, start);
`
