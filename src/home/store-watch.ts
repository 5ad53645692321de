/**
 * Notice, cheaply, when another process commits to the home store.
 *
 * Two sources, both unref'd so nothing keeps a headless run alive:
 * - `fs.watch` on the store's directory (a commit writes the `-wal` file, so
 *   inotify reports it within milliseconds), or, for a store that says so
 *   itself (the PostgreSQL store hears `NOTIFY`, `home/pg/pg-home-store.ts`),
 *   what it pushes;
 * - a fallback poll of `changed()` (`PRAGMA data_version`: one statement, a
 *   few µs), for file systems where watching reports nothing.
 *
 * Either runs the listeners once per observed change; a burst of events
 * schedules one run.
 *
 * @module dsh-cross-session/home/store-watch
 */

import { watch, type FSWatcher } from 'node:fs'
import type { HomeStore } from './store.js'

/** Fallback poll of the store while idle, ms. */
export const STORE_POLL_MS = 1000

/** Interval at which {@link StoreWatch.until} probes again without a change, ms. */
const REPROBE_MS = 250
/** Delays of the re-checks after a file event, ms. */
const RECHECK_MS = [5, 25, 100, 250] as const

/** Watches one store; listeners run after each change by another process (and on {@link StoreWatch.poke}). */
export class StoreWatch {
  private readonly store: HomeStore
  private readonly listeners = new Set<() => void>()
  private watcher: FSWatcher | undefined
  private unpush: (() => void) | undefined
  private timer: ReturnType<typeof setInterval> | undefined
  private scheduled = false
  /** When the last file event came, and when the store was last looked at, ms. */
  private lastEvent = 0
  private lastCheck = 0
  /** The one pending re-check, and when it is due (ms). */
  private recheck: ReturnType<typeof setTimeout> | undefined
  private recheckAt = 0

  /**
   * @param dir - the store's directory, watched; or `pushed`, the store's own way to say it changed (its removal returned).
   */
  constructor(store: HomeStore, dir: string | { readonly pushed: (changed: () => void) => () => void }, pollMs: number = STORE_POLL_MS) {
    this.store = store
    if (typeof dir !== 'string') this.unpush = dir.pushed(() => this.checkSoon())
    else {
      try {
        this.watcher = watch(dir, { persistent: false }, () => this.checkSoon())
        this.watcher.on('error', () => this.watcher?.close())
      } catch {
        // Watching is an optimisation; the poll below still notices changes.
      }
    }
    this.timer = setInterval(() => this.check(), pollMs)
    this.timer.unref?.()
  }

  /** Run `listener` after each change; returns its removal. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Run the listeners soon, whether or not another process changed anything (this process did). */
  poke(): void {
    this.schedule()
  }

  /**
   * A file event can precede the commit it belongs to (the writer updates
   * the WAL index after its last write), so look again shortly after the
   * last event. One commit fires several events and every process of the
   * home sees each one, so a process looks at most once per
   * `RECHECK_MS[0]` at once and keeps one timer for the looks after, not a
   * burst of timers per event (with many processes committing, those
   * wake-ups were most of every process's work).
   */
  private checkSoon(): void {
    const now = Date.now()
    this.lastEvent = now
    if (now - this.lastCheck >= RECHECK_MS[0]) this.check()
    this.armRecheck()
  }

  /** The next look after the last file event ({@link RECHECK_MS} after it), on the one timer. */
  private armRecheck(): void {
    const since = Date.now() - this.lastEvent
    const next = RECHECK_MS.find(ms => ms > since)
    if (next === undefined || this.watcher === undefined) return
    const at = this.lastEvent + next
    if (this.recheck !== undefined && this.recheckAt <= at) return
    clearTimeout(this.recheck)
    this.recheckAt = at
    this.recheck = setTimeout(() => {
      this.recheck = undefined
      this.check()
      this.armRecheck()
    }, at - Date.now())
    this.recheck.unref?.()
  }

  private check(): void {
    this.lastCheck = Date.now()
    try {
      if (this.store.changed()) this.schedule()
    } catch {
      // A closed store (shutdown under way): nothing to notice.
    }
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      for (const listener of [...this.listeners]) listener()
    }).unref?.()
  }

  /**
   * Wait until `probe()` returns a value, re-probing after each change, at most `timeoutMs`.
   * @returns the value, or the last probe's `undefined` when the bound or the signal ended the wait.
   */
  async until<T>(probe: () => T | undefined, timeoutMs: number, signal: AbortSignal): Promise<T | undefined> {
    const first = probe()
    if (first !== undefined || timeoutMs <= 0 || signal.aborted) return first
    return await new Promise<T | undefined>(resolve => {
      let done = false
      const finish = (value: T | undefined): void => {
        if (done) return
        done = true
        clearTimeout(timer)
        clearInterval(again)
        remove()
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      }
      const onAbort = (): void => finish(probe())
      const look = (): void => {
        const value = probe()
        if (value !== undefined) finish(value)
      }
      const remove = this.listen(look)
      // Also look now and then: a probe may depend on time or on other processes' liveness, not only on commits.
      const again = setInterval(look, REPROBE_MS)
      again.unref?.()
      const timer = setTimeout(() => finish(probe()), timeoutMs)
      timer.unref?.()
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  stop(): void {
    this.watcher?.close()
    this.watcher = undefined
    this.unpush?.()
    this.unpush = undefined
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
    clearTimeout(this.recheck)
    this.recheck = undefined
    this.listeners.clear()
  }
}
