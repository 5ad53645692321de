/**
 * Record what a holder found in a session's log once the harness has
 * written that log to disk (`sessions.flush`), then post the notices of its
 * watched turns that ended there (docs/architecture.md §8, "Delivery from
 * the log" and "Notices"): nothing is recorded or noticed from a log that a
 * SIGKILL could still lose.
 *
 * @module dsh-cross-session/home/persist-found
 */

import type { HostAgent } from '../harness/host.js'
import { hasFound, recordFound, type HeldSession } from './owner-delivery.js'
import type { HomeStore } from './store.js'
import { HOLDER_PACE, NO_ABORT, retryStore, STORE_RETRY_MS } from './store-retry.js'

/** What recording needs from the holder (`home/holding.ts`). */
export interface FoundRecorder {
  readonly store: HomeStore
  /** Write a live session's log to disk now (rc.8 `ctx.sessions.flush`); absent: nothing to wait for. */
  readonly flush?: (agent: HostAgent) => Promise<unknown>
  /** Tell other processes the store changed. */
  poke(): void
  /** Post the notices of watched turns that ended among the first `onDisk` events of `agent`'s log. */
  fireWatches(agent: HostAgent, onDisk: number): void
}

/**
 * Flush `agent`'s log, record what `held` found before the flush (and what
 * a completed turn answered), then look at the watches on it when a turn
 * ended. What is found after the flush was called waits for the next one.
 * @throws a failed flush or store write: what was found stays found, and the
 *   watch look is kept for the next flush.
 */
export async function persistFound(recorder: FoundRecorder, held: HeldSession, agent: HostAgent): Promise<void> {
  const batch = new Set(held.found.keys())
  const answeredAt = held.answeredAt
  const watchLook = held.watchLook === true && recorder.store.watchedTargets().has(held.target)
  held.watchLook = false
  if (!watchLook && !hasFound(held)) return
  // What the flush writes: the events there when it is called (a turn that ends after them waits for the next one).
  const onDisk = agent.session.events.length
  try {
    await recorder.flush?.(agent)
    // The store first in recordFound: a retry records only what is still found.
    if (await retryStore(() => recordFound(recorder.store, held, batch, answeredAt), NO_ABORT, STORE_RETRY_MS, HOLDER_PACE))
      recorder.poke()
    if (watchLook) recorder.fireWatches(agent, onDisk)
  } catch (error: unknown) {
    if (watchLook) held.watchLook = true // looked at again with the next flush
    throw error
  }
}
