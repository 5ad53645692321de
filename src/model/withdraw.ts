/**
 * Withdrawing a message (docs/tools.md#withdrawing-a-message,
 * docs/architecture.md §8, "Withdraw"): the shapes of the store's one
 * transition, and which stored ids a model's withdraw names. The transition
 * itself is `src/home/store-withdraw.ts`.
 *
 * A message waiting in the home store — `pending` in `messages` and never
 * claimed by any holder, or `held` for its target's user — can be withdrawn by its
 * sender until the target's holder claims it. The transition either wins
 * (the message is `withdrawn`: final, never delivered, never claimed or
 * re-offered) or loses to whatever came first and says where the message
 * is. A repeated withdraw gives the same answer. The store's port is
 * `src/ports/withdraw.ts`.
 *
 * @module dsh-cross-session/model/withdraw
 */

/** Which message: by its id (the page), or by what its sender sent (the model: target and argument digests, see {@link matchesSend}). */
export type WithdrawWhich =
  | { readonly messageId: string }
  | { readonly target: string, readonly digests: readonly string[] }

/** Where a message is that could not be withdrawn. */
export type Whereabouts =
  /** The target's log holds it at `seq` (answered at `answeredSeq` once a turn ended after it). */
  | { readonly kind: 'recorded', readonly seq: number, readonly answeredSeq?: number }
  /** The target's holder (process `pid`) claimed it and is putting it into the log. */
  | { readonly kind: 'claimed', readonly pid: number }
  /**
   * A holder claimed it and let the session go (or died) before recording it: it may be in the log already; the next
   * holder delivers it or finds it there.
   */
  | { readonly kind: 'handed-back' }
  /** Delivered by the sender's own process to a session live there: never waiting in the store. */
  | { readonly kind: 'delivered-here' }
  /** Refused: by its target's user (`user`), the target's inbound choice (`inbound`) or its holder (the holder's reason). */
  | { readonly kind: 'refused', readonly reason: string }
  /** Held for its target's user and not decided in time. */
  | { readonly kind: 'expired' }

/** Outcome of the home store's withdraw (`src/ports/withdraw.ts` `WithdrawStore`). */
export type WithdrawOutcome =
  /**
   * Withdrawn now or earlier (`at`, ms since the epoch); `was`: waiting in the store (`pending`) or held for the
   * target's user (`held`).
   */
  | { readonly ok: true, readonly messageId: string, readonly target: string, readonly was: 'pending' | 'held', readonly at: number }
  /** Too late: it is somewhere else now. */
  | { readonly ok: false, readonly reason: 'too-late', readonly messageId: string, readonly target: string, readonly where: Whereabouts }
  /** No message of this sender matches (never sent through the store, or swept). */
  | { readonly ok: false, readonly reason: 'unknown' }

/**
 * Whether `messageId` is one `sender` sent with one of `digests`: the id a
 * send gets is `cross-session:<sender>:<call id>:<digest>`
 * (`model/limits.ts` `requestIdFor`), the digest that of its `session_id`,
 * `message` and `mode`. Pure.
 */
export function matchesSend(messageId: string, sender: string, digests: readonly string[]): boolean {
  const prefix = `cross-session:${sender}:`
  return messageId.startsWith(prefix) && digests.some(digest => messageId.endsWith(`:${digest}`))
}
