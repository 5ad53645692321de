/**
 * Revision checks of many logs at once, shared between the calling thread
 * and one worker thread. A `stat` is a system call (~5 µs each on the
 * bench's 2-core machine, so ~0.5 s for the 100,000 candidates of a query
 * list at the bench's largest home, docs/performance.md); two threads halve
 * the wall time. Each check is still a `stat` made during the call: nothing
 * is cached or guessed.
 *
 * Both threads take chunks of {@link CHUNK_PATHS} paths from one shared
 * counter (`Atomics.add`), so neither waits for the other: a worker still
 * starting (its first batch) or slowed by the load takes fewer chunks, and
 * the caller, done with the counter, waits at most for the one chunk the
 * worker holds. A worker that has not begun when the caller is done never
 * begins that batch (a compare-and-swap on the batch's state).
 *
 * The worker is plain JavaScript run with `eval` (no file to resolve from a
 * bundle or a test transform), started on the first batch large enough,
 * `unref`ed while idle so it never keeps a process alive, and ended for good
 * by {@link StatWorker.close}. A path whose fields the worker did not write
 * in full (it could not start, it exited, its `stat` failed with an error
 * other than "missing") reads kind `failed`, and the caller checks it with
 * its own `stat`, so the answer is always exactly what a one-by-one check
 * would give.
 *
 * @module dsh-cross-session/index/stat-worker
 */

import { Worker } from 'node:worker_threads'
import { CHUNK_PATHS, STAT_FIELDS, STATE, WORKER_SOURCE } from './stat-protocol.js'

export { CHUNK_PATHS, PARALLEL_MIN_PATHS, STAT_FIELDS, STAT_KIND } from './stat-protocol.js'

/**
 * One batch of paths shared by the caller and the worker. The caller takes
 * chunks with {@link SharedBatch.take} and checks them itself; after its
 * last take it awaits {@link SharedBatch.done}, and then reads, for every
 * chunk it did not take, each path's kind with `Atomics.load` from
 * {@link SharedBatch.fields} ({@link STAT_FIELDS} per path, in order).
 */
export interface SharedBatch {
  /** The worker's results; a path's kind is `failed` unless the worker wrote all its fields. */
  readonly fields: BigInt64Array
  /** The first index of the next chunk for the caller ({@link CHUNK_PATHS} paths at most), or -1 when none is left. */
  take(): number
  /** Leave the rest to nobody (an aborted call): the worker takes no further chunk of this batch. */
  stop(): void
  /** Resolves once the worker holds no chunk of this batch: at once if it never began it. Never rejects. */
  done(): Promise<void>
}

/** One worker thread for `stat` batches (several may be in flight: the worker takes them in order). */
export class StatWorker {
  private worker: Worker | undefined
  private broken = false
  private nextId = 0
  private readonly pending = new Map<number, () => void>()
  /** The paths of the last batch posted (the worker keeps them: a batch of the same paths is posted without them). */
  private sent: readonly string[] | undefined

  /**
   * Start the thread now (unref'd), so that the first batch finds it up: a
   * caller with {@link PARALLEL_MIN_PATHS} logs or more calls this when it
   * lists them (a query list's batch may follow). Nothing when it is up or
   * cannot start.
   */
  prepare(): void {
    this.ensure()
  }

  /**
   * Share `paths` with the worker: see {@link SharedBatch}. `undefined` when
   * no worker is available (it could not start, or was closed): the caller
   * checks every path itself.
   */
  start(paths: readonly string[]): SharedBatch | undefined {
    const worker = this.ensure()
    if (worker === undefined || paths.length === 0) return undefined
    const count = paths.length
    const fields = new BigInt64Array(new SharedArrayBuffer(count * STAT_FIELDS * 8))
    const control = new Int32Array(new SharedArrayBuffer(8))
    const id = this.nextId++
    const finished = new Promise<void>(resolve => this.pending.set(id, resolve))
    // Held while a batch is in flight (its caller is waiting), let go when idle.
    worker.ref()
    // One string for the batch (a single copy, not one clone per path), and none when the worker holds these paths.
    const same = samePaths(this.sent, paths)
    if (!same) this.sent = paths.slice()
    worker.postMessage({ id, paths: same ? undefined : paths.join('\0'), out: fields.buffer, control: control.buffer })
    return {
      fields,
      take: () => {
        const first = Atomics.add(control, 0, CHUNK_PATHS)
        return first < count ? first : -1
      },
      stop: () => void Atomics.store(control, 0, count),
      done: () => {
        if (Atomics.compareExchange(control, 1, STATE.open, STATE.closed) !== STATE.open) return finished
        // The worker never began this batch and never will: nothing to wait for.
        this.settle(id)
        return Promise.resolve()
      },
    }
  }

  /**
   * End the worker for good (its index is replaced, or the plugin is
   * disposed): the waiters of batches in flight resolve, every path the
   * worker had not written reads `failed`, and later batches are checked on
   * the calling thread.
   */
  close(): void {
    const worker = this.worker
    this.worker = undefined
    this.broken = true
    this.settleAll()
    void worker?.terminate()
  }

  private ensure(): Worker | undefined {
    if (this.broken) return undefined
    if (this.worker !== undefined) return this.worker
    try {
      // No inherited flags or preloads (a host's `--import` loader, say): the worker only calls `statSync`.
      const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [] })
      worker.on('message', (id: number) => this.settle(id))
      const lost = (): void => {
        // It could not run or it died: this process checks on its own thread from now on.
        if (this.worker === worker) {
          this.worker = undefined
          this.broken = true
        }
        this.settleAll()
      }
      worker.on('error', lost)
      worker.on('exit', lost)
      // After the listeners: adding a 'message' listener refs the worker's port again.
      worker.unref()
      this.worker = worker
      return worker
    } catch {
      this.broken = true
      return undefined
    }
  }

  /** Batch `id` needs the worker no more: resolve its waiter, and let the worker go when no batch is left. */
  private settle(id: number): void {
    this.pending.get(id)?.()
    this.pending.delete(id)
    if (this.pending.size === 0) this.worker?.unref()
  }

  private settleAll(): void {
    for (const settle of this.pending.values()) settle()
    this.pending.clear()
  }
}

/** Whether `paths` are `sent`, in order (the strings are compared, usually the same objects). */
function samePaths(sent: readonly string[] | undefined, paths: readonly string[]): boolean {
  if (sent === undefined || sent.length !== paths.length) return false
  for (let index = 0; index < paths.length; index++) if (sent[index] !== paths[index]) return false
  return true
}
