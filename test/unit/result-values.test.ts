/**
 * A result's value and its text agree, for every result kind
 * (src/presentation/results.ts): each value the tools return — the docs'
 * examples (test/support/doc-examples.ts runs the real tools) plus a
 * cancelled call and a retried send — renders to the text the model got,
 * every field it holds is shown in that text, it is lossless JSON and
 * passes the declared output schema as rc.8's own validator reads it
 * (`@deepseek-ai/dsh-tools@0.1.0-rc.8`, `@deepseek-ai/dsh-session@0.1.0-rc.8`,
 * installed under e2e/node_modules), and the registered definition's
 * `render` and `presentationMeta` give that text and that value.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { asJsonValue, RESULT_KINDS, RESULT_SCHEMA, renderResult, sessionsListValue, sessionsSendValue, type ResultValue } from '../../src/testing.js'
import { toolDefinitions } from '../../src/tools/definitions.js'
import { TOOL_NAMES } from '../../src/model/tool-names.js'
import { docExamples, exampleValue } from '../support/doc-examples.js'
import { makeWorld, session } from '../support/fakes.js'

const LIB = join(import.meta.dirname, '..', '..', 'e2e', 'node_modules', '@deepseek-ai')
const installed = existsSync(join(LIB, 'dsh-tools', 'lib', 'index.js'))
const load = async (name: string): Promise<any> => await import(pathToFileURL(join(LIB, name, 'lib', 'index.js')).href)

/** What the text must contain for each field the value holds. */
function shownParts(value: ResultValue): string[] {
  const state = (row: { live: boolean, subagent: boolean }): string => `[${row.live ? 'live' : 'cold'}, ${row.subagent ? 'subagent' : 'top-level'}]`
  switch (value.kind) {
    case 'listed':
      return [
        ...value.rows.flatMap(row => [
          `- ${row.sessionId} ${state(row)}`, `\n  ${row.title}`,
          ...(row.cwd === undefined ? [] : [`cwd=${row.cwd}`]), ...(row.preset === undefined ? [] : [`preset=${row.preset}`]),
          ...(row.owner === undefined ? [] : [`(owner ${row.owner})`]), ...(row.self ? [' | this session'] : []),
          ...(row.elsewherePid === undefined ? [] : [`(pid ${row.elsewherePid})`]),
        ]),
        `${value.rows.length} of ${value.matched} considered sessions`,
      ]
    case 'read':
      return [
        `session ${value.sessionId} ${state(value)}`, `\ntitle: ${value.title}\n`,
        `readable messages: ${value.readable} | captured through seq: ${value.capturedThrough ?? 'none'}`,
        ...value.messages.flatMap(message => [`--- ${message.role} (seq ${message.seq}, ${message.markers.join(', ')}) ---\n${message.text}`]),
        ...(value.cursor === undefined && value.older.count > 0 ? [`(${value.older.count} earlier`] : []),
        ...(value.cursor === undefined ? [] : [`older: ${value.older.count}`, `newer: ${value.newer.count}`]),
      ]
    case 'accepted':
      return [
        `accepted for ${value.targetId} | mode=${value.mode} | chars=${value.chars}`, `| hop ${value.hop}`,
        ...(value.truncatedFrom === undefined ? [] : [`(truncated from ${value.truncatedFrom})`]),
        ...(value.recorded !== undefined && 'seq' in value.recorded ? [`at seq ${value.recorded.seq}`] : []),
        ...(value.remote === undefined ? (value.woke ? ['(woke a cold session)'] : [])
          : ['pid' in value.remote ? `pid ${value.remote.pid}` : `machine ${value.remote.machine.name}`]),
        ...(value.answer?.ended === true ? [`its turn ended (${value.answer.reason}) at seq ${value.answer.seq}`] : []),
        ...(value.notice === undefined ? [] : ['\nNotice: ']),
      ]
    case 'held':
      return [`accepted for ${value.targetId} | mode=${value.mode} | chars=${value.chars} | hop ${value.hop} | held for its user's approval${value.duplicate ? ' (already held)' : ''}`]
    case 'retried':
      return [`${renderResult(value.first)}\n(This tool call, same id and arguments, was already `]
    case 'withdraw':
      return [value.outcome.ok ? `withdrawn: the message to ` : 'too late: ', `(id ${value.outcome.messageId})`]
    case 'refused':
      return [`refused: ${value.code} | ${value.cause}\n${value.consequence} ${value.next}`]
    case 'cancelled':
      return [`cancelled | ${value.tool} was cancelled while ${value.step}\n${value.consequence}`]
  }
}

