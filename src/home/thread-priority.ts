/**
 * The priority of the store's worker thread (`home/store-worker.ts`).
 *
 * Handing the worker a request wakes it, and at equal priority Linux lets a
 * woken thread take the core from the event loop that woke it; on a busy
 * machine that loop then waits for a core behind every other runnable
 * thread. So the worker runs below its process's event loop: a `dsh web`
 * host's page and turns keep the core, and the store's transactions take
 * what is left (docs/performance.md "A message's transactions off the event
 * loop").
 *
 * @module dsh-cross-session/home/thread-priority
 */

import { getPriority, setPriority } from 'node:os'

/**
 * How many nice steps the store's worker thread runs below the thread that started it (its process's event loop; a
 * higher nice value yields the core more). Chosen with the load bench (docs/performance.md "A message's transactions
 * off the event loop"): on 2 cores, 24 processes posting at once, 4 steps cut the longest stalls by about a fifth
 * and made the posting about 15 % slower; 10 steps cut a little more and made it 1.8 times as slow.
 */
export const STORE_WORKER_NICE_STEPS = 4

/** The highest (least favoured) nice value. */
const NICEST = 19

/**
 * Lower the calling thread's priority by `steps` nice steps (at most to 19). A thread starts with the nice value of
 * the thread that made it, and raising it needs no privilege.
 *
 * Linux keeps a nice value per thread, and `who = 0` names the calling thread (setpriority(2), "Bugs"): no thread id
 * is read, so another process can never be reniced by a thread id read in another pid namespace. Elsewhere a nice
 * value is the whole process's, so nothing is changed there; if refused, the thread keeps its priority and nothing is
 * thrown: only how soon its work runs moves, never what it does.
 */
export function lowerThisThread(steps: number): void {
  if (process.platform !== 'linux') return
  try {
    setPriority(0, Math.min(NICEST, getPriority(0) + steps))
  } catch {
    // Not allowed (a sandbox without the call): the same work at the thread's priority.
  }
}
