/**
 * "Accepted means recorded" (docs/tools.md "sessions_send"): finding a
 * delivered message in a log, and the bounded wait for it. The waits run on
 * vitest's fake clock — a bound or a poll interval passes when the test
 * advances it, so each case says exactly when the wait looks and when it
 * ends, and none depends on how fast the machine is.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { buildFrame, eventCarriesMessage, findRecorded, latestRelay, relaySource, SessionEvents, waitUntilRecorded } from '../../src/testing.js'

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

/** Whether `work` has settled by now (after flushing what is due on the fake clock). */
async function settledNow<T>(work: Promise<T>): Promise<{ settled: boolean, value?: T }> {
  let outcome: { settled: boolean, value?: T } = { settled: false }
  void work.then(value => { outcome = { settled: true, value } })
  await vi.advanceTimersByTimeAsync(0)
  return outcome
}

describe('waitUntilRecorded', () => {
  beforeEach(() => { vi.useFakeTimers() })
  afterEach(() => { vi.useRealTimers() })

  it('waits past the inbox insertion until the message joins the conversation, at the next look', async () => {
    const events: unknown[] = [{ seq: 1, data: { id: 'old' } }, { seq: 2, type: 'agent/inbox/spliced', data: { inserted: [{ id: 'r1' }] } }]
    let reads = 0
    const waiting = waitUntilRecorded(() => {
      // The harness appends the message's own user/message between the first look and the second.
      if (++reads === 2) events.push({ seq: 3, type: 'user/message', data: { id: 'r1' } })
      return events
    }, 'r1', { timeoutMs: 2000, signal: new AbortController().signal, from: 1 })
    expect((await settledNow(waiting)).settled).toBe(false)
    await vi.advanceTimersByTimeAsync(25)
    expect(await settledNow(waiting)).toEqual({ settled: true, value: { seq: 3, stage: 'conversation' } })
    expect(reads).toBe(2)
  })

  it('settles for the inbox when asked, and reports the inbox record at the bound', async () => {
    const events: unknown[] = [{ seq: 2, type: 'agent/inbox/spliced', data: { inserted: [{ id: 'r1' }] } }]
    expect(await settledNow(waitUntilRecorded(() => events, 'r1', { timeoutMs: 5000, signal: new AbortController().signal, settleForInbox: true }))).toEqual({ settled: true, value: { seq: 2, stage: 'inbox' } })
    const bounded = waitUntilRecorded(() => events, 'r1', { timeoutMs: 50, signal: new AbortController().signal })
    await vi.advanceTimersByTimeAsync(49)
    expect((await settledNow(bounded)).settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await settledNow(bounded)).toEqual({ settled: true, value: { seq: 2, stage: 'inbox' } })
  })

  it('gives up at the bound, on abort, or when the log cannot be read', async () => {
    const events: unknown[] = []
    const bounded = waitUntilRecorded(() => events, 'r1', { timeoutMs: 60, signal: new AbortController().signal })
    await vi.advanceTimersByTimeAsync(59)
    expect((await settledNow(bounded)).settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await settledNow(bounded)).toEqual({ settled: true, value: undefined })

    const controller = new AbortController()
    const aborted = waitUntilRecorded(() => events, 'r1', { timeoutMs: 10_000, signal: controller.signal })
    await vi.advanceTimersByTimeAsync(20)
    expect((await settledNow(aborted)).settled).toBe(false)
    controller.abort()
    // No more time passes: the abort alone ends the wait, far before its 10 s bound.
    expect(await settledNow(aborted)).toEqual({ settled: true, value: undefined })

    expect(await settledNow(waitUntilRecorded(() => undefined, 'r1', { timeoutMs: 1000, signal: new AbortController().signal }))).toEqual({ settled: true, value: undefined })
  })

  it('with the session\'s own events, looks again at each append and returns at the one that records it, no timer passing', async () => {
    const events: unknown[] = [{ seq: 0, type: 'agent/inbox/spliced', data: { inserted: [{ id: 'r1' }] } }]
    const appends = new SessionEvents()
    appends.available = true
    let reads = 0
    const waiting = waitUntilRecorded(() => {
      reads++
      return events
    }, 'r1', { timeoutMs: 5000, signal: new AbortController().signal, appended: (ms, signal) => appends.next('session-b', ms, signal) })
    expect((await settledNow(waiting)).settled).toBe(false)
    // An append of another session wakes nothing; one of this session that is not the record, one look.
    appends.notify('session-a')
    events.push({ seq: 1, type: 'turn/start', data: {} })
    appends.notify('session-b')
    expect((await settledNow(waiting)).settled).toBe(false)
    expect(reads).toBe(2)
    events.push({ seq: 2, type: 'user/message', data: { id: 'r1' } })
    appends.notify('session-b')
    // The clock never moved: the record came from the append, not from a poll.
    expect(await settledNow(waiting)).toEqual({ settled: true, value: { seq: 2, stage: 'conversation' } })
    expect(reads).toBe(3)
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('latestRelay (hop provenance: the relay source, docs/tools.md "The frame")', () => {
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

  it('recognises a delivery from before relay sources by the id this package assigned', () => {
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

  it('polls at 25 ms, doubling up to 500 ms (docs/tools.md "Accepted means recorded"), and looks once more at the bound', async () => {
    vi.useFakeTimers({ now: 0 })
    try {
      const looks: number[] = []
      const waiting = waitUntilRecorded(() => {
        looks.push(Date.now())
        return []
      }, 'r1', { timeoutMs: 1600, signal: new AbortController().signal })
      await vi.advanceTimersByTimeAsync(1600)
      expect(await settledNow(waiting)).toEqual({ settled: true, value: undefined })
      // 0, then +25, +50, +100, +200, +400, +500, and the bound at 1600 (a 25 ms poll would have looked 65 times).
      expect(looks).toEqual([0, 25, 75, 175, 375, 775, 1275, 1600])
    } finally {
      vi.useRealTimers()
    }
  })
})
