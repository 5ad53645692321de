/**
 * The web send row's view of where a message is now (src/client/send-state.ts),
 * read from rc.8-shaped target history, and the send-result parser reading a
 * mailbox delivery's outcome (src/core/tool-results.ts).
 */
import { describe, expect, it } from 'vitest'
import { isSettled, parseSendResult, readHistory, sendStateOf } from '../../src/testing.js'

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
    expect(sendStateOf([splice(3), cancelled(4)], 'call_7', 'did it land?')).toMatchObject({ stage: 'lost', why: expect.stringContaining('cancelled') })
    expect(sendStateOf([splice(3), { seq: 4, type: 'turn/start' }, taken(5), end(6, 'aborted')], 'call_7', 'did it land?')).toMatchObject({ stage: 'lost', why: expect.stringContaining('ended before running it') })
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

describe('parseSendResult outcomes', () => {
  it('reads a mailbox delivery and a waited answer as recorded (the outcome is one segment of several)', () => {
    expect(parseSendResult('accepted for session-x | mode=queue | chars=3 | hop 1 | live in another dsh process (pid 207); delivered through the mailbox | recorded at seq 27\nbody')?.recorded).toEqual({ stage: 'conversation', seq: 27 })
    expect(parseSendResult('accepted for session-x | mode=queue | chars=3 | hop 1 (woke a cold session) | recorded at seq 412 | its turn ended (completed) at seq 415\nbody')?.recorded).toEqual({ stage: 'conversation', seq: 412 })
    expect(parseSendResult('accepted for session-x | mode=queue | chars=3 | hop 1 | live in another dsh process (pid 207); delivered through the mailbox | still pending in the mailbox after 5000 ms\nbody')?.recorded.stage).toBe('unconfirmed')
  })
})
