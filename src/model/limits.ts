/**
 * Loop and flood limits of `sessions_send`: causal hop count, per-pair rate,
 * duplicate suppression, and the ledger that makes a retried tool call
 * deliver once.
 *
 * Rules: docs/tools.md#limits (`rate-limited`: the hop limit `maxHops`,
 * `maxSendsPerMinute` per sender→target pair, duplicates within 120 s,
 * retried calls) and docs/tools.md#sessions_send, "Retries" (`requestId`
 * from the call id and an argument digest). All state lives in `lru-cache`
 * instances with a fixed `max` and a `ttl`, so memory is bounded whatever
 * the number of peers (docs/tools.md#limits, "memory"; measured in
 * docs/performance.md, "Send limiter").
 *
 * @module dsh-cross-session/model/limits
 */

import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { RelayProvenance } from './provenance.js'

/** Step 8's verdict: go with the outgoing hop, or which limit refuses. */
export type LimitVerdict =
  | { readonly kind: 'ok', readonly hop: number }
  | { readonly kind: 'hop-limit', readonly hop: number, readonly maxHops: number, readonly chain: string }
  | { readonly kind: 'pair-rate', readonly count: number, readonly perMinute: number, readonly retryInMs: number }
  | { readonly kind: 'duplicate', readonly agoMs: number }

/** Window of the per-pair rate limit, ms. */
export const RATE_WINDOW_MS = 60_000
/** An identical body to the same target within this window is a duplicate, ms. */
export const DUPLICATE_WINDOW_MS = 120_000
/** How long a call (caller, call id, arguments) is remembered for retries, ms. */
const CALL_LEDGER_TTL_MS = 30 * 60_000
/** Most sender→target pairs (and bodies, and call ids) remembered at once. */
export const MAX_TRACKED_ENTRIES = 4096

/**
 * Hop of a message this session would send now: one more than the hop this
 * plugin recorded on the delivered message that started its current turn,
 * or 1 when a human started it (docs/tools.md#limits, hop limit). The hop
 * comes from the recorded source (`src/model/provenance.ts`), never from
 * text a model can write, so it holds with `frameMessages` on or off
 * (docs/tools.md#the-frame).
 * @param latestRelay - provenance of the caller's turn-starting message.
 * @returns the outgoing hop and, when relayed, the session that relayed to us.
 */
export function outgoingHop(latestRelay: RelayProvenance | undefined): { hop: number, relayedFrom?: string } {
  if (latestRelay === undefined) return { hop: 1 }
  return { hop: latestRelay.hop + 1, relayedFrom: latestRelay.senderSessionId }
}

/** A `(sender, target, body)` key: the body as a digest, so memory stays small. */
function bodyKey(senderId: string, targetId: string, body: string): string {
  const digest = createHash('sha256').update(body).digest('base64url')
  return `${senderId}\u0000${targetId}\u0000${digest}`
}

/** A `(sender, target)` key of the per-pair rate. */
function pairKey(senderId: string, targetId: string): string {
  return `${senderId}\u0000${targetId}`
}

/** A `(sender, call identity)` key of the retry ledger. */
function callKey(senderId: string, identity: string): string {
  return `${senderId}\u0000${identity}`
}

/**
 * Identity of one `sessions_send` call for retry recognition
 * (docs/tools.md#sessions_send, "Retries"):
 * the call id AND a digest of the arguments that decide the delivery
 * (target, body, mode). Some OpenAI-compatible providers repeat a call id
 * (`call_0`) in every response, so the call id alone does not name a call.
 * Pure; the digest is base64url SHA-256, 43 characters.
 */
export function callIdentity(callId: string,
  args: { readonly session_id: string, readonly message: string, readonly mode?: string | undefined }): string {
  const digest = createHash('sha256').update(JSON.stringify([args.session_id, args.message, args.mode ?? ''])).digest('base64url')
  return `${callId}\u0000${digest}`
}

