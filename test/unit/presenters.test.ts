/**
 * Result values (src/presentation/results.ts) and tool presenters
 * (src/presentation/presenters.ts), fed the tools' real output
 * (test/support/doc-examples.ts runs the tools): a presenter reads the value
 * a result carries as `meta`, never its text.
 */
import { describe, expect, it } from 'vitest'
import { presentCall, presentResult, shortId } from '../../src/testing.js'
import { TOOL_NAMES } from '../../src/model/tool-names.js'
import { TOOL_CATALOG } from '../../src/tools/catalog.js'
import { docExamples, exampleValue } from '../support/doc-examples.js'

const examples = await docExamples()
/** A result as the host hands it to a presenter: the text, and the value as `meta` (rc.8 dsh-host-apiproxy `viewFor`). */
const asResult = (text: string) => ({ content: [{ type: 'text', text }], isError: false, meta: exampleValue(text) })

describe('result values', () => {
  it('a sessions_list value holds every row: id, live/cold, kind, cwd, owner, self, title', () => {
    const list = exampleValue(examples.sessions_list!)
    if (list?.kind !== 'listed') throw new Error('not a list value')
    expect(list.rows.map(row => [shortId(row.sessionId), row.live, row.subagent, row.self, row.title])).toEqual([
      ['019c3d96…', false, true, false, 'Bounded completed checkpoint'],
      ['e218…', false, false, false, 'Fix the newapi reasoning-effort config'],
      ['4b91…', true, false, true, 'Release checklist for v2'],
    ])
    expect(list.rows[0]!.owner).toBe('session-e218a09e-8736-4483-9a04-2bf13608630c')
    expect(list.rows[2]!.cwd).toBe('/work/project')
    expect(list.matched).toBe(3)
  })

  it('a sessions_read value: target, counts, messages newest first, omitted count', () => {
    const read = exampleValue(examples.sessions_read!)
    if (read?.kind !== 'read') throw new Error('not a read value')
    expect(read).toMatchObject({ sessionId: 'session-e218a09e-8736-4483-9a04-2bf13608630c', live: false, title: 'Fix the newapi reasoning-effort config', readable: 3, capturedThrough: 409, older: { count: 1 } })
    expect(read.messages.map(m => [m.role, m.seq])).toEqual([['user', 409], ['assistant', 407]])
    expect(read.messages[0]!.markers).toEqual(['peer:session-77aa, hop 1'])
    expect(read.messages[0]!.text).toBe('does the fix need a docs change?')
  })

  it('an accepted send value: target, mode, chars, hop, wake, recorded seq', () => {
    expect(exampleValue(examples.sessions_send!)).toMatchObject({
      kind: 'accepted', targetId: 'session-e218a09e-8736-4483-9a04-2bf13608630c', mode: 'queue', chars: 74, hop: 1, woke: true, recorded: { stage: 'conversation', seq: 410 },
    })
    expect(exampleValue(examples.held!)).toMatchObject({ kind: 'held', mode: 'queue', hop: 1 })
  })

  it('refusals carry their code and cause', () => {
    expect(exampleValue(examples['not-messageable']!)).toMatchObject({ kind: 'refused', code: 'not-messageable' })
    expect(exampleValue(examples['invalid-arguments']!)).toMatchObject({ kind: 'refused', code: 'invalid-arguments', cause: 'unknown argument "priority"; accepted arguments: session_id, message, mode, notify, withdraw' })
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
    const refused = presentResult(TOOL_NAMES.send, { session_id: '019c3d96-79e0-4e6a-b7bf-ea46c224d701', mode: 'steer' }, asResult(examples['not-messageable']!))
    expect(refused?.title).toBe('Send to 019c3d96… (steer) — refused: not-messageable')
    expect(refused?.content?.[0]?.text).toBe(examples['not-messageable'])
  })

  it('title a call of every catalog tool, whatever its arguments', () => {
    for (const { name } of TOOL_CATALOG) {
      for (const args of [{}, null, 'garbage', { session_id: 42, query: [] }]) expect(presentCall(name, args).title).not.toBe('')
    }
  })

  it('keeps the host generic view for a result without a value of its tool (an older log, a nested call, a registry error)', () => {
    expect(presentResult(TOOL_NAMES.list, {}, asResult('something else'))).toBeUndefined()
    expect(presentResult(TOOL_NAMES.list, {}, { content: [{ type: 'text', text: examples.sessions_list! }], isError: false })).toBeUndefined()
    expect(presentResult(TOOL_NAMES.list, {}, asResult(examples.sessions_read!))).toBeUndefined()
    expect(presentResult(TOOL_NAMES.send, {}, { content: [], isError: true })).toBeUndefined()
    expect(presentResult(TOOL_NAMES.send, {}, { ...asResult(examples.sessions_send!), isError: true })).toBeUndefined()
  })
})
