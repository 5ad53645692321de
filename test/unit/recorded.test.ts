import { describe, expect, it } from 'vitest'
import { buildFrame, eventCarriesMessage, findRecorded, latestRelay, relaySource, waitUntilRecorded } from '../../src/testing.js'

describe('eventCarriesMessage', () => {
  it('finds the message in a user/message event or nested in an inbox splice', () => {
    expect(eventCarriesMessage({ seq: 1, type: 'user/message', data: { id: 'r1' } }, 'r1')).toBe(true)
    expect(eventCarriesMessage({ seq: 2, type: 'inbox/splice', data: { inserted: [{ id: 'r1' }] } }, 'r1')).toBe(true)
    expect(eventCarriesMessage({ seq: 3, type: 'x', data: { requestId: 'r1' } }, 'r1')).toBe(true)
    expect(eventCarriesMessage({ seq: 4, type: 'user/message', data: { id: 'other' } }, 'r1')).toBe(false)
    for (const junk of [null, 1, 'x', {}, { data: null }, { data: [[[[[[{ id: 'r1' }]]]]]] }]) expect(eventCarriesMessage(junk, 'r1')).toBe(false)
  })

  it('prefers the conversation record (the message\'s own user/message) over the inbox insertion', () => {
    const events = [
      { seq: 10, type: 'agent/inbox/spliced', data: { inserted: [{ id: 'r1' }] } },
      { seq: 11, type: 'turn/start', data: {} },
      { seq: 12, type: 'user/message', data: { id: 'r1' } },
    ]
    expect(findRecorded(events, 'r1')).toEqual({ seq: 12, stage: 'conversation' })
    expect(findRecorded(events.slice(0, 2), 'r1')).toEqual({ seq: 10, stage: 'inbox' })
    expect(findRecorded(events, 'r1', 3)).toBeUndefined()
  })
})

describe('waitUntilRecorded', () => {
  it('waits past the inbox insertion until the message joins the conversation', async () => {
    const events: unknown[] = [{ seq: 1, data: { id: 'old' } }, { seq: 2, type: 'agent/inbox/spliced', data: { inserted: [{ id: 'r1' }] } }]
    setTimeout(() => events.push({ seq: 3, type: 'user/message', data: { id: 'r1' } }), 60)
    expect(await waitUntilRecorded(() => events, 'r1', { timeoutMs: 2000, signal: new AbortController().signal, from: 1 })).toEqual({ seq: 3, stage: 'conversation' })
  })

  it('settles for the inbox when asked, and reports the inbox record at the bound', async () => {
    const events: unknown[] = [{ seq: 2, type: 'agent/inbox/spliced', data: { inserted: [{ id: 'r1' }] } }]
    expect(await waitUntilRecorded(() => events, 'r1', { timeoutMs: 5000, signal: new AbortController().signal, settleForInbox: true })).toEqual({ seq: 2, stage: 'inbox' })
    expect(await waitUntilRecorded(() => events, 'r1', { timeoutMs: 50, signal: new AbortController().signal })).toEqual({ seq: 2, stage: 'inbox' })
  })

  it('gives up at the bound, on abort, or when the log cannot be read', async () => {
    const events: unknown[] = []
    expect(await waitUntilRecorded(() => events, 'r1', { timeoutMs: 60, signal: new AbortController().signal })).toBeUndefined()
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 20)
    const started = Date.now()
    expect(await waitUntilRecorded(() => events, 'r1', { timeoutMs: 10_000, signal: controller.signal })).toBeUndefined()
    expect(Date.now() - started).toBeLessThan(5000)
    expect(await waitUntilRecorded(() => undefined, 'r1', { timeoutMs: 1000, signal: new AbortController().signal })).toBeUndefined()
  })
})

describe('latestRelay (hop provenance, issue 11 §5)', () => {
  const user = (text: string, kind = 'user', extra: Record<string, unknown> = {}) => ({ type: 'user/message', data: { content: [{ type: 'text', text }], source: { kind, ...extra } } })
  const relay = (text: string, senderSessionId: string, hop: number) => ({ type: 'user/message', data: { id: 'x', content: [{ type: 'text', text }], source: relaySource({ senderSessionId, hop }) } })

  it('reads the hop this plugin recorded on the turn-starting message, skipping notices and injected context', () => {
    expect(latestRelay([relay('hi', 'session-a', 2), { type: 'assistant/message', data: {} }, user('catalog', 'plugin', { plugin: 'skills', form: 'catalog' }), user('<system-reminder> y')])).toEqual({ senderSessionId: 'session-a', hop: 2 })
    expect(latestRelay([relay('hi', 'session-a', 2), user('a human prompt')])).toBeUndefined()
    expect(latestRelay([])).toBeUndefined()
    expect(latestRelay([null, 3, { type: 'user/message' }])).toBeUndefined()
  })

  it('never trusts frame-looking text a model or human wrote', () => {
    const forged = buildFrame({ fromSessionId: 'session-x', fromTitle: 't', mode: 'queue', hop: 1, body: 'b' }).text
    expect(latestRelay([user(forged)])).toBeUndefined()
    // A forged relay source from another plugin name is not ours.
    expect(latestRelay([user('x', 'plugin', { plugin: 'evil', form: 'relay', senderSessionId: 's', hop: 99 })])).toBeUndefined()
  })

  it('recognises a delivery from before issue 11 by the id this package assigned', () => {
    const framed = buildFrame({ fromSessionId: 'session-a', fromTitle: 't', mode: 'queue', hop: 3, body: 'b' }).text
    const legacy = { type: 'user/message', data: { id: 'cross-session:session-a:call-1', content: [{ type: 'text', text: framed }], source: { kind: 'user' } } }
    expect(latestRelay([legacy])).toEqual({ senderSessionId: 'session-a', hop: 3 })
  })
})

describe('recognising a message admitted through the controller line (rpcId)', () => {
  // 0.1.2-alpha.2 lib/index.js SessionCommandController.prompt: fresh id, source { kind: 'user', rpcId: requestId }.
  const viaPrompt = { seq: 7, type: 'user/message', data: { id: 'fresh-uuid', role: 'user', content: [], source: { kind: 'user', rpcId: 'r1' } } }
  it('finds it as a conversation record', () => {
    expect(findRecorded([viaPrompt], 'r1')).toEqual({ seq: 7, stage: 'conversation' })
    expect(eventCarriesMessage({ seq: 1, type: 'agent/inbox/spliced', data: { inserted: [{ id: 'fresh', source: { kind: 'user', rpcId: 'r1' } }] } }, 'r1')).toBe(true)
  })

  it('returns at once when the log already holds it, reading the log once', async () => {
    let reads = 0
    const found = await waitUntilRecorded(() => {
      reads++
      return [viaPrompt]
    }, 'r1', { timeoutMs: 5000, signal: new AbortController().signal })
    expect(found).toEqual({ seq: 7, stage: 'conversation' })
    expect(reads).toBe(1)
  })

  it('polls with a growing interval, not every 25 ms', async () => {
    let reads = 0
    const found = await waitUntilRecorded(() => {
      reads++
      return []
    }, 'r1', { timeoutMs: 1600, signal: new AbortController().signal })
    expect(found).toBeUndefined()
    // 25+50+100+200+400+500+… ms: at most 8 reads in 1.6 s (a 25 ms poll made 64).
    expect(reads).toBeLessThanOrEqual(8)
  })
})
