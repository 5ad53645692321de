/**
 * Hostile and broken input: every case yields a readable refusal or a
 * correct partial render — never a throw, never a stack trace, never a
 * woken-then-abandoned session (docs/tools.md#tools). The tools and their
 * arguments come from the catalog, so a new tool or argument is covered
 * here; test/unit/catalog.test.ts fails when one disappears.
 */
import { describe, expect, it } from 'vitest'
import { canNameSession, sessionsList, sessionsRead, sessionsSend, textOf } from '../../src/testing.js'
import { TOOL_NAMES, type ToolName } from '../../src/model/tool-names.js'
import { parametersOf, TOOL_CATALOG } from '../../src/tools/catalog.js'
import { makeWorld, session, userEvent } from '../support/fakes.js'

function world(settings = {}) {
  const w = makeWorld(settings)
  const me = session('session-me', 5000, { live: true })
  const peer = session('session-peer', 1000, { live: true, title: 'line one\nline two\r\n"quoted"', events: [userEvent(1, 'hello')] })
  w.corpus.add(me).add(peer)
  return { w, me, peer }
}

/** Each tool's executor, as the catalog registers it. */
// Each executor answering with the model's text, as the registry renders its value.
const tools = Object.fromEntries(TOOL_CATALOG.map(spec => [spec.name, textOf(spec.execute)])) as Record<ToolName, ReturnType<typeof textOf<Parameters<typeof TOOL_CATALOG[number]['execute']>>>>
const wrongValues = [null, 42, -1, 1.5, 'text', '', true, [], {}, Number.NaN]
/** The smallest valid arguments of each tool (a tool missing here does not compile). */
const valid: Record<ToolName, Record<string, unknown>> = {
  [TOOL_NAMES.list]: {},
  [TOOL_NAMES.read]: { session_id: 'session-peer' },
  [TOOL_NAMES.send]: { session_id: 'session-peer', message: 'hi' },
}

/** The parts of a JSON Schema property that decide which values it takes. */
interface Property { readonly type?: string, readonly enum?: readonly unknown[], readonly minimum?: number, readonly maximum?: number }

/** Every argument of every tool, with its property as the model sees it. */
const argumentsOf = TOOL_CATALOG.map(({ name }) => [name, Object.entries(parametersOf(name).properties as Record<string, Property>)] as const)

/** Whether `value` is one the property takes (a property of another kind takes none, and the test fails: extend this). */
function acceptable(property: Property, value: unknown): boolean {
  if (property.enum !== undefined) return property.enum.includes(value)
  switch (property.type) {
    case 'string': return typeof value === 'string'
    case 'boolean': return typeof value === 'boolean'
    case 'integer': return typeof value === 'number' && Number.isInteger(value) && value >= (property.minimum ?? -Infinity) && value <= (property.maximum ?? Infinity)
    default: return false
  }
}

describe('wrong types for every argument of every tool', () => {
  it('reads every tool and argument from the catalog', () => {
    expect(argumentsOf.map(([tool]) => tool)).toEqual(Object.keys(valid))
    expect(argumentsOf.every(([, properties]) => properties.length > 0)).toBe(true)
  })

  for (const [tool, properties] of argumentsOf) {
    for (const [name, property] of properties) {
      for (const value of wrongValues) {
        if (acceptable(property, value)) continue
        it(`${tool}.${name} = ${JSON.stringify(value)}`, async () => {
          const { w, me } = world()
          const text = await tools[tool]({ ...valid[tool], [name]: value }, w.call(me), w.deps)
          expect(text).toMatch(new RegExp(`^refused: invalid-arguments \\| .*"${name}"`))
          expect(w.controller.log).toEqual([])
        })
      }
    }
  }
})

describe('hostile bodies and ids', () => {
  it('accepts a 10 MB body by delivering a visibly truncated one', async () => {
    const { w, me } = world()
    const text = await sessionsSend({ session_id: 'session-peer', message: 'y'.repeat(10 * 1024 * 1024) }, w.call(me), w.deps)
    expect(text).toMatch(/chars=4000 \(truncated from 10485760\)/)
  })

  it('cuts emoji and combining marks at a cluster boundary when truncating a body', async () => {
    const { w, me } = world({ maxSendChars: 100 })
    const text = await sessionsSend({ session_id: 'session-peer', message: `${'a'.repeat(99)}e\u0301\u0302 rest` }, w.call(me), w.deps)
    expect(text).toContain('chars=99 (truncated from 107)')
  })

  it('refuses ids with white space and reads an unknown weird id as not-found', async () => {
    const { w, me } = world()
    expect(await sessionsSend({ session_id: 'session-peer\n', message: 'x' }, w.call(me), w.deps)).toMatch(/^refused: invalid-arguments/)
    expect(await sessionsRead({ session_id: '../../etc/passwd' }, w.call(me), w.deps)).toMatch(/^refused: not-found/)
    expect(await sessionsRead({ session_id: 'x'.repeat(100_000) }, w.call(me), w.deps)).toMatch(/^refused: not-found \| no session with id "x{120}…"$/m)
  })

  it('shows titles with newlines and quotes on one line', async () => {
    const { w, me } = world()
    const text = await sessionsList({}, w.call(me), w.deps)
    expect(text).toContain('\n  line one line two "quoted"\n')
  })
})

