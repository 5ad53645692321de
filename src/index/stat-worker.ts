/**
 * Revision checks of many logs at once, split between the calling thread
 * and one worker thread. A `stat` is a system call (~5 µs each on the
 * bench's 2-core machine, so ~0.5 s for the 100,000 candidates of a query
 * list at the bench's largest home, docs/performance.md); two threads halve
 * the wall time. Each check is still a `stat` made during the call: nothing
 * is cached or guessed.
 *
 * The worker is plain JavaScript run with `eval` (no file to resolve from a
 * bundle or a test transform), started on the first batch large enough,
 * `unref`ed while idle so it never keeps a process alive, and ended for good
 * by {@link StatWorker.close}. Any failure of the worker (it could not start,
 * it exited, a `stat` failed with an error other than "missing") sends the
 * affected paths back to the calling thread's own `stat`, so the answer is
 * always exactly what a one-by-one check would give.
 *
 * @module dsh-cross-session/index/stat-worker
 */

import { Worker } from 'node:worker_threads'

/** Fields per path in the shared result: kind, dev, ino, birthtimeNs, size, mtimeNs, ctimeNs. */
export const STAT_FIELDS = 7

/** Result kinds (the first field). */
export const STAT_KIND = { missing: 0n, file: 1n, other: 2n, failed: 3n } as const

/** Below this many paths a batch is checked on the calling thread alone (a worker round trip costs ~1 ms). */
export const PARALLEL_MIN_PATHS = 4096

// Run in the worker: stat each path of the message, write the fields, say done.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
const { statSync } = require('node:fs')
parentPort.on('message', ({ id, paths, out }) => {
  const fields = new BigInt64Array(out)
  const list = paths.split('\\0')
  for (let index = 0; index < list.length; index++) {
    const at = index * ${STAT_FIELDS}
    try {
      const stats = statSync(list[index], { bigint: true, throwIfNoEntry: false })
      if (stats === undefined) { fields[at] = 0n; continue }
      fields[at] = stats.isFile() ? 1n : 2n
      fields[at + 1] = stats.dev
      fields[at + 2] = stats.ino
      fields[at + 3] = stats.birthtimeNs
      fields[at + 4] = stats.size
      fields[at + 5] = stats.mtimeNs
      fields[at + 6] = stats.ctimeNs
    } catch (error) {
      fields[at] = error && (error.code === 'ENOENT' || error.code === 'ENOTDIR') ? 0n : 3n
    }
  }
  parentPort.postMessage(id)
})
`

/** One worker thread for `stat` batches (several may be in flight: the worker takes them in order). */
export class StatWorker {
  private worker: Worker | undefined
  private broken = false
  private nextId = 0
  private readonly pending = new Map<number, (done: boolean) => void>()

  /**
   * Stat `paths` in the worker, while the caller works on others. Resolves
   * to their fields ({@link STAT_FIELDS} per path, in order; a path the
   * worker could not check has kind `failed`, and the caller checks it
   * itself), or is `undefined` when no worker is available.
   */
  start(paths: readonly string[]): Promise<BigInt64Array> | undefined {
    const worker = this.ensure()
    if (worker === undefined || paths.length === 0) return undefined
    const count = paths.length
    const out = new SharedArrayBuffer(count * STAT_FIELDS * 8)
    const id = this.nextId++
    return new Promise<BigInt64Array>(resolve => {
      this.pending.set(id, done => resolve(done ? new BigInt64Array(out) : failedBatch(count)))
      // Held while a batch is in flight (its caller is waiting), let go when idle.
      worker.ref()
      // One string for the batch: a single copy, not one clone per path.
      worker.postMessage({ id, paths: paths.join('\0'), out })
    })
  }

  /**
   * End the worker for good (its index is replaced, or the plugin is
   * disposed): batches in flight come back as `failed`, and later ones are
   * checked on the calling thread.
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
      worker.on('message', (id: number) => {
        this.pending.get(id)?.(true)
        this.pending.delete(id)
        if (this.pending.size === 0) worker.unref()
      })
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

  private settleAll(): void {
    for (const settle of this.pending.values()) settle(false)
    this.pending.clear()
  }
}

/** Fields that send every path of a batch back to the caller's own `stat`. */
function failedBatch(count: number): BigInt64Array {
  const fields = new BigInt64Array(count * STAT_FIELDS)
  for (let index = 0; index < count; index++) fields[index * STAT_FIELDS] = STAT_KIND.failed
  return fields
}
