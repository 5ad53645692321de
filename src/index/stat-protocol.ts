/**
 * The layout a revision-check batch shares between the calling thread and
 * its worker (`index/stat-worker.ts`), and the program the worker runs:
 * {@link STAT_FIELDS} BigInt64 fields per path, the kind written last; a
 * control buffer of two Int32s (the next chunk's first index, taken by both
 * threads with `Atomics.add`, and the batch's {@link STATE}).
 *
 * @module dsh-cross-session/index/stat-protocol
 */

/** Fields per path in the shared result: kind, dev, ino, birthtimeNs, size, mtimeNs, ctimeNs. */
export const STAT_FIELDS = 7

/**
 * Result kinds (the first field, written last with `Atomics.store`). `failed` is 0, what a new
 * `SharedArrayBuffer` holds: a path nobody wrote reads `failed`.
 */
export const STAT_KIND = { failed: 0n, file: 1n, other: 2n, missing: 3n } as const

/** Below this many paths a batch is checked on the calling thread alone (a worker round trip costs ~1 ms). */
export const PARALLEL_MIN_PATHS = 4096

/** Paths per chunk taken from the shared counter (~1 ms of `stat`s: a caller waits at most this for the worker). */
export const CHUNK_PATHS = 256

// The batch state (second Int32 of the control buffer): the worker begins only if the caller has not finished.
export const STATE = { open: 0, begun: 1, closed: 2 } as const

// Run in the worker: if the caller has not finished, take chunks until none is left, write each path's fields
// (the kind last, so a kind read as `file` has its six fields), say done.
export const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
const { statSync } = require('node:fs')
let list = []
parentPort.on('message', ({ id, paths, out, control: controlBuffer }) => {
  // A batch of the same paths as the last one comes without them (a query list's warm calls).
  if (paths !== undefined) list = paths.split('\\0')
  const control = new Int32Array(controlBuffer)
  if (Atomics.compareExchange(control, 1, ${STATE.open}, ${STATE.begun}) !== ${STATE.open}) return parentPort.postMessage(id)
  const fields = new BigInt64Array(out)
  for (;;) {
    const first = Atomics.add(control, 0, ${CHUNK_PATHS})
    if (first >= list.length) break
    const end = Math.min(first + ${CHUNK_PATHS}, list.length)
    for (let index = first; index < end; index++) {
      const at = index * ${STAT_FIELDS}
      let kind = ${STAT_KIND.failed}n
      try {
        const stats = statSync(list[index], { bigint: true, throwIfNoEntry: false })
        if (stats === undefined) kind = ${STAT_KIND.missing}n
        else {
          fields[at + 1] = stats.dev
          fields[at + 2] = stats.ino
          fields[at + 3] = stats.birthtimeNs
          fields[at + 4] = stats.size
          fields[at + 5] = stats.mtimeNs
          fields[at + 6] = stats.ctimeNs
          kind = stats.isFile() ? ${STAT_KIND.file}n : ${STAT_KIND.other}n
        }
      } catch (error) {
        kind = error && (error.code === 'ENOENT' || error.code === 'ENOTDIR') ? ${STAT_KIND.missing}n : ${STAT_KIND.failed}n
      }
      Atomics.store(fields, at, kind)
    }
  }
  parentPort.postMessage(id)
})
`
