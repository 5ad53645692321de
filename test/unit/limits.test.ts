import { describe, expect, it } from 'vitest'
import { callIdentity, DUPLICATE_WINDOW_MS, MAX_TRACKED_ENTRIES, outgoingHop, RATE_WINDOW_MS, SendLimits } from '../../src/testing.js'

const input = { senderId: 'a', targetId: 'b', body: 'hi', latestRelay: undefined, maxHops: 4, maxSendsPerMinute: 3 }

describe('outgoingHop', () => {
  it('starts at hop 1 after a human-typed prompt', () => {
    expect(outgoingHop(undefined)).toEqual({ hop: 1 })
  })

  it('is one more than the hop this plugin recorded on the message that started the turn', () => {
    expect(outgoingHop({ senderSessionId: 'session-x', hop: 3 })).toEqual({ hop: 4, relayedFrom: 'session-x' })
  })
})

describe('SendLimits', () => {
  it('refuses past the hop limit and names the chain', () => {
    const limits = new SendLimits(() => 0)
    expect(limits.check({ ...input, latestRelay: { senderSessionId: 'session-x', hop: 4 } })).toEqual({ kind: 'hop-limit', hop: 5, maxHops: 4, chain: 'session-x → a → b' })
  })

  it('limits sends per sender→target pair per minute, and frees the slot after the window', () => {
    let now = 1_000_000
    const limits = new SendLimits(() => now)
    for (let index = 0; index < 3; index++) {
      expect(limits.check({ ...input, body: `m${index}` }).kind).toBe('ok')
      limits.recordDelivery('a', 'b', `m${index}`)
      now += 1000
    }
    expect(limits.check({ ...input, body: 'm3' })).toMatchObject({ kind: 'pair-rate', count: 3, perMinute: 3, retryInMs: RATE_WINDOW_MS - 3000 })
    // Another pair is not affected.
    expect(limits.check({ ...input, targetId: 'c', body: 'm3' }).kind).toBe('ok')
    now += RATE_WINDOW_MS
    expect(limits.check({ ...input, body: 'm3' }).kind).toBe('ok')
  })

  it('refuses the same body to the same target within the duplicate window', () => {
    let now = 0
    const limits = new SendLimits(() => now)
    limits.recordDelivery('a', 'b', 'same')
    now += 5000
    expect(limits.check({ ...input, body: 'same', maxSendsPerMinute: 100 })).toEqual({ kind: 'duplicate', agoMs: 5000 })
    expect(limits.check({ ...input, targetId: 'c', body: 'same' }).kind).toBe('ok')
    now += DUPLICATE_WINDOW_MS
    expect(limits.check({ ...input, body: 'same', maxSendsPerMinute: 100 }).kind).toBe('ok')
  })

  it('remembers delivered calls for retries by caller, call id and arguments', () => {
    const limits = new SendLimits()
    const x = callIdentity('call-1', { session_id: 't1', message: 'X' })
    expect(limits.earlierCallResult('a', x)).toBeUndefined()
    limits.recordCall('a', x, 'accepted …')
    expect(limits.earlierCallResult('a', x)).toBe('accepted …')
    expect(limits.earlierCallResult('b', x)).toBeUndefined()
    // A provider repeating call_0 for another send is a new call.
    expect(limits.earlierCallResult('a', callIdentity('call-1', { session_id: 't2', message: 'X' }))).toBeUndefined()
    expect(limits.earlierCallResult('a', callIdentity('call-1', { session_id: 't1', message: 'Y' }))).toBeUndefined()
    expect(limits.earlierCallResult('a', callIdentity('call-1', { session_id: 't1', message: 'X', mode: 'steer' }))).toBeUndefined()
    // No separator confusion between fields.
    expect(callIdentity('c', { session_id: 'a', message: 'b c' })).not.toBe(callIdentity('c', { session_id: 'a b', message: 'c' }))
  })

  it('keeps memory bounded whatever the number of peers', () => {
    const limits = new SendLimits()
    for (let index = 0; index < MAX_TRACKED_ENTRIES * 3; index++) {
      limits.recordDelivery('a', `peer-${index}`, 'x')
      limits.recordCall('a', callIdentity(`call-${index}`, { session_id: 'p', message: 'x' }), 'ok')
    }
    const size = limits.size()
    expect(size.pairs).toBeLessThanOrEqual(MAX_TRACKED_ENTRIES)
    expect(size.bodies).toBeLessThanOrEqual(MAX_TRACKED_ENTRIES)
    expect(size.calls).toBeLessThanOrEqual(MAX_TRACKED_ENTRIES)
  })
})
