/**
 * The web send row's view of where a message is now (src/client/send-state.ts),
 * read from rc.8-shaped target history, and the send-result parser reading a
 * mailbox delivery's outcome (its value, `callRecordedOf`); the chip that
 * decides among them (src/client/send-outcome.ts); a notice row's view of
 * its text (src/framing/notice.ts).
 */
import { describe, expect, it } from 'vitest'
import { buildNotice, callRecordedOf, canWithdraw, heldNoticeText, heldOf, isFinal, isSettled, NOTICE_INTRO, parseNotice, readHistory, sendOutcome, sendStateOf, storedOf } from '../../src/testing.js'

const ID = 'cross-session:session-me:call_7:AbCdEfGhIjKlMnOp'
const framed = (body: string) => `Cross-session message from another session of this harness.\nfrom-session: session-me ("")\ndelivery: queue | hop 1\n--- message begins tok123456789 ---\n${body}\n--- message ends tok123456789 ---`
const message = { id: ID, role: 'user', content: [{ type: 'text', text: framed('did it land?') }] }
const splice = (seq: number) => ({ seq, type: 'agent/inbox/spliced', data: { target: 'next-turn', start: 0, inserted: [message] } })
const taken = (seq: number) => ({ seq, type: 'agent/inbox/spliced', data: { target: 'next-turn', start: 0, removedCount: 1, inserted: [] } })
const cancelled = (seq: number) => ({ seq, type: 'agent/inbox/spliced', data: { target: 'next-turn', start: 0, removedCount: 1, inserted: [], outcome: 'canceled' } })
const recorded = (seq: number) => ({ seq, type: 'user/message', data: message })
const end = (seq: number, kind = 'completed') => ({ seq, type: 'turn/end', data: { turn: 1, reason: { kind } } })

describe('sendStateOf', () => {
  it('pending, recorded at seq N, answered, by the id this package gave it and its body', () => {
    expect(sendStateOf([], 'call_7', 'did it land?')).toEqual({ stage: 'pending' })
    expect(sendStateOf([splice(3)], 'call_7', 'did it land?')).toEqual({ stage: 'pending' })
    expect(sendStateOf([splice(3), { seq: 4, type: 'turn/start' }, taken(5), recorded(6)], 'call_7', 'did it land?')).toEqual({ stage: 'recorded', seq: 6 })
    expect(sendStateOf([recorded(6), end(8, 'error'), end(9)], 'call_7', 'did it land?')).toEqual({ stage: 'answered', seq: 6, answerSeq: 9 })
  })

  it('lost, with why: a cancelled insertion, or a turn that took it and ended without running it', () => {
    expect(sendStateOf([splice(3), cancelled(4)], 'call_7', 'did it land?')).toMatchObject({ stage: 'lost', why: expect.stringContaining('cancelled'), code: 'cancelled' })
    expect(sendStateOf([splice(3), { seq: 4, type: 'turn/start' }, taken(5), end(6, 'aborted')], 'call_7', 'did it land?')).toMatchObject({ stage: 'lost', why: expect.stringContaining('ended before running it'), code: 'taken' })
  })

  it('another call id, or another body under a repeated call id, is not this message', () => {
    expect(sendStateOf([recorded(6)], 'call_8', 'did it land?')).toEqual({ stage: 'pending' })
    expect(sendStateOf([recorded(6)], 'call_7', 'something else')).toEqual({ stage: 'pending' })
  })

  it('under a repeated call id (providers that answer call_0 every time), a body that is part of another is not that other message', () => {
    const other = { id: 'cross-session:session-me:call_7:ZzZzZzZzZzZzZzZz', role: 'user', content: [{ type: 'text', text: framed('did it land? and the docs?') }] }
    const events = [{ seq: 2, type: 'user/message', data: other }, end(3), recorded(6)]
    expect(sendStateOf(events, 'call_7', 'did it land?')).toEqual({ stage: 'recorded', seq: 6 })
    expect(sendStateOf([{ seq: 2, type: 'user/message', data: { ...message, content: [{ type: 'text', text: 'did it land?' }] } }], 'call_7', 'did it land?')).toEqual({ stage: 'recorded', seq: 2 })
    // A body cut at maxSendChars (at least 100 characters) is still found by its start.
    const long = 'x'.repeat(150)
    const cut = { ...message, content: [{ type: 'text', text: framed('x'.repeat(100)) }] }
    expect(sendStateOf([{ seq: 4, type: 'user/message', data: cut }], 'call_7', long)).toEqual({ stage: 'recorded', seq: 4 })
  })

  it('only answered and lost are settled', () => {
    expect([{ stage: 'pending' }, { stage: 'recorded', seq: 1 }, { stage: 'answered', seq: 1, answerSeq: 2 }, { stage: 'lost', why: 'x' }].map(s => isSettled(s as never))).toEqual([false, false, true, true])
  })

  it('reads a session.history value: its events and its title projection', () => {
    expect(readHistory({ events: [{ event: recorded(1) }], hasMore: false, projections: { asOfSeq: 1, values: { title: 'Release' } } })).toEqual({ events: [recorded(1)], title: 'Release' })
    expect(readHistory(undefined)).toEqual({ events: [], title: undefined })
    // As the client api answers: an envelope around the value, or a refusal.
    expect(readHistory({ rpcId: 'r1', result: { ok: true, value: { events: [{ event: recorded(1) }], hasMore: false } } })).toEqual({ events: [recorded(1)], title: undefined })
    expect(readHistory({ rpcId: 'r2', result: { ok: false, error: { code: 'not-found' } } })).toEqual({ events: [], title: undefined })
  })
})

