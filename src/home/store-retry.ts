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

import { isBusy, storeFaultWhy } from './store-fault.js'
import { sleep } from '../harness/recorded.js'
import { withLockWait, withoutLockWait } from './lock-patience.js'

/**
 * How long a send keeps trying a store that cannot be used, ms. A sender's
 * try waits at most {@link SENDER_PACE}'s `loopWaitMs` on the event loop, a holder's none
 * (`home/lock-patience.ts`); the rest of the wait is paced here with the loop free. Under heavy
 * contention (24 processes posting at once on a loaded 2-core machine) a
 * post can wait seconds for its turn (docs/performance.md, "Many processes
 * posting at once").
 */
export const STORE_RETRY_MS = 10_000
/**
 * Pauses between two tries, ms: the first, doubling up to the longest, each
 * drawn at random between half and all of it. Short: a lock is held for one
 * transaction, and with many processes waiting, one that has waited long must
 * keep trying about as often as one that just came, or it starves. A holder
 * tries more often than a sender ({@link HOLDER_PACE}): every sender waits for
 * the holder's claim and record, so a holder outrun by its senders slows them all.
 */
export interface RetryPace {
  readonly firstMs: number
  readonly longestMs: number
  /**
   * Only another process's lock is waited out (`isBusy`); any other fault is thrown at once (a store that is down comes
   * back through the supervisor).
   */
  readonly busyOnly?: boolean
  /**
   * How long each try waits for a lock on the event loop, ms, before it meets `SQLITE_BUSY` and the rest of the wait
   * is paced here with the loop free (`home/lock-patience.ts`). Absent: 0, a try meets a lock at once (a holder: a
   * `dsh web` host's page and running turns must not freeze). A sender waits a little: in a burst of many senders,
   * SQLite's own short waits take a freed lock sooner than paced tries alone (docs/performance.md "Where a posting
   * process's time went").
   */
  readonly loopWaitMs?: number
}
/** A sender's pace: each try waits at most 8 ms on the event loop. */
export const SENDER_PACE: RetryPace = { firstMs: 3, longestMs: 20, loopWaitMs: 8 }
/** A holder's pace (its drain and records, `home/holding.ts`). */
export const HOLDER_PACE: RetryPace = { firstMs: 5, longestMs: 20, busyOnly: true }

/** A holder's retries end at their bound; stopping is checked in each step (`home/holding.ts`). */
export const NO_ABORT: AbortSignal = new AbortController().signal

/**
 * Run `step`; while it throws a store fault, pause and run it again, for at
 * most `budgetMs` (or until `signal` aborts).
 * @returns what `step` returned.
 * @throws the last store fault once the budget is spent; any other error at once.
 */
export async function retryStore<T>(step: () => T | Promise<T>, signal: AbortSignal, budgetMs: number = STORE_RETRY_MS,
  pace: RetryPace = SENDER_PACE): Promise<T> {
  const until = Date.now() + budgetMs
  let wait = pace.firstMs
  for (;;) {
    try {
      return await withLockWait(pace.loopWaitMs ?? 0, step)
    } catch (error: unknown) {
      const left = until - Date.now()
      if (storeFaultWhy(error) === undefined || (pace.busyOnly === true && !isBusy(error)) || left <= 0 || signal.aborted) throw error
      await sleep(Math.min(wait * (0.5 + Math.random() / 2), left), signal)
      wait = Math.min(wait * 2, pace.longestMs)
    }
  }
}

/**
 * How long a step that answers someone now waits out another process's
 * write lock, ms, with the event loop free (`waitOutLock`): a user's click
 * in the page (`home/channel.ts`) and a refused local admission dropping
 * its row before the refusal (`home/local-delivery.ts`). A sweep or an
 * index write holds the lock for a moment.
 */
export const LOCK_WAIT_MS = 2_000
const LOCK_WAIT_PACE: RetryPace = { firstMs: SENDER_PACE.firstMs, longestMs: SENDER_PACE.longestMs, busyOnly: true }

/**
 * Run `step`; while another process's lock (`SQLITE_BUSY`) keeps it from
 * running, pause and run it again, for at most {@link LOCK_WAIT_MS}.
 * @throws any other store fault at once; the lock's fault once the wait is spent; any other error at once.
 */
export function waitOutLock<T>(step: () => T, signal: AbortSignal = NO_ABORT): Promise<T> {
  return retryStore(step, signal, LOCK_WAIT_MS, LOCK_WAIT_PACE)
}

/** How long a step left to the background (a holder letting go after a failed wake) keeps trying, ms. */
export const BACKGROUND_RETRY_MS = 60_000
const NEVER = new AbortController().signal

/**
 * Run `step` now, with no lock wait on the event loop (`home/lock-patience.ts`); when it meets another process's lock (`SQLITE_BUSY`), run
 * it again in the background (for at most `budgetMs`, at the holder's pace)
 * while `still()` says it is still wanted; a lock left at the bound is
 * logged. Another store fault is left to the supervisor (the store is down:
 * its rows are judged again once it is back). Used where the caller cannot
 * wait and the step must not be lost to a moment's lock (a row left `waking`
 * by a failed wake would keep the session from every other process).
 * @throws any error of the first run that is not a store fault.
 */
export function retryInBackground(step: () => void, still: () => boolean, log: (message: string) => void,
  budgetMs: number = BACKGROUND_RETRY_MS): void {
  try {
    // Its caller cannot wait: the first try meets a lock at once too, and the wait is paced in the background.
    withoutLockWait(step)
    return
  } catch (error: unknown) {
    if (storeFaultWhy(error) === undefined) throw error
    // A store that is down comes back through the supervisor, whose listeners join again (`home/runtime.ts` `rejoin`).
    if (!isBusy(error)) return
  }
  void retryStore(() => {
    if (still()) step()
  }, NEVER, budgetMs, HOLDER_PACE)
    .catch((error: unknown) => log(`a cross-session store step failed and was given up after ${budgetMs} ms: ${String(error)}`))
}
