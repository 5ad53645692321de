/**
 * A step of a send that met a store fault (`home/store-fault.ts`) is tried
 * again, asynchronously, for a bounded time, so a store locked for a moment
 * (another process's transaction, a backup, a process starting) costs the
 * sender a short wait with the event loop free, not a refusal; and a store
 * still unusable at the bound is refused with its reason
 * (docs/architecture.md §8, "When the store fails").
 *
 * Only steps that did nothing before the fault are retried: a store
 * transition is one transaction (it committed or it did not), the guard's
 * wake takes the store before it wakes anything, and a post is idempotent
 * by message id (`home/store.ts`).
 *
 * @module dsh-cross-session/home/store-retry
 */

import { storeFaultWhy } from './store-fault.js'
import { sleep } from '../harness/recorded.js'

/** How long a send keeps trying a store that cannot be used, ms. */
export const STORE_RETRY_MS = 5000
/** First pause between two tries, ms; it doubles up to {@link STORE_RETRY_PAUSE_MAX_MS}. */
const STORE_RETRY_PAUSE_MS = 25
const STORE_RETRY_PAUSE_MAX_MS = 500

/**
 * Run `step`; while it throws a store fault, pause and run it again, for at
 * most `budgetMs` (or until `signal` aborts).
 * @returns what `step` returned.
 * @throws the last store fault once the budget is spent; any other error at once.
 */
export async function retryStore<T>(step: () => T | Promise<T>, signal: AbortSignal, budgetMs: number = STORE_RETRY_MS): Promise<T> {
  const until = Date.now() + budgetMs
  let wait = STORE_RETRY_PAUSE_MS
  for (;;) {
    try {
      return await step()
    } catch (error: unknown) {
      const left = until - Date.now()
      if (storeFaultWhy(error) === undefined || left <= 0 || signal.aborted) throw error
      await sleep(Math.min(wait, left), signal)
      wait = Math.min(wait * 2, STORE_RETRY_PAUSE_MAX_MS)
    }
  }
}

/** How long a step left to the background (a holder letting go after a failed wake) keeps trying, ms. */
export const BACKGROUND_RETRY_MS = 60_000
const NEVER = new AbortController().signal

/**
 * Run `step` now; when it meets a store fault, run it again in the
 * background (as {@link retryStore}, for at most `budgetMs`) while `still()`
 * says it is still wanted; a fault left at the bound is logged. Used where
 * the caller cannot wait and the step must not be lost (a row left `waking`
 * by a failed wake would keep the session from every other process).
 * @throws any error of the first run that is not a store fault.
 */
export function retryInBackground(step: () => void, still: () => boolean, log: (message: string) => void, budgetMs: number = BACKGROUND_RETRY_MS): void {
  try {
    step()
    return
  } catch (error: unknown) {
    if (storeFaultWhy(error) === undefined) throw error
  }
  void retryStore(() => {
    if (still()) step()
  }, NEVER, budgetMs).catch((error: unknown) => log(`a cross-session store step failed and was given up after ${budgetMs} ms: ${String(error)}`))
}
