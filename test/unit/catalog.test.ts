/**
 * The tool catalog (src/tools/catalog.ts) exactly as the model receives it:
 * every tool's name, description and JSON Schema `parameters`, byte for
 * byte, as the registered definitions carry them (the harness sends `name`,
 * `description`, `parameters`). A change to any schema byte, a tool or an
 * argument added or gone fails here: update the expected object on purpose,
 * and docs/tools.md#token-effect with it.
 */
import { describe, expect, it } from 'vitest'
import { TOOL_NAMES } from '../../src/model/tool-names.js'
import { TOOL_CATALOG } from '../../src/tools/catalog.js'
import { toolDefinitions } from '../../src/tools/definitions.js'
import type { ToolDeps } from '../../src/tools/shared.js'

const definitions = toolDefinitions({} as ToolDeps, () => undefined)
const bytes = (text: string): number => Buffer.byteLength(text)

describe('the catalog the model receives', () => {
  it('is exactly these three tools, byte for byte', () => {
    const tools = definitions.map(({ name, description, parameters }) => {
      const serialised = JSON.stringify(parameters)
      return {
        name,
        description,
        parameters: serialised,
        bytes: { name: bytes(name), description: bytes(description), parameters: bytes(serialised), entry: bytes(JSON.stringify({ name, description, parameters })) },
      }
    })
    // As a request's `tools` array carries them: {"type":"function","function":{name, description, parameters}}.
    const request = JSON.stringify(definitions.map(({ name, description, parameters }) => ({ type: 'function', function: { name, description, parameters } })))
    const measured = { tools, totalBytes: tools.reduce((sum, tool) => sum + tool.bytes.entry, 0), requestBytes: bytes(request) }

    expect(measured).toEqual({
      tools: [
        {
          name: 'sessions_list',
          description: 'List peer sessions.',
          parameters: '{"type":"object","properties":{"query":{"type":"string","description":"Match id/title/cwd/preset"},"scope":{"enum":["top-level","subagents","all"]},"live_only":{"type":"boolean"},"limit":{"type":"integer","minimum":1,"maximum":200}},"additionalProperties":false}',
          bytes: { name: 13, description: 19, parameters: 262, entry: 336 },
        },
        {
          name: 'sessions_read',
          description: 'Read a peer session\'s recent messages.',
          parameters: '{"type":"object","required":["session_id"],"properties":{"session_id":{"type":"string","description":"Id from sessions_list"},"max_messages":{"type":"integer","minimum":1,"maximum":100},"include_injected":{"type":"boolean"},"include_system":{"type":"boolean"},"after_seq":{"type":"integer","minimum":0},"before_seq":{"type":"integer","minimum":0}},"additionalProperties":false}',
          bytes: { name: 13, description: 38, parameters: 377, entry: 470 },
        },
        {
          name: 'sessions_send',
          description: 'Send a message to a top-level peer session\'s inbox.',
          parameters: '{"type":"object","required":["session_id","message"],"properties":{"session_id":{"type":"string"},"message":{"type":"string"},"mode":{"enum":["queue","steer"],"description":"queue: next turn; steer: running turn"},"notify":{"type":"boolean","description":"Notice when its turn ends"},"withdraw":{"type":"boolean","description":"Take back (same args)"}},"additionalProperties":false}',
          bytes: { name: 13, description: 51, parameters: 382, entry: 488 },
        },
      ],
      totalBytes: 1294,
      requestBytes: 1391,
    })
    expect(measured.requestBytes).toBeLessThanOrEqual(1400)
  })

  it('registers one definition per catalog entry, in catalog order, with its flags and presenters', () => {
    expect(definitions.map(definition => definition.name)).toEqual(TOOL_CATALOG.map(spec => spec.name))
    expect(Object.fromEntries(definitions.map(definition => [definition.name, definition.isConcurrencySafe?.({})]))).toEqual({
      [TOOL_NAMES.list]: true,
      [TOOL_NAMES.read]: true,
      [TOOL_NAMES.send]: false,
    })
    for (const definition of definitions) {
      expect(definition.presentCall?.({})?.card).toBe('generic')
      // The host hands a presenter the result's text and, as `meta`, its value (output.presentationMeta).
      const value = { kind: 'refused', code: 'rejected', cause: 'x', next: 'y', consequence: 'z' }
      const meta = definition.output.presentationMeta?.({}, value)
      expect(definition.presentResult?.({}, { content: definition.output.render({}, value), isError: false, meta })?.title).toMatch(/refused: rejected$/)
    }
  })
})