describe('a backend that throws, hangs or returns garbage', () => {
  it.each([
    [TOOL_NAMES.list, 'listSessions', {}, 'listing sessions failed: EIO: input/output error in the session store'],
    [TOOL_NAMES.read, 'readSurface', { session_id: 'session-peer' }, 'reading the session surface failed: EIO: input/output error in the session store'],
    [TOOL_NAMES.send, 'lookup', { session_id: 'session-peer', message: 'x' }, 'looking up the target session failed: EIO: input/output error in the session store'],
  ] as const)('%s: a throwing %s becomes a readable rejected line without the stack', async (tool, method, args, cause) => {
    const { w, me } = world()
    w.corpus.fault[method] = 'throw'
    const text = await tools[tool](args, w.call(me), w.deps)
    expect(text).toMatch(/^refused: rejected \| /)
    expect(text).toContain(cause)
    expect(text).not.toContain('secretFrame')
    // Only the failure table's row reaches the model (docs/architecture.md §5, "Errors stay out of the model"): not the message, not the path.
    expect(text).not.toContain('disk on fire')
    expect(text).not.toContain('/internal/path.js')
    expect(w.logs.join('\n')).toContain('secretFrame')
    expect(w.controller.log).toEqual([])
  })

  it('a failing title fold still lists, saying titles could not be read', async () => {
    const { w, me } = world()
    w.corpus.fault.readTitles = 'throw'
    const text = await sessionsList({ query: 'peer' }, w.call(me), w.deps)
    expect(text).toContain('- session-peer [live, top-level]')
    expect(text).toContain('(title unavailable)')
    expect(text).toContain('Titles could not be read (EIO: input/output error in the session store); the query matched id, cwd and preset only.')
  })

  it.each([
    [TOOL_NAMES.list, 'listSessions', {}],
    [TOOL_NAMES.read, 'readSurface', { session_id: 'session-peer' }],
    [TOOL_NAMES.send, 'lookup', { session_id: 'session-peer', message: 'x' }],
  ] as const)('%s: a hanging %s is cancelled by the abort signal, never a partial result', async (tool, method, args) => {
    const { w, me } = world()
    w.corpus.fault[method] = 'hang'
    const controller = new AbortController()
    const pending = tools[tool](args, w.call(me, { signal: controller.signal }), w.deps)
    setTimeout(() => controller.abort(new Error('user pressed escape')), 20)
    const text = await pending
    expect(text).toMatch(new RegExp(`^cancelled \\| ${tool} was cancelled while `))
    expect(w.controller.log).toEqual([])
  })

  it('an already-aborted send delivers nothing', async () => {
    const { w, me, peer } = world()
    const controller = new AbortController()
    controller.abort()
    expect(await sessionsSend({ session_id: 'session-peer', message: 'x' }, w.call(me, { signal: controller.signal }), w.deps)).toMatch(/^cancelled \| /)
    expect(peer.events).toHaveLength(1)
  })

  it('malformed list records are skipped and counted', async () => {
    const { w, me } = world()
    w.corpus.fault.listSessions = 'garbage'
    const text = await sessionsList({ scope: 'all' }, w.call(me), w.deps)
    expect(text).toContain('- session-garbage [cold, top-level]')
    expect(text).toContain('3 malformed session records were skipped.')
  })

  it('a malformed surface (non-array events, bad seq) renders what it can', async () => {
    const { w, me } = world()
    w.corpus.fault.readSurface = 'garbage'
    const text = await sessionsRead({ session_id: 'session-peer' }, w.call(me), w.deps)
    expect(text).toContain('captured through seq: none')
    expect(text).toContain('(no readable messages)')
  })

  it('unknown content blocks and source kinds are dropped or labelled, not thrown on', async () => {
    const { w, me, peer } = world()
    peer.events.push({ seq: 2, type: 'user/message', surfaceOp: 'append', data: { id: 'm2', role: 'user', content: [{ type: 'hologram' }, { type: 'text', text: 'visible' }, null], source: { kind: 'alien', from: 'mars' } } })
    const text = await sessionsRead({ session_id: 'session-peer' }, w.call(me), w.deps)
    expect(text).toContain('--- user (seq 2, other:alien) ---\nvisible')
  })

  it('control characters in peer text are shown replaced, not raw', async () => {
    const { w, me, peer } = world()
    peer.events.push(userEvent(2, 'bell\u0007 and nul\u0000 and lone \uD800'))
    const text = await sessionsRead({ session_id: 'session-peer', max_messages: 1 }, w.call(me), w.deps)
    expect(text).toContain('bell\uFFFD and nul\uFFFD and lone \uFFFD')
  })
})

describe('an id that cannot name a session is not-found, before any backend sees it', () => {
  const unnameable = ['s'.repeat(256), `session-${'é'.repeat(124)}`, '../session-peer', 'a/b', 'a\\b', '.', '..', 'session-\u0000peer', 'session-\u0007peer']
  it.each(unnameable.map(id => [id.length > 40 ? `${id.slice(0, 20)}… (${id.length} chars)` : JSON.stringify(id), id]))('%s', async (_label, id) => {
    expect(canNameSession(id)).toBe(false)
    const { w, me } = world()
    const read = await sessionsRead({ session_id: id }, w.call(me), w.deps)
    const send = await sessionsSend({ session_id: id, message: 'hi' }, w.call(me), w.deps)
    expect(read).toMatch(/^refused: not-found \| no session with id /)
    expect(send).toMatch(/^refused: not-found \| no session with id /)
    expect(`${read}\n${send}`).not.toMatch(/ENAMETOOLONG|try again later/)
    // Neither the corpus nor the controller was asked.
    expect(w.corpus.calls).toEqual({})
    expect(w.controller.calls).toEqual({})
  })

  it('a long but nameable id (255 UTF-8 bytes) still reaches the lookup', async () => {
    const id = `session-${'f'.repeat(247)}`
    expect(canNameSession(id)).toBe(true)
    const { w, me } = world()
    expect(await sessionsSend({ session_id: id, message: 'hi' }, w.call(me), w.deps)).toMatch(/^refused: not-found/)
    expect(w.corpus.calls.lookup).toBe(1)
  })
})
