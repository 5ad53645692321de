import { describe, expect, it } from 'vitest'
import { latestPromptText } from '../../src/caller.js'
import { eventCarriesMessage, findRecorded, waitUntilRecorded } from '../../src/recorded.js'

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

describe('latestPromptText', () => {
  it('returns the latest user-source prompt, skipping injected context and other sources', () => {
    const user = (text: string, kind = 'user') => ({ type: 'user/message', data: { content: [{ type: 'text', text }], source: { kind } } })
    expect(latestPromptText([user('first'), { type: 'assistant/message', data: {} }, user('second'), user('Current runtime context. x', 'plugin'), user('<system-reminder> y')])).toBe('second')
    expect(latestPromptText([])).toBeUndefined()
    expect(latestPromptText([null, 3, { type: 'user/message' }])).toBeUndefined()
  })
})
