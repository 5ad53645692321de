/**
 * How long a store transition waits on the event loop for another
 * process's write lock. SQLite's `busy_timeout` sleeps the calling thread:
 * every ms of it freezes this process (its page, its running turns). A
 * holder's step run by `retryStore` (`home/store-retry.ts` `HOLDER_PACE`,
 * a click's `waitOutLock`), the runtime's join at start and its tick already
 * wait out a lock with the event loop free, so their transitions do not
 * wait here at all: a locked store fails them at once (`SQLITE_BUSY`) and
 * the retry, or the next tick, paces the wait. A sender's tries wait a
 * little (`SENDER_PACE`, 8 ms: in a burst of senders, SQLite's own short
 * waits take a freed lock sooner than paced tries alone; docs/performance.md
 * "Where a posting process's time went"). docs/architecture.md §8, "When
 * the store fails".
 *
 * The mode is per process and holds for the transitions a step begins
 * before its first `await` (a step is one decision; its store calls come
 * first). Any other transition waits up to {@link BUSY_TIMEOUT_MS}.
 *
 * @module dsh-cross-session/home/lock-patience
 */

/** How long a transition outside a retried step waits on the event loop for another process's write lock, ms; then `SQLITE_BUSY`. */
export const BUSY_TIMEOUT_MS = 25

/** The wait a step run by {@link withLockWait} set, while it runs; `undefined` outside one. */
let current: number | undefined

/**
 * Run `step` with every transition it begins synchronously waiting at most
 * `ms` on the event loop for another process's lock.
 * @returns what `step` returned (a promise from an async step, whose later transitions wait as usual).
 * @throws what `step` throws.
 */
export function withLockWait<T>(ms: number, step: () => T): T {
  const outer = current
  current = ms
  try {
    return step()
  } finally {
    current = outer
  }
}

/**
 * Run `step` with every transition it begins synchronously failing at once
 * on another process's lock ({@link withLockWait} of 0 ms).
 * @returns what `step` returned.
 * @throws what `step` throws.
 */
export function withoutLockWait<T>(step: () => T): T {
  return withLockWait(0, step)
}

/** The lock wait of a transition begun now, ms (`home/store-connection.ts` sets it as `busy_timeout`). */
export function lockWaitMs(): number {
  return current ?? BUSY_TIMEOUT_MS
}
