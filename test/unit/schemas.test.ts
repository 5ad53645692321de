import { describe, expect, it } from 'vitest'
import { TOOL_NAMES } from '../../src/model/tool-names.js'
import { TOOL_CATALOG } from '../../src/tools/catalog.js'
import { parametersOf, SessionsListArgs, SessionsReadArgs, SessionsSendArgs, TOOL_DESCRIPTIONS, validateArguments } from '../../src/testing.js'

describe('tool schemas', () => {
  it('declare exactly the arguments of docs/tools.md and refuse unknown ones', () => {
    expect(Object.keys(parametersOf(TOOL_NAMES.list).properties as object)).toEqual(['query', 'scope', 'live_only', 'limit'])
    expect(Object.keys(parametersOf(TOOL_NAMES.read).properties as object)).toEqual(['session_id', 'max_messages', 'include_injected', 'include_system', 'after_seq', 'before_seq'])
    expect(Object.keys(parametersOf(TOOL_NAMES.send).properties as object)).toEqual(['session_id', 'message', 'mode', 'notify', 'withdraw'])
    expect(parametersOf(TOOL_NAMES.read).required).toEqual(['session_id'])
    expect(parametersOf(TOOL_NAMES.send).required).toEqual(['session_id', 'message'])
    for (const { name } of TOOL_CATALOG) {
      expect(parametersOf(name).additionalProperties).toBe(false)
    }
  })

  it('together stay at or under 1,400 bytes as the model receives them', () => {
    const catalog = TOOL_CATALOG.map(({ name }) => ({
      type: 'function', function: { name, description: TOOL_DESCRIPTIONS[name], parameters: parametersOf(name) },
    }))
    // As the harness sends them: {"type":"function","function":{name, description, parameters}}.
    const bytes = Buffer.byteLength(JSON.stringify(catalog))
    expect(bytes).toBeLessThanOrEqual(1400)
  })

  it('are the very objects every call is validated against', () => {
    const schemas = { [TOOL_NAMES.list]: SessionsListArgs, [TOOL_NAMES.read]: SessionsReadArgs, [TOOL_NAMES.send]: SessionsSendArgs }
    expect(Object.fromEntries(TOOL_CATALOG.map(spec => [spec.name, spec.parameters]))).toEqual(schemas)
    for (const spec of TOOL_CATALOG) expect(spec.parameters).toBe(schemas[spec.name])
  })
})

describe('validateArguments', () => {
  const cases: Array<[string, unknown, unknown, string]> = [
    ['wrong type', SessionsListArgs, { query: 3 }, 'argument "query" got the number 3; it accepts a string'],
    ['out of range', SessionsListArgs, { limit: 0 }, 'argument "limit" got the number 0; it accepts an integer from 1 to 200'],
    ['non-integer', SessionsReadArgs, { session_id: 'a', max_messages: 2.5 }, 'argument "max_messages" got the number 2.5; it accepts an integer from 1 to 100'],
    ['bad enum', SessionsSendArgs, { session_id: 'a', message: 'b', mode: 'shout' }, 'argument "mode" got the string "shout"; it accepts one of "queue", "steer"'],
    ['bad scope', SessionsListArgs, { scope: 'mine' }, 'argument "scope" got the string "mine"; it accepts one of "top-level", "subagents", "all"'],
    ['unknown argument', SessionsSendArgs, { session_id: 'a', message: 'b', priority: 'high' }, 'unknown argument "priority"; accepted arguments: session_id, message, mode, notify, withdraw'],
    ['missing required', SessionsSendArgs, { message: 'b' }, 'argument "session_id" is required: a string'],
    ['boolean as string', SessionsReadArgs, { session_id: 'a', include_system: 'true' }, 'argument "include_system" got the string "true"; it accepts true or false'],
    ['not an object', SessionsListArgs, [1], 'arguments must be a JSON object, got an array of 1; accepted arguments: query, scope, live_only, limit'],
  ]
  it.each(cases)('refuses %s with one readable line', (_label, schema, args, problem) => {
    const result = validateArguments(schema as typeof SessionsListArgs, args)
    expect(result).toEqual({ ok: false, problem })
    if (!result.ok) expect(result.problem).not.toContain('\n')
  })

  it('accepts valid arguments unchanged (no silent defaults)', () => {
    expect(validateArguments(SessionsListArgs, {})).toEqual({ ok: true, value: {} })
    expect(validateArguments(SessionsSendArgs, { session_id: 'a', message: 'b', mode: 'steer' })).toEqual({ ok: true, value: { session_id: 'a', message: 'b', mode: 'steer' } })
  })
})
