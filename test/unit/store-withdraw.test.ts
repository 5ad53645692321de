/**
 * Withdrawing a message (src/home/store-withdraw.ts, docs/architecture.md §8
 * "Withdraw"): the one transition against a real SQLite file, with two
 * stores on separate connections standing for the sender's process and the
 * target's holder. It wins only while the message waits (pending, or held
 * for its target's user); otherwise it says where the message is; a repeat
 * gives the same answer; only the sender can withdraw.
 *
 * @module test/unit/store-withdraw
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { digestOf, SENDER, sendId } from '../support/send-ids.ts'
import { matchesSend, openHomeStore, STORE_VERSION, storePaths, type HomeStore, type NewApproval, type ProcessTag } from '../../src/testing.js'

const dirs: string[] = []
const opened: HomeStore[] = []
afterEach(() => {
  for (const store of opened.splice(0)) store.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** The sender's process (pid 101) and the target's holder (pid 102) on one home; `dead` kills one. */
function processes() {
  const home = mkdtempSync(join(tmpdir(), 'xs-withdraw-'))
  dirs.push(home)
  const dead = new Set<number>()
  const alive = (tag: ProcessTag): boolean => !dead.has(tag.pid)
  const stores = [101, 102].map(pid => {
    const store = openHomeStore(home, { pid, start: 7 }, alive)
    opened.push(store)
    return store
  })
  return { home, dead, sender: stores[0]!, holder: stores[1]! }
}

function post(store: HomeStore, target: string, message = 'hello'): string {
  const messageId = sendId(target, message)
  const posted = store.post({ messageId, target, sender: SENDER, hop: 1, mode: 'queue', text: message, mayWake: true })
  if (!posted.ok) throw new Error('post refused')
  return messageId
}

function held(store: HomeStore, target: string, overrides: Partial<NewApproval> = {}): string {
  const messageId = sendId(target, 'held one')
  const outcome = store.holdForApproval({ messageId, target, sender: SENDER, senderTitle: '', hop: 1, mode: 'queue', text: 't', body: 'held one', mayWake: true, notify: false, expiresAt: Date.now() + 60_000, ...overrides })
  if (!outcome.ok) throw new Error('hold refused')
  return messageId
}

describe('withdraw wins while the message waits', () => {
  it('a pending message: withdrawn, never claimed, the same answer again, its notice request dropped', () => {
    const { sender, holder } = processes()
    const id = post(sender, 'T')
    sender.watch({ messageId: id, sender: SENDER, target: 'T', hop: 1, mayWake: true, maxHops: 4, perMinute: 6, expiresAt: Date.now() + 60_000 })
    const first = sender.withdraw(SENDER, { messageId: id })
    expect(first).toEqual({ ok: true, messageId: id, target: 'T', was: 'pending', at: expect.any(Number) })
    holder.markLive('T')
    expect(holder.claim('T')).toEqual([])
    expect(holder.waiting().has('T')).toBe(false)
    expect(holder.adoptable()).toEqual([])
    expect(holder.withdraw(SENDER, { messageId: id })).toEqual(first)
    expect(sender.watchOf(id)).toMatchObject({ state: 'dropped', reason: 'withdrawn' })
    expect(sender.message(id)).toMatchObject({ state: 'refused', reason: 'withdrawn' })
    expect(sender.traffic(10).find(row => row.messageId === id)?.state).toBe('withdrawn')
  })

  it('a held message: withdrawn, gone from the held list, its user can no longer deliver it, not listed as refused', () => {
    const { sender, holder } = processes()
    const id = held(sender, 'T')
    const first = sender.withdraw(SENDER, { messageId: id })
    expect(first).toEqual({ ok: true, messageId: id, target: 'T', was: 'held', at: expect.any(Number) })
    expect(holder.approvals(Date.now())).toEqual([])
    expect(holder.decide(id, 'deliver', Date.now())).toMatchObject({ ok: false, reason: 'stale', approval: { state: 'withdrawn' } })
    expect(holder.message(id)).toBeUndefined()
    expect(holder.approval(id)?.state).toBe('withdrawn')
    expect(holder.traffic(10).find(row => row.messageId === id)?.state).toBe('withdrawn')
    expect(sender.withdraw(SENDER, { messageId: id })).toEqual(first)
  })

  it('a held message its user delivered but nobody claimed yet: withdrawn from the store\'s queue', () => {
    const { sender, holder } = processes()
    const id = held(sender, 'T')
    expect(holder.decide(id, 'deliver', Date.now()).ok).toBe(true)
    expect(sender.withdraw(SENDER, { messageId: id })).toMatchObject({ ok: true, was: 'pending' })
    holder.markLive('T')
    expect(holder.claim('T')).toEqual([])
  })

  it('the model names it by target and text: the newest matching send is withdrawn', () => {
    const { sender } = processes()
    const older = post(sender, 'T', 'same text')
    const other = post(sender, 'T', 'other text')
    const newer = post(sender, 'T', 'same text')
    const digests = [digestOf('T', 'same text')]
    expect(matchesSend(newer, SENDER, digests)).toBe(true)
    expect(matchesSend(other, SENDER, digests)).toBe(false)
    expect(sender.withdraw(SENDER, { target: 'T', digests })).toMatchObject({ ok: true, messageId: newer })
    expect(sender.withdraw(SENDER, { target: 'T', digests })).toMatchObject({ ok: true, messageId: newer })
    expect(sender.message(older)?.state).toBe('pending')
    expect(sender.withdraw(SENDER, { target: 'U', digests })).toEqual({ ok: false, reason: 'unknown' })
  })
})