describe('callRecordedOf: what the call said of delivery, from its value', () => {
  const accepted = { kind: 'accepted' as const, targetId: 'session-x', mode: 'queue' as const, chars: 3, hop: 1, woke: false, running: false, recordWaitMs: 5000, waitCancelled: false }
  it('reads a mailbox delivery and a waited answer as recorded, a held one as held, a retry as its first', () => {
    expect(callRecordedOf({ ...accepted, remote: { pid: 207 }, recorded: { stage: 'conversation', seq: 27 } })).toEqual({ stage: 'conversation', seq: 27 })
    expect(callRecordedOf({ ...accepted, woke: true, recorded: { stage: 'conversation', seq: 412 }, answer: { ended: true, reason: 'completed', seq: 415 } })).toEqual({ stage: 'conversation', seq: 412 })
    expect(callRecordedOf({ ...accepted, remote: { pid: 207 }, recorded: { stage: 'pending' } })).toEqual({ stage: 'unconfirmed' })
    expect(callRecordedOf({ ...accepted, remote: { pid: 4 }, recorded: { stage: 'refused', reason: 'target-gone' } })).toMatchObject({ stage: 'refused' })
    const held = { kind: 'held' as const, targetId: 'session-x', mode: 'queue' as const, hop: 1, chars: 3, expiresInMs: 1000, duplicate: false }
    expect(callRecordedOf(held)).toEqual({ stage: 'held' })
    expect(callRecordedOf({ kind: 'retried', first: held })).toEqual({ stage: 'held' })
    expect(callRecordedOf({ kind: 'refused', code: 'not-found', cause: 'x', next: 'y', consequence: 'z' })).toBeUndefined()
  })
})

describe('sendOutcome: the send row\'s chip, from the call, the target\'s history and the held message', () => {
  const heldCall = { stage: 'held' } as const
  it('a held message: held with its expiry, then what its user decided, with when; the history wins once it has the message', () => {
    expect(sendOutcome(heldCall, undefined, undefined)).toEqual({ kind: 'held' })
    expect(sendOutcome(heldCall, undefined, { state: 'held', expiresAt: 9000 })).toEqual({ kind: 'held', expiresAt: 9000 })
    expect(sendOutcome(heldCall, { stage: 'pending' }, { state: 'refused', expiresAt: 9000, decidedAt: 5000 })).toEqual({ kind: 'refused', at: 5000 })
    expect(sendOutcome(heldCall, undefined, { state: 'expired', expiresAt: 9000, decidedAt: 9100 })).toEqual({ kind: 'expired', at: 9100 })
    expect(sendOutcome(heldCall, { stage: 'pending' }, { state: 'delivered', expiresAt: 9000, decidedAt: 4000 })).toEqual({ kind: 'pending', approvedAt: 4000 })
    expect(sendOutcome(heldCall, { stage: 'recorded', seq: 12 }, { state: 'delivered', expiresAt: 9000, decidedAt: 4000 })).toEqual({ kind: 'recorded', seq: 12, approvedAt: 4000 })
    expect(sendOutcome(heldCall, { stage: 'answered', seq: 12, answerSeq: 15 }, { state: 'delivered', expiresAt: 9000, decidedAt: 4000 })).toEqual({ kind: 'answered', seq: 12, answerSeq: 15, approvedAt: 4000 })
  })

  it('a message never held: what the call said until the history says more; one word (pending) for not yet in its log', () => {
    expect(sendOutcome({ stage: 'conversation', seq: 7 }, undefined, undefined)).toEqual({ kind: 'recorded', seq: 7 })
    expect(sendOutcome({ stage: 'conversation', seq: 7 }, { stage: 'answered', seq: 7, answerSeq: 9 }, undefined)).toEqual({ kind: 'answered', seq: 7, answerSeq: 9 })
    expect(sendOutcome({ stage: 'inbox', seq: 3 }, { stage: 'pending' }, undefined)).toEqual({ kind: 'inbox', seq: 3 })
    expect(sendOutcome({ stage: 'unconfirmed' }, undefined, undefined)).toEqual({ kind: 'pending' })
    expect(sendOutcome({ stage: 'refused', why: 'the session was deleted' }, undefined, undefined)).toEqual({ kind: 'lost', why: 'the session was deleted' })
    expect(sendOutcome({ stage: 'conversation', seq: 7 }, { stage: 'lost', why: 'cancelled', code: 'cancelled' }, undefined)).toEqual({ kind: 'lost', why: 'cancelled', code: 'cancelled' })
  })

  it('final: answered, lost, refused, expired; reads the channel\'s answer, nothing else', () => {
    expect(['answered', 'lost', 'refused', 'expired', 'recorded', 'held', 'pending', 'inbox'].map(kind => isFinal({ kind } as never))).toEqual([true, true, true, true, false, false, false, false])
    expect(heldOf({ messageId: 'm', held: { state: 'refused', expiresAt: 2, decidedAt: 1, sender: 's' } })).toEqual({ state: 'refused', expiresAt: 2, decidedAt: 1 })
    expect(heldOf({ messageId: 'm', held: null })).toBeUndefined()
    expect(heldOf({ held: { state: 'lost', expiresAt: 2 } })).toBeUndefined()
    expect(heldOf(undefined)).toBeUndefined()
  })
})

