/**
 * The runtime's two ties to its process, the reconcile timer and the exit
 * hook, and its periods (reconcile, sweep, retention). The default is the process's own (`setInterval`, unref'd so it
 * keeps no process alive; `process.once('exit')`); the crash schedules
 * (test/support/home-schedule.ts) pass one they drive, so many runtimes
 * share one test process and tick only when a step says so.
 *
 * @module dsh-cross-session/home/runtime-clock
 */

/** How long recorded and refused messages stay in the store (their senders have long read them), ms. */
export const RETAIN_MS = 60 * 60_000
/** How often a process sweeps the store, ms (and once at start). */
export const SWEEP_EVERY_MS = 10 * 60_000
/** Interval of the reconcile with the registry (sessions a preset-scoped mount is not told about), ms. */
export const RECONCILE_MS = 2000

/** How a runtime is ticked and told of its process's exit. */
export interface RuntimeClock {
  /** Run `tick` every `ms` (ms); returns its cancel. */
  every(ms: number, tick: () => void): () => void
  /** Run `hook` once when the process exits; returns its removal. */
  atExit(hook: () => void): () => void
}

/** The process's own timer and exit event. */
export const PROCESS_CLOCK: RuntimeClock = {
  every(ms, tick) {
    const timer = setInterval(tick, ms)
    timer.unref?.()
    return () => clearInterval(timer)
  },
  atExit(hook) {
    process.once('exit', hook)
    return () => process.removeListener('exit', hook)
  },
}