describe('withdraw loses cleanly and says where the message is', () => {
  it('claimed by the live holder: too late, being delivered by that process; once recorded: the seq', () => {
    const { sender, holder } = processes()
    const id = post(sender, 'T')
    holder.markLive('T')
    expect(holder.claim('T').map(message => message.messageId)).toEqual([id])
    expect(sender.withdraw(SENDER, { messageId: id })).toEqual({ ok: false, reason: 'too-late', messageId: id, target: 'T', where: { kind: 'claimed', pid: 102 } })
    expect(holder.record(id, 42, false)).toBe(true)
    const late = { ok: false, reason: 'too-late', messageId: id, target: 'T', where: { kind: 'recorded', seq: 42 } }
    expect(sender.withdraw(SENDER, { messageId: id })).toEqual(late)
    expect(sender.withdraw(SENDER, { messageId: id })).toEqual(late)
    expect(sender.message(id)?.state).toBe('recorded')
  })

  it('a claim handed back (the holder let the session go before recording) is never withdrawn: it may be in the log', () => {
    const { sender, holder } = processes()
    const id = post(sender, 'T')
    holder.markLive('T')
    holder.claim('T')
    holder.release('T', 'released')
    expect(sender.message(id)?.state).toBe('pending')
    expect(sender.withdraw(SENDER, { messageId: id })).toEqual({ ok: false, reason: 'too-late', messageId: id, target: 'T', where: { kind: 'handed-back' } })
    holder.markLive('T')
    expect(holder.claim('T').map(message => message.messageId)).toEqual([id])
  })

  it('a claim whose claimer died is never withdrawn (it may be in the log already)', () => {
    const { sender, holder, dead } = processes()
    const id = post(sender, 'T')
    holder.markLive('T')
    holder.claim('T')
    dead.add(102)
    expect(sender.withdraw(SENDER, { messageId: id })).toMatchObject({ ok: false, reason: 'too-late', where: { kind: 'claimed' } })
    expect(sender.message(id)?.state).toBe('claimed')
  })

  it('refused by its user, expired, or delivered inside the sender\'s process: too late, and where', () => {
    const { sender, holder } = processes()
    const refused = held(sender, 'T')
    holder.decide(refused, 'refuse', Date.now())
    expect(sender.withdraw(SENDER, { messageId: refused })).toMatchObject({ ok: false, where: { kind: 'refused', reason: 'user' } })
    const late = held(sender, 'U', { expiresAt: Date.now() - 1 })
    expect(sender.withdraw(SENDER, { messageId: late })).toMatchObject({ ok: false, where: { kind: 'expired' } })
    expect(sender.approval(late)?.state).toBe('expired')
    const local = sendId('V', 'local')
    sender.journal({ messageId: local, target: 'V', sender: SENDER, hop: 1, mode: 'queue', state: 'recorded', seq: 9 })
    expect(sender.withdraw(SENDER, { messageId: local })).toMatchObject({ ok: false, where: { kind: 'recorded', seq: 9 } })
  })

  it('only its sender withdraws it; an unknown id is unknown', () => {
    const { sender } = processes()
    const id = post(sender, 'T')
    expect(sender.withdraw('session-Z', { messageId: id })).toEqual({ ok: false, reason: 'unknown' })
    expect(sender.withdraw(SENDER, { messageId: 'nope' })).toEqual({ ok: false, reason: 'unknown' })
    expect(sender.message(id)?.state).toBe('pending')
  })
})

describe('the store of the previous release (schema 5)', () => {
  it('is migrated in place: its held message can be withdrawn', () => {
    const { home, sender } = processes()
    const id = held(sender, 'T')
    const waiting = post(sender, 'U')
    sender.close()
    const db = new DatabaseSync(storePaths(home).file)
    // Schema 5 was this one without `approvals.reason` and `messages.claimed` (git history of src/home/store-schema.ts).
    db.exec('ALTER TABLE approvals DROP COLUMN reason; ALTER TABLE messages DROP COLUMN claimed; UPDATE meta SET value = \'5\' WHERE key = \'version\'')
    db.close()
    const logs: string[] = []
    const migrated = openHomeStore(home, { pid: 103, start: 7 }, () => true, line => logs.push(line))
    opened.push(migrated)
    expect(logs).toEqual([expect.stringContaining(`migrated in place from schema 5 to ${STORE_VERSION} (messages: added claimed; approvals: added reason)`)])
    expect(migrated.withdraw(SENDER, { messageId: id })).toMatchObject({ ok: true, was: 'held' })
    // Whether a message waiting then was ever claimed is unknown: taken as claimed, never withdrawn.
    expect(migrated.withdraw(SENDER, { messageId: waiting })).toMatchObject({ ok: false, where: { kind: 'handed-back' } })
  })
})
