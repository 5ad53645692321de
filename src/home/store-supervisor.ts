/**
 * One home store for the life of a process, whatever happens to it
 * (docs/architecture.md §8, "When the store fails"):
 *
 * - **cannot be used** (locked past the wait, full, an I/O error, cannot be
 *   opened, unsafe, a newer release's schema): every call of the store
 *   throws {@link StoreUnavailableError} at once, said once in the log; the
 *   process retries in the background (an unref'd timer, backing off from
 *   {@link RETRY_FIRST_MS} to {@link RETRY_MAX_MS}; each try waits at most
 *   {@link RETRY_BUSY_MS} for a lock) and on each call once the next try is
 *   due. Callers refuse what depends on another process's state.
 * - **opened again**: the listeners hear `opened` (the runtime joins, `home/runtime.ts`); the log says so.
 * - **deleted or replaced** (SQLite), or **its worker stopped** (PostgreSQL):
 *   before every call the site (`home/store-site.ts`) says whether the store
 *   open now is still the one there (SQLite: the path's dev and inode are the
 *   opened file's, one `stat`, a few µs). When it is not, the old store is
 *   closed, the one now there opened (a SQLite file made if it is gone:
 *   every process then opens that one file), and the listeners hear
 *   `moved`. What only the old file held is not seen again.
 *
 * {@link StoreSupervisor.store} is the {@link HomeStore} the home uses: each call goes to the store open now.
 *
 * @module dsh-cross-session/home/store-supervisor
 */

import type { CorpusRows } from '../index/shared-rows.js'
import type { ProcessTag } from '../harness/dsh-home.js'
import type { HomeStore } from './store.js'
import type { Rebuilt, SiteStore, StoreSite } from './store-site.js'
import { StoreUnavailableError, storeFaultWhy, storeLogLines } from './store-fault.js'

/** First delay of the background retry, ms; it doubles after each failed try. */
export const RETRY_FIRST_MS = 250
/** Longest delay of the background retry, ms. */
export const RETRY_MAX_MS = 30_000
/** How long opening (at start, each retry) waits for another process's write lock, ms; only a new or older store needs it. */
export const RETRY_BUSY_MS = 20

/** What the listeners hear: the store could be used again, or the process moved to the store now at the site. */
export type StoreEvent = 'opened' | 'moved'

/** The store's state, for the log and the web UI. */
export interface StoreStatus {
  readonly open: boolean
  /** Why it cannot be used (no path), while it cannot. */
  readonly why?: string
  /** Since when it cannot be used, ms. */
  readonly since?: number
  /** An unreadable store was moved aside before this one was made: when, and where it is. */
  readonly rebuilt?: Rebuilt
}

/** The supervised home store of one process. */
export class StoreSupervisor {
  /** The store to use: every call goes to the store open now, or throws {@link StoreUnavailableError}. */
  readonly store: HomeStore
  private readonly site: StoreSite
  private readonly log: (message: string) => void
  private readonly now: () => number
  private readonly listeners = new Set<(event: StoreEvent) => void>()
  private current: SiteStore | undefined
  private down: { why: string, since: number } | undefined
  private rebuilt: StoreStatus['rebuilt']
  private nextTry = 0
  private delay = RETRY_FIRST_MS
  private timer: ReturnType<typeof setTimeout> | undefined
  private closed = false
  private rows: { of: SiteStore, rows: CorpusRows } | undefined

  /**
   * @param site - where the store lives: it opens the store and says, before each call, whether it is still the one there.
   * @param self - this process.
   */
  constructor(site: StoreSite, self: ProcessTag, log: (message: string) => void, now: () => number = Date.now) {
    this.site = site
    this.log = log
    this.now = now
    this.store = new Proxy({} as HomeStore, {
      get: (_target, key) => {
        if (key === 'self') return self
        if (key === 'close') return () => this.close()
        if (typeof key !== 'string' || key === 'then') return undefined
        return (...args: unknown[]) => {
          const store = this.use() as unknown as Record<string, (...given: unknown[]) => unknown>
          return store[key]!.apply(store, args)
        }
      },
    })
  }

  /** Open the store now, waiting up to `busyMs` for a lock (at start: the full wait); on failure the background retry starts. */
  start(busyMs: number): void {
    this.attempt(busyMs)
  }

  /** Hear `opened` and `moved`; returns the removal. */
  listen(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** The store's state now. */
  status(): StoreStatus {
    if (this.down !== undefined) return { open: false, why: this.down.why, since: this.down.since }
    return this.rebuilt === undefined ? { open: this.current !== undefined } : { open: this.current !== undefined, rebuilt: this.rebuilt }
  }

  /** The corpus index's shared rows of the store open now (`undefined` while none is). */
  corpus(): CorpusRows | undefined {
    try {
      const store = this.use()
      if (this.rows?.of !== store) this.rows = { of: store, rows: store.corpus() }
      return this.rows.rows
    } catch (error: unknown) {
      if (storeFaultWhy(error) === undefined) throw error
      return undefined
    }
  }

  close(): void {
    this.closed = true
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    this.current?.close()
    this.current = undefined
  }

  private use(): SiteStore {
    if (this.closed) throw new StoreUnavailableError('the store was closed')
    const current = this.current
    if (current !== undefined && this.site.holds(current)) return current
    if (current !== undefined || this.now() >= this.nextTry) this.attempt(RETRY_BUSY_MS)
    if (this.current === undefined) throw new StoreUnavailableError(this.down?.why ?? 'it is not open')
    return this.current
  }

  /** One try: open the store at the site; on success swap it in and tell the listeners, else fail closed and retry later. */
  private attempt(busyMs: number): boolean {
    const before = this.current
    // A store no longer at the site is never used again: writing there would split the home.
    before?.close()
    this.current = undefined
    if (before !== undefined) this.site.left?.()
    try {
      const next = this.site.open(busyMs)
      this.current = next
      this.rebuilt = next.rebuilt?.()
    } catch (error: unknown) {
      this.current?.close()
      this.current = undefined
      const why = storeFaultWhy(error) ?? 'it could not be opened'
      if (this.down === undefined) {
        this.log(storeLogLines.down(why, error))
        this.down = { why, since: this.now() }
      } else {
        this.down = { why, since: this.down.since }
      }
      this.retryLater()
      return false
    }
    const wasDown = this.down !== undefined
    this.down = undefined
    this.delay = RETRY_FIRST_MS
    if (wasDown) this.log(storeLogLines.up)
    if (before !== undefined) this.log(storeLogLines.moved(this.site.where))
    const event: StoreEvent = before === undefined ? 'opened' : 'moved'
    // After the call that noticed it: a listener uses the store itself.
    if (wasDown || before !== undefined) queueMicrotask(() => this.emit(event))
    return true
  }

  /** Tell the listeners (the runtime's `rejoin` catches its own errors, `home/runtime.ts`). */
  private emit(event: StoreEvent): void {
    for (const listener of [...this.listeners]) listener(event)
  }

  private retryLater(): void {
    this.nextTry = this.now() + this.delay
    if (this.timer !== undefined || this.closed) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      if (this.closed || this.current !== undefined) return
      this.attempt(RETRY_BUSY_MS)
    }, this.delay)
    this.timer.unref?.()
    this.delay = Math.min(this.delay * 2, RETRY_MAX_MS)
  }
}
