/**
 * Result parsers (src/core/tool-results*.ts) and tool presenters
 * (src/presentation/presenters.ts), fed the tools' real output
 * (test/support/doc-examples.ts runs the tools).
 */
import { describe, expect, it } from 'vitest'
import { parseListResult, parseReadResult, parseRefusal, parseSendResult, presentCall, presentResult, shortId } from '../../src/testing.js'
import { TOOL_NAMES } from '../../src/model/tool-names.js'
import { TOOL_CATALOG } from '../../src/tools/catalog.js'
import { docExamples } from '../support/doc-examples.js'

const examples = await docExamples()
const asResult = (text: string) => ({ content: [{ type: 'text', text }], isError: false })

describe('result parsers', () => {
  it('reads every sessions_list row: id, live/cold, kind, cwd, messageable, owner, self, title', () => {
    const list = parseListResult(examples.sessions_list!)!
    expect(list.rows.map(row => [shortId(row.sessionId), row.live, row.subagent, row.messageable, row.self, row.title])).toEqual([
      ['019c3d96…', false, true, false, false, 'Bounded completed checkpoint'],
      ['e218…', false, false, true, false, 'Fix the newapi reasoning-effort config'],
      ['4b91…', true, false, true, true, 'Release checklist for v2'],
    ])
    expect(list.rows[0]!.owner).toBe('session-e218a09e-8736-4483-9a04-2bf13608630c')
    expect(list.rows[2]!.cwd).toBe('/work/project')
    expect(list.footer[0]).toBe('3 of 3 considered sessions')
  })

  it('reads a sessions_read window: target, counts, messages newest first, omitted count', () => {
    const read = parseReadResult(examples.sessions_read!)!
    expect(read).toMatchObject({ sessionId: 'session-e218a09e-8736-4483-9a04-2bf13608630c', live: false, title: 'Fix the newapi reasoning-effort config', readable: 3, capturedThrough: 409, omitted: 1 })
    expect(read.messages.map(m => [m.role, m.seq])).toEqual([['user', 409], ['assistant', 407]])
    expect(read.messages[0]!.markers).toEqual(['peer:session-77aa', 'hop 1'])
    expect(read.messages[0]!.text).toBe('does the fix need a docs change?')
  })

  it('reads an accepted send: target, mode, chars, hop, wake, recorded seq', () => {
    expect(parseSendResult(examples.sessions_send!)).toMatchObject({
      sessionId: 'session-e218a09e-8736-4483-9a04-2bf13608630c', mode: 'queue', chars: 74, hop: 1, woke: true, recorded: { stage: 'conversation', seq: 410 },
    })
    const unconfirmed = parseSendResult('accepted for s1 | mode=steer | chars=5 (truncated from 9) | hop 2 | admitted, not yet recorded after 5000 ms\nnote')
    expect(unconfirmed).toMatchObject({ mode: 'steer', chars: 5, truncatedFrom: 9, hop: 2, woke: false, recorded: { stage: 'unconfirmed', note: 'admitted, not yet recorded after 5000 ms' }, note: 'note' })
  })

  it('reads refusals and cancellations with their code', () => {
    expect(parseRefusal(examples['not-messageable']!)).toMatchObject({ outcome: 'refused', code: 'not-messageable' })
    expect(parseRefusal(examples['invalid-arguments']!)).toMatchObject({ code: 'invalid-arguments', cause: 'unknown argument "priority"; accepted arguments: session_id, message, mode, notify, withdraw' })
    expect(parseRefusal('cancelled | sessions_read was cancelled while reading\nNothing was read.')).toMatchObject({ outcome: 'cancelled', code: 'cancelled' })
  })

  it('returns undefined for text it does not recognise (the caller falls back)', () => {
    for (const text of ['', 'hello', '- x [warm, top-level]\n  t\n1 of 1 considered sessions', 'session x [live, top-level]\ntitle: t\nnope']) {
      expect(parseListResult(text)).toBeUndefined()
      expect(parseReadResult(text)).toBeUndefined()
      expect(parseSendResult(text)).toBeUndefined()
      expect(parseRefusal(text)).toBeUndefined()
    }
    expect(parseListResult(examples.sessions_read!)).toBeUndefined()
    expect(parseReadResult(examples.sessions_list!)).toBeUndefined()
  })

  it('shortens ids to the first four characters of their random part', () => {
    expect(shortId('session-4b91c2d0-5f3e-4a7b-9c1d-2e8f6a0b3c4d')).toBe('4b91…')
    expect(shortId('019c3d96-79e0-4e6a-b7bf-ea46c224d701')).toBe('019c3d96…')
    expect(shortId('abc')).toBe('abc')
  })
})

describe('presenters', () => {
  it('titles pending calls by target and mode', () => {
    expect(presentCall(TOOL_NAMES.send, { session_id: 'session-4b91c2d0-5f3e-4a7b-9c1d-2e8f6a0b3c4d', message: 'hi', mode: 'queue' })).toEqual({ card: 'generic', kind: 'other', title: 'Send to 4b91… (queue)', rawInput: 'hi' })
    expect(presentCall(TOOL_NAMES.send, { session_id: 'session-4b91c2d0-5f3e' }).title).toBe('Send to 4b91…')
    expect(presentCall(TOOL_NAMES.read, { session_id: 'session-e218a09e-8736' }).title).toBe('Read e218…')
    expect(presentCall(TOOL_NAMES.list, { query: 'release' }).title).toBe('List sessions matching "release"')
    expect(presentCall(TOOL_NAMES.list, {}).title).toBe('List sessions')
    expect(presentCall(TOOL_NAMES.read, 'garbage').title).toBe('Read a session')
    expect(presentCall(TOOL_NAMES.send, null).title).toBe('Send to a session')
  })

  it('titles completed calls by outcome', () => {
    expect(presentResult(TOOL_NAMES.list, {}, asResult(examples.sessions_list!))?.title).toBe('Listed 3 sessions (1 live)')
    expect(presentResult(TOOL_NAMES.read, {}, asResult(examples.sessions_read!))?.title).toBe('Read e218… "Fix the newapi reasoning-effort config" — 2 of 3 messages, 1 omitted')
    expect(presentResult(TOOL_NAMES.send, {}, asResult(examples.sessions_send!))?.title).toBe('Sent to e218… (queue, hop 1) — recorded at seq 410, woke it')
    expect(presentResult(TOOL_NAMES.send, {}, asResult(examples.held!))?.title).toBe('Sent to e218… (queue, hop 1) — held for its user\'s approval')
    expect(parseSendResult(examples.held!)?.recorded).toEqual({ stage: 'held' })
    const refused = presentResult(TOOL_NAMES.send, { session_id: '019c3d96-79e0-4e6a-b7bf-ea46c224d701', mode: 'steer' }, asResult(examples['not-messageable']!))
    expect(refused?.title).toBe('Send to 019c3d96… (steer) — refused: not-messageable')
    expect(refused?.content?.[0]?.text).toBe(examples['not-messageable'])
  })

  it('title a call of every catalog tool, whatever its arguments', () => {
    for (const { name } of TOOL_CATALOG) {
      for (const args of [{}, null, 'garbage', { session_id: 42, query: [] }]) expect(presentCall(name, args).title).not.toBe('')
    }
  })

  it('keeps the host generic view for unrecognised results', () => {
    expect(presentResult(TOOL_NAMES.list, {}, asResult('something else'))).toBeUndefined()
    expect(presentResult(TOOL_NAMES.send, {}, { content: [], isError: true })).toBeUndefined()
  })
})
