/**
 * A `HomeRuntime` over a real store with no agents, whose ticks a test runs
 * by hand (no reconcile timer, no exit hook) and whose log lines it reads:
 * for what a tick does with the store alone (its faults, its lock waits).
 *
 * @module test/support/hand-ticked-runtime
 */
import { HomeRuntime, storePaths, StoreWatch, type HomeStore } from '../../src/testing.js'

interface Options {
  readonly longLived: boolean
  readonly cleanups: Array<() => void>
  readonly watched?: HomeStore
}

/**
 * Build it (not started) on `store`, watching the store of `home` through `watched` (the store itself unless given).
 * Its stop (and the watch's) is pushed to `cleanups`.
 */
export function handTickedRuntime(home: string, store: HomeStore, options: Options): { runtime: HomeRuntime, logged: string[] } {
  const watch = new StoreWatch(options.watched ?? store, storePaths(home).dir)
  const logged: string[] = []
  const runtime = new HomeRuntime(store, watch, {
    agents: { get: () => undefined, list: () => [], resume: () => Promise.reject(new Error('no resume here')) },
    log: line => logged.push(line),
    longLived: () => options.longLived,
    flush: async () => undefined,
    clock: { every: () => () => undefined, atExit: () => () => undefined },
  })
  options.cleanups.push(() => {
    runtime.stop()
    watch.stop()
  })
  return { runtime, logged }
}