/** Every value the docs' examples came from, a cancelled list and a retried send. */
async function everyValue(): Promise<Array<{ name: string, text: string, value: ResultValue }>> {
  const found: Array<{ name: string, text: string, value: ResultValue }> = []
  for (const [name, text] of Object.entries(await docExamples())) {
    const value = exampleValue(text)
    if (value !== undefined) found.push({ name, text, value })
  }
  const w = makeWorld()
  const me = session('session-aaaa0000-0000-4000-8000-000000000001', 2, { live: true })
  const peer = session('session-bbbb0000-0000-4000-8000-000000000002', 1, { live: true })
  w.corpus.add(me).add(peer)
  const aborted = new AbortController()
  aborted.abort()
  const more: Array<[string, ResultValue]> = [['cancelled list', await sessionsListValue({}, w.call(me, { signal: aborted.signal }), w.deps)]]
  const args = { session_id: peer.header.id, message: 'hello' }
  more.push(['first send', await sessionsSendValue(args, w.call(me, { callId: 'call_same' }), w.deps)])
  more.push(['retried send', await sessionsSendValue(args, w.call(me, { callId: 'call_same' }), w.deps)])
  for (const [name, raw] of more) {
    const value = asJsonValue(raw)
    found.push({ name, text: renderResult(value), value })
  }
  return found
}

const values = await everyValue()

describe('a result\'s value and its text agree', () => {
  it('covers every result kind', () => {
    expect(new Set(values.map(({ value }) => value.kind))).toEqual(new Set(RESULT_KINDS))
  })

  it.each(values.map(entry => [entry.name, entry] as const))('%s: the text is rendered from the value and shows each of its fields', (_name, { text, value }) => {
    expect(renderResult(value)).toBe(text)
    for (const part of shownParts(value)) expect(text).toContain(part)
  })

  it('the registered definitions render the value to that text and hand the value itself to clients', () => {
    const w = makeWorld()
    const definitions = toolDefinitions(w.deps, () => undefined)
    for (const { text, value } of values) {
      for (const definition of definitions) {
        expect(definition.output.render({}, value)).toEqual([{ type: 'text', text }])
        expect(definition.output.presentationMeta?.({}, value)).toEqual(value)
      }
    }
    expect(definitions.map(definition => definition.name)).toEqual([TOOL_NAMES.list, TOOL_NAMES.read, TOOL_NAMES.send])
  })
})

describe.skipIf(!installed)('each value is one rc.8\'s registry accepts', () => {
  it('lossless JSON (rc.8 isJsonValue) that passes the declared output schema (rc.8 validateJsonSchemaValue)', async () => {
    const tools = await load('dsh-tools')
    const sessionLib = await load('dsh-session')
    tools.assertSupportedJsonSchema(RESULT_SCHEMA)
    for (const { value } of values) {
      expect(sessionLib.isJsonValue(value)).toBe(true)
      expect(tools.validateJsonSchemaValue(RESULT_SCHEMA, value, 'value')).toEqual([])
    }
    expect(tools.validateJsonSchemaValue(RESULT_SCHEMA, { kind: 'parsed' }, 'value')).not.toEqual([])
  })
})
