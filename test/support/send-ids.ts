/**
 * Message ids as `sessions_send` makes them (`model/limits.ts` `requestIdFor`
 * over `callIdentity`), for the withdraw tests of both stores
 * (test/unit/store-withdraw.test.ts, test/unit/store-contract-approvals.test.ts).
 *
 * @module test/support/send-ids
 */
import { callIdentity, requestIdFor } from '../../src/model/limits.js'

/** The sender the withdraw tests send as. */
export const SENDER = 'session-A'

let counter = 0

/** A message id as the send tool makes it, for `message` to `target` (a new tool call each time). */
export function sendId(target: string, message: string): string {
  return requestIdFor(SENDER, callIdentity(`call_${++counter}`, { session_id: target, message }))
}

/** The digest part a model's withdraw matches on. */
export function digestOf(target: string, message: string): string {
  return requestIdFor(SENDER, callIdentity('', { session_id: target, message })).split(':').at(-1)!
}
