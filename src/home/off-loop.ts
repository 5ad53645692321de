/**
 * The transitions a message's path runs once per message — a sender's
 * `post`, a holder's `claim` and `recordAll` — run off the process's event
 * loop: on a worker thread (`node:worker_threads`, `home/store-worker.ts`)
 * with a connection of its own to the store file this process opened. Their
 * waits for another process's write lock and their `COMMIT`s (each a disk
 * sync, `synchronous = FULL`) then never stall the process's page, its
 * running turns or its timers (docs/architecture.md §8, "Off the event
 * loop").
 *
 * Each transition is the same code either way (`SqliteHomeStore`'s own
 * method, run by the worker's store), one transaction on one file: SQLite
 * orders the worker's connection and the process's own like any two
 * connections. The worker starts with the store (a process that opens the
 * store posts or holds); until it has opened its connection, and for good
 * once it failed to open one or stopped, a transition runs on the event loop
 * as before: nothing waits for the worker.
 *
 * @module dsh-cross-session/home/off-loop
 */

import { Worker } from 'node:worker_threads'
import { workerEntry } from '../core/worker-entry.js'
import type { ProcessTag } from '../harness/dsh-home.js'
import { lockWaitMs } from './lock-patience.js'
import { rebuildError, storeFault, type CarriedError } from './store-fault.js'
import type { TransactionTimes } from './store-connection.js'

/** The transitions run off the loop (each a method of `SqliteHomeStore` of the same name). */
export type OffLoopMethod = 'post' | 'claim' | 'recordAll'

/** What the worker is started with. */
export interface StoreWorkerData {
  /** The store file this process opened. */
  readonly file: string
  /** Its identity (`dev:ino`, `home/store-files.ts` `fileIdentity`) when this process opened it: the worker opens that file or none. */
  readonly identity: string
  readonly self: ProcessTag
}

/** One request to the worker: run `method` with `args`, waiting at most `lockWaitMs` inside SQLite for another process's lock. */
export type OffLoopRequest =
  | { readonly id: number, readonly method: OffLoopMethod, readonly args: readonly unknown[], readonly lockWaitMs: number }
  | { readonly id: number, readonly method: 'times' }

/** What the worker says: once, whether it opened its connection; then one answer per request, in order. */
export type OffLoopAnswer =
  | { readonly opened: true }
  | { readonly opened: false, readonly why: string }
  | { readonly id: number, readonly ok: true, readonly value: unknown }
  | { readonly id: number, readonly ok: false, readonly error: CarriedError }

/** Where a store runs its per-message transitions off the loop: a worker thread ({@link OffLoop}), or a test's stand-in. */
export interface OffLoopRunner {
  /** Run `method` (with `args`) off the loop, or `here()` now, on the loop. */
  run<T>(method: OffLoopMethod, args: readonly unknown[], here: () => T): Promise<T>
  /** The off-loop connection's transactions (for the bench); `undefined` while there is none. */
  times(): Promise<TransactionTimes | undefined>
  /** The store closes: what is in flight is rejected as a store fault. */
  close(): void
}

/** `here()` run now, on the event loop, as a promise: what it returns resolves it, what it throws rejects it. */
export function onTheLoop<T>(here: () => T): Promise<T> {
  try {
    return Promise.resolve(here())
  } catch (error: unknown) {
    return Promise.reject(error)
  }
}

type Pending = { readonly resolve: (value: unknown) => void, readonly reject: (error: unknown) => void }

/** The worker of one open store. */
export class OffLoop implements OffLoopRunner {
  private readonly data: StoreWorkerData
  private readonly log: (message: string) => void
  private readonly lost: () => void
  private worker: Worker | undefined
  private state: 'idle' | 'starting' | 'open' | 'off' = 'idle'
  private nextId = 1
  private readonly pending = new Map<number, Pending>()