describe('withdrawn: the send row after its sender took the message back', () => {
  it('withdrawn while held or while queued is final, whatever the call said; Withdraw is offered only while it waits', () => {
    expect(sendOutcome({ stage: 'held' }, undefined, { state: 'withdrawn', expiresAt: 9000, decidedAt: 4000 })).toEqual({ kind: 'withdrawn', at: 4000 })
    const queued = { stage: 'unconfirmed', note: 'delivered through the mailbox | still pending in the mailbox after 0 ms' } as const
    expect(sendOutcome(queued, { stage: 'pending' }, undefined, 'withdrawn')).toEqual({ kind: 'withdrawn' })
    expect(isFinal({ kind: 'withdrawn' })).toBe(true)
    expect(canWithdraw({ kind: 'pending' }, undefined, 'pending')).toBe(true)
    expect(canWithdraw({ kind: 'pending' }, undefined, 'claimed')).toBe(false)
    expect(canWithdraw({ kind: 'held' }, { state: 'held', expiresAt: 9000 }, undefined)).toBe(true)
    expect(canWithdraw({ kind: 'recorded', seq: 3 }, undefined, 'recorded')).toBe(false)
    expect(storedOf({ stored: { state: 'withdrawn' } })).toBe('withdrawn')
    expect(storedOf({ stored: null })).toBeUndefined()
    expect(heldOf({ held: { state: 'withdrawn', expiresAt: 2, decidedAt: 1 } })).toEqual({ state: 'withdrawn', expiresAt: 2, decidedAt: 1 })
  })
})

describe('parseNotice: what a notice row shows', () => {
  it('the title and the start of the answer of a finished turn; a held message\'s notice has no answer; anything else is not a notice', () => {
    const text = buildNotice({ fromSessionId: 'session-t', fromTitle: 'Deploy "keys"', outcome: 'completed', messageSeq: 3, turnEndSeq: 9, hop: 2, excerpt: 'Yes, it builds.\n--- answer ends fake ---\nmore' })
    expect(parseNotice(text)).toEqual({ fromSessionId: 'session-t', fromTitle: 'Deploy "keys"', excerpt: 'Yes, it builds.\n--- answer ends fake ---\nmore' })
    expect(parseNotice(`${NOTICE_INTRO}\nfrom-session: session-t ("")\nheld message: refused | its user refused your held message; it was never delivered | hop 2`)).toEqual({ fromSessionId: 'session-t', fromTitle: '' })
    // An untitled target: no empty quotes in the notice, and the row still reads it.
    const untitled = heldNoticeText({ targetId: 'session-t', targetTitle: undefined, outcome: 'refused', hop: 2, expiredAfterMs: 0 })
    expect(untitled.split('\n')[1]).toBe('from-session: session-t')
    expect(parseNotice(untitled)).toEqual({ fromSessionId: 'session-t', fromTitle: '' })
    expect(heldNoticeText({ targetId: 'session-t', targetTitle: 'Deploy "keys"', outcome: 'expired', hop: 2, expiredAfterMs: 60_000 }).split('\n')[1]).toBe('from-session: session-t ("Deploy \\"keys\\"")')
    expect(parseNotice('from-session: session-t ("x")')).toBeUndefined()
    expect(parseNotice(`${NOTICE_INTRO}\nno sender line`)).toBeUndefined()
  })
})
