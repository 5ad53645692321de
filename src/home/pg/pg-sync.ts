/**
 * The PostgreSQL store behind the port's synchronous methods
 * (docs/architecture.md §8 "Several machines"): a worker thread holds the
 * connections and runs the store's transitions (`home/pg/pg-sync-worker.ts`,
 * `home/pg/pg-store.ts`); {@link PgSync.call} blocks this thread until the
 * answer is there (`Atomics.wait` on a shared counter, then
 * `receiveMessageOnPort`, Node 22 `worker_threads` docs), and
 * {@link PgSync.callAsync} does not block at all.
 *
 * A blocked call waits at most `SYNC_WAIT_MS`; the worker's own bounds (a
 * connection in `PG_CONNECT_MS`, a statement in `PG_STATEMENT_MS`,
 * `home/pg/pg-sync-protocol.ts`) answer a fault well before that, so the wait
 * only runs out if the worker itself is stuck. An answer that comes after
 * its caller stopped waiting is dropped by its id.
 *
 * @module dsh-cross-session/home/pg/pg-sync
 */

import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import { workerEntry } from '../../core/worker-entry.js'
import { carryError, rebuildError, storeFault } from '../store-fault.js'
import { SYNC_WAIT_MS, type PgAnswer, type PgEvent, type PgRequest, type PgWorkerData } from './pg-sync-protocol.js'

export { PG_CONNECT_MS, PG_STATEMENT_MS, SYNC_WAIT_MS } from './pg-sync-protocol.js'

/** How long a blocked call waits between looks at whether its worker still runs, ms. */
const WAIT_SLICE_MS = 50

/** The calling side of the PostgreSQL store's worker thread. */
export class PgSync {
  private readonly worker: Worker
  private readonly answers: MessagePort
  private readonly counter: Int32Array
  private readonly changes: Int32Array
  private changesSeen = 0
  private readonly listeners = new Set<(event: PgEvent) => void>()
  private readonly pending = new Map<number, { resolve: (value: unknown) => void, reject: (error: unknown) => void }>()
  private next = 0
  private closed = false
  /** Why the worker stopped, once it did. */
  private stopped: string | undefined

  /**
   * Start the worker (it connects on the first request). `url` is never logged.
   * @param log - where a worker that failed is said.
   */
  constructor(data: Omit<PgWorkerData, 'answers' | 'signal' | 'changes'>, log: (message: string) => void = () => undefined) {
    const channel = new MessageChannel()
    const signal = new SharedArrayBuffer(4)
    const changes = new SharedArrayBuffer(4)
    this.counter = new Int32Array(signal)
    this.changes = new Int32Array(changes)
    this.answers = channel.port1
    const { url, execArgv } = workerEntry(import.meta.url, 'pg-sync-worker')
    this.worker = new Worker(url, { workerData: { ...data, answers: channel.port2, signal, changes } satisfies PgWorkerData,
      transferList: [channel.port2], execArgv })
    this.worker.on('message', (message: PgAnswer | PgEvent) => {
      if ('id' in message) this.settle(message)
      else for (const listener of [...this.listeners]) listener(message)
    })
    // A worker that stopped answers nothing more: what is in flight and every later call is refused as a store fault.
    this.worker.on('error', error => {
      this.stopped ??= carryError(error).message
      log(`the PostgreSQL store's worker thread failed (${this.stopped}); calls to the store are refused`)
    })
    this.worker.on('exit', () => {
      this.stopped ??= 'it exited'
      this.failAll(new Error(`the PostgreSQL store worker stopped (${this.stopped})`))
    })
    // An idle worker never keeps its process alive; a request in flight does (see callAsync).
    this.worker.unref()
  }

  /**
   * Run the store's `method` and block this thread until it answers. @returns its value. @throws what it threw (a
   * store fault keeps its reason, `home/store-fault.ts`), or a store fault when the worker does not answer within
   * `waitMs` or is closed.
   */
  call<T>(method: string, args: readonly unknown[], waitMs = SYNC_WAIT_MS): T {
    this.usable()
    const id = ++this.next
    const seen = Atomics.load(this.counter, 0)
    this.worker.postMessage({ id, method, args, blocked: true } satisfies PgRequest)
    const until = Date.now() + waitMs
    for (let last = seen; ;) {
      for (let received = receiveMessageOnPort(this.answers); received !== undefined; received = receiveMessageOnPort(this.answers)) {
        const answer = received.message as PgAnswer
        // An answer to a call that stopped waiting is dropped.
        if (answer.id === id) return unwrap<T>(answer)
      }
      // A worker that stopped says so by an event this blocked thread cannot run: its thread id, read between slices
      // of the wait, tells it (-1 once it no longer runs, Node 22 `worker_threads` docs).
      if (this.worker.threadId === -1) {
        this.stopped ??= 'it exited'
        this.usable()
      }
      const left = until - Date.now()
      if (left <= 0) {
        throw storeFault(`the PostgreSQL store did not answer ${method} within ${waitMs} ms`, 'the PostgreSQL store did not answer in time')
      }
      Atomics.wait(this.counter, 0, last, Math.min(left, WAIT_SLICE_MS))
      last = Atomics.load(this.counter, 0)
    }
  }

  /** Run the store's `method` without blocking. @returns its value. @throws as {@link call}, never a timeout of this thread. */
  async callAsync<T>(method: string, args: readonly unknown[]): Promise<T> {
    this.usable()
    const id = ++this.next
    const answered = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }))
    if (this.pending.size === 1) this.worker.ref()
    this.worker.postMessage({ id, method, args, blocked: false } satisfies PgRequest)
    return await answered as T
  }

  /** Hear what the worker says unasked (another process changed the store; this process's lease ran out). @returns its removal. */
  listen(listener: (event: PgEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Whether calls can still be answered: not closed, and the worker thread runs (no round trip). */
  running(): boolean {
    return !this.closed && this.stopped === undefined && this.worker.threadId !== -1
  }

  /** Whether another process changed the store since the last call (a shared counter: no round trip). */
  changed(): boolean {
    const now = Atomics.load(this.changes, 0)
    const changed = now !== this.changesSeen
    this.changesSeen = now
    return changed
  }

  /** Stop the worker (its connections close with it); what is in flight is rejected as a store fault. */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.failAll(new Error('the PostgreSQL store was closed'))
    void this.worker.terminate()
    this.answers.close()
  }

  /** Throw a store fault when no call can be answered: closed, or its worker stopped. */
  private usable(): void {
    if (this.closed) throw storeFault('the PostgreSQL store is closed', 'the PostgreSQL store is closed')
    if (this.stopped !== undefined) {
      throw storeFault(`the PostgreSQL store worker stopped (${this.stopped})`, 'the PostgreSQL store worker stopped')
    }
  }

  private settle(answer: PgAnswer): void {
    const waiting = this.pending.get(answer.id)
    if (waiting === undefined) return
    this.pending.delete(answer.id)
    if (this.pending.size === 0) this.worker.unref()
    try {
      waiting.resolve(unwrap(answer))
    } catch (error: unknown) {
      waiting.reject(error)
    }
  }

  private failAll(error: unknown): void {
    const fault = storeFault(`the PostgreSQL store worker failed: ${carryError(error).message}`, 'the PostgreSQL store worker stopped')
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id)
      waiting.reject(fault)
    }
    this.worker.unref()
  }
}

function unwrap<T>(answer: PgAnswer): T {
  if (answer.ok) return answer.value as T
  throw rebuildError(answer.error)
}