/**
 * Correlation id (and, on rc.8, message id) of one send: caller plus
 * {@link callIdentity} — the call id and a digest of the arguments — so a
 * provider that repeats `call_0` for different sends never gives two
 * different messages one id, while a true retry keeps its id.
 */
export function requestIdFor(callerId: string, identity: string): string {
  const [callId = '', digest = ''] = identity.split('\u0000')
  return `cross-session:${callerId}:${callId}:${digest.slice(0, 16)}`
}

/** Bounded, per-plugin-instance send state. `now` is injectable for tests; `Result` is what a delivered call returned. */
export class SendLimits<Result extends object | string = string> {
  private readonly sends = new LRUCache<string, number[]>({ max: MAX_TRACKED_ENTRIES, ttl: RATE_WINDOW_MS })
  private readonly bodies = new LRUCache<string, number>({ max: MAX_TRACKED_ENTRIES, ttl: DUPLICATE_WINDOW_MS })
  private readonly calls = new LRUCache<string, Result>({ max: MAX_TRACKED_ENTRIES, ttl: CALL_LEDGER_TTL_MS })
  private readonly now: () => number

  constructor(now: () => number = Date.now) {
    this.now = now
  }

  /**
   * Step 8 of the send order: hop limit first (a relay loop is the costlier
   * failure), then the pair rate, then duplicates.
   */
  check(input: {
    senderId: string
    targetId: string
    body: string
    latestRelay: RelayProvenance | undefined
    maxHops: number
    maxSendsPerMinute: number
  }): LimitVerdict {
    const { hop, relayedFrom } = outgoingHop(input.latestRelay)
    if (hop > input.maxHops) {
      const chain = `${relayedFrom ?? '…'} → ${input.senderId} → ${input.targetId}`
      return { kind: 'hop-limit', hop, maxHops: input.maxHops, chain }
    }
    const now = this.now()
    const recent = this.recentSends(input.senderId, input.targetId, now)
    if (recent.length >= input.maxSendsPerMinute) {
      return {
        kind: 'pair-rate',
        count: recent.length,
        perMinute: input.maxSendsPerMinute,
        retryInMs: Math.max(0, (recent[0] ?? now) + RATE_WINDOW_MS - now),
      }
    }
    const deliveredAt = this.bodies.get(bodyKey(input.senderId, input.targetId, input.body))
    if (deliveredAt !== undefined && now - deliveredAt < DUPLICATE_WINDOW_MS) {
      return { kind: 'duplicate', agoMs: now - deliveredAt }
    }
    return { kind: 'ok', hop }
  }

  /** Count an admitted send against the pair rate and the duplicate window. */
  recordDelivery(senderId: string, targetId: string, body: string): void {
    const now = this.now()
    const key = pairKey(senderId, targetId)
    this.sends.set(key, [...this.recentSends(senderId, targetId, now), now])
    this.bodies.set(bodyKey(senderId, targetId, body), now)
  }

  /**
   * The result of an earlier delivered call by the same caller with the
   * same {@link callIdentity} (call id and arguments), if any.
   */
  earlierCallResult(senderId: string, identity: string): Result | undefined {
    return this.calls.get(callKey(senderId, identity))
  }

  /** Remember a delivered call's result for retries of the same call (same id, same arguments). */
  recordCall(senderId: string, identity: string, result: Result): void {
    this.calls.set(callKey(senderId, identity), result)
  }

  /** Entries held, for the benchmark's memory figures. */
  size(): { pairs: number, bodies: number, calls: number } {
    return { pairs: this.sends.size, bodies: this.bodies.size, calls: this.calls.size }
  }

  private recentSends(senderId: string, targetId: string, now: number): number[] {
    const times = this.sends.get(pairKey(senderId, targetId)) ?? []
    return times.filter(time => now - time < RATE_WINDOW_MS)
  }
}
