/**
 * A process joins the home store: at start, and again once a store that
 * could not be used opens or its file was replaced (`home/store-supervisor.ts`,
 * docs/architecture.md §8, "When the store fails").
 *
 * @module dsh-cross-session/home/join
 */

import type { HomeStore } from './store.js'

/**
 * Register this process; let go of rows an earlier runtime of this process
 * left (a plugin reload) for sessions no longer live here; return its claims
 * left in flight to pending (delivered again, after the log check).
 * @throws what the store throws (a store that cannot be used).
 */
export function joinStore(store: HomeStore, longLived: boolean, isLiveHere: (sessionId: string) => boolean): void {
  store.join(longLived)
  for (const sessionId of store.heldHere()) if (!isLiveHere(sessionId)) store.release(sessionId, 'released')
  store.unclaimAll()
}

/**
 * Hold again, in a store file that may not know them, the sessions held live
 * here; one held by another living process there is logged (the harness
 * has it open in both).
 * @throws what the store throws.
 */
export function holdAgain(store: HomeStore, heldHere: readonly string[], log: (message: string) => void): void {
  for (const sessionId of heldHere) {
    const held = store.markLive(sessionId)
    if (!held.ok) log(`session ${sessionId} is live here and, in the store file now in use, held by dsh process ${held.holder.tag.pid}`)
  }
}

/**
 * This process lets go of the store (`how`: `released` at disposal, `exited`
 * at exit).
 * @returns `undefined`, or the error when the store could not be written (its
 *   rows are then judged by pid + start time once the process is gone).
 */
export function leaveStore(store: HomeStore, how: 'released' | 'exited'): unknown {
  try {
    store.leave(how)
    return undefined
  } catch (error: unknown) {
    return error ?? 'failed'
  }
}