  /**
   * @param data - the store file this process opened.
   * @param log - where a worker that could not open, or stopped, is said once.
   * @param lost - called when a worker stopped with transitions in flight: one may have committed unanswered (a claim
   *   then held by this process, which no retry takes again).
   */
  constructor(data: StoreWorkerData, log: (message: string) => void, lost: () => void) {
    this.data = data
    this.log = log
    this.lost = lost
  }

  /** Whether transitions now go to the worker. */
  get open(): boolean {
    return this.state === 'open'
  }

  /**
   * Run `method` on the worker once it is open, else `here()` now, on the event loop.
   * @returns what the transition returned.
   * @throws (rejects with) what it threw, with SQLite's codes kept (`home/store-fault.ts` judges it); a worker that
   *   stopped with it in flight rejects it as a store fault, so a retry runs it again (on the loop).
   */
  run<T>(method: OffLoopMethod, args: readonly unknown[], here: () => T): Promise<T> {
    if (this.state !== 'open') return onTheLoop(here)
    // Read now, inside the caller's step (`home/lock-patience.ts` scopes it to the synchronous run of the step).
    return this.ask<T>({ id: this.nextId++, method, args, lockWaitMs: lockWaitMs() })
  }

  /** The worker connection's transactions and their longest lock wait and commit, ms (for the bench); `undefined` while none is open. */
  async times(): Promise<TransactionTimes | undefined> {
    return this.state === 'open' ? await this.ask<TransactionTimes>({ id: this.nextId++, method: 'times' }) : undefined
  }

  /** Stop the worker (the store is closed); what is in flight is rejected as a store fault. */
  close(): void {
    const worker = this.worker
    this.state = 'off'
    this.worker = undefined
    this.failAll('the store was closed')
    void worker?.terminate()
  }

  private ask<T>(request: OffLoopRequest): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.pending.size === 0) this.worker!.ref()
      this.pending.set(request.id, { resolve: resolve as (value: unknown) => void, reject })
      this.worker!.postMessage(request)
    })
  }

  /** Start the worker (once); until it has opened its connection, transitions run on the loop. */
  start(): void {
    if (this.state !== 'idle') return
    this.state = 'starting'
    const { url, execArgv } = workerEntry(import.meta.url, 'store-worker')
    let worker: Worker
    try {
      worker = new Worker(url, { workerData: this.data, execArgv })
    } catch (error: unknown) {
      this.stop(`could not start (${String(error)})`)
      return
    }
    this.worker = worker
    worker.on('message', (answer: OffLoopAnswer) => this.answer(answer))
    worker.on('error', error => this.stop(`stopped (${String(error)})`))
    worker.on('exit', code => {
      if (this.worker === worker) this.stop(`exited with code ${code}`)
    })
    // An idle worker never keeps its process alive (a headless run ends when its own work does); one with a transition
    // in flight does, until it answers (`ask`). After the listeners: adding a `message` listener refs the worker again.
    worker.unref()
  }

  private answer(answer: OffLoopAnswer): void {
    if ('opened' in answer) {
      if (answer.opened && this.state === 'starting') this.state = 'open'
      else if (!answer.opened) this.stop(`could not open the store (${answer.why})`)
      return
    }
    const pending = this.pending.get(answer.id)
    if (pending === undefined) return
    this.pending.delete(answer.id)
    if (this.pending.size === 0) this.worker?.unref()
    if (answer.ok) pending.resolve(answer.value)
    else pending.reject(rebuildError(answer.error))
  }

  /** The worker is gone: transitions run on the loop from now on. */
  private stop(why: string): void {
    if (this.state === 'off') return
    const wasOpen = this.state === 'open'
    this.state = 'off'
    const worker = this.worker
    this.worker = undefined
    void worker?.terminate()
    this.log(`the cross-session store's worker thread ${why}; its transitions run on the event loop from now on`)
    const inFlight = this.pending.size > 0
    this.failAll('the store worker stopped')
    if (wasOpen && inFlight) this.lost()
  }

  private failAll(why: string): void {
    for (const { reject } of this.pending.values()) reject(storeFault(`the cross-session store is unavailable (${why})`, why))
    this.pending.clear()
  }
}
