/**
 * Revision checks of many logs in one batch: shared with a worker thread
 * when there are at least `PARALLEL_MIN_PATHS` (`index/stat-worker.ts`:
 * both threads take chunks from one counter), each exactly as one `restat`
 * would see it.
 *
 * @module dsh-cross-session/index/stat-batch
 */

import type { IndexEntry } from './index-entry.js'
import type { ScannedLog } from './plan.js'
import type { ListedLog } from './root-listing.js'
import { CHUNK_PATHS, PARALLEL_MIN_PATHS, STAT_FIELDS, STAT_KIND, type SharedBatch, type StatWorker } from './stat-worker.js'
import { fieldsLog } from './sync-fs.js'

/** Paths checked on the calling thread between two yields to the event loop (~10 ms of `stat`s). */
const YIELD_EVERY = 2048

/**
 * `restat` of every log, in order. A log that is gone, not a file, or could
 * not be checked reads `undefined` (the caller checks it alone, as before).
 * @throws the signal's abort reason, between slices (the worker then takes no further chunk).
 */
export async function restatMany(logs: ReadonlyArray<ListedLog | ScannedLog>, worker: StatWorker,
  restat: (log: ListedLog | ScannedLog) => ScannedLog | undefined, signal: AbortSignal): Promise<Array<ScannedLog | undefined>> {
  const results = new Array<ScannedLog | undefined>(logs.length)
  const checkHere = (index: number): void => {
    try {
      results[index] = restat(logs[index]!)
    } catch {
      results[index] = undefined // unreadable: checked alone by the caller, which reports it
    }
  }
  const batch = logs.length >= PARALLEL_MIN_PATHS ? worker.start(logs.map(log => log.path)) : undefined
  if (batch === undefined) {
    for (let index = 0; index < logs.length; index++) {
      checkHere(index)
      if (index % YIELD_EVERY === YIELD_EVERY - 1) await nextTurn(signal)
    }
    return results
  }
  const mine = await takeChunks(batch, logs.length, checkHere, signal)
  for (let first = 0; first < logs.length; first += CHUNK_PATHS) {
    if (mine[first / CHUNK_PATHS] === 1) continue
    for (let index = first; index < Math.min(first + CHUNK_PATHS, logs.length); index++) {
      const at = index * STAT_FIELDS
      const kind = Atomics.load(batch.fields, at)
      const log = logs[index]!
      if (kind === STAT_KIND.file) results[index] = fieldsLog(log.path, log.dirName, batch.fields, at, 'stamp' in log ? log : undefined)
      else if (kind === STAT_KIND.failed) checkHere(index)
      else results[index] = undefined
    }
  }
  signal.throwIfAborted()
  return results
}

/**
 * Check chunks on this thread until none is left, then wait for the
 * worker's last one.
 * @returns per chunk, 1 when this thread checked it.
 * @throws the signal's abort reason (after `stop`, so the worker takes no further chunk).
 */
async function takeChunks(batch: SharedBatch, count: number, checkHere: (index: number) => void,
  signal: AbortSignal): Promise<Uint8Array> {
  const mine = new Uint8Array(Math.ceil(count / CHUNK_PATHS))
  let sinceYield = 0
  try {
    for (let first = batch.take(); first >= 0; first = batch.take()) {
      mine[first / CHUNK_PATHS] = 1
      for (let index = first; index < Math.min(first + CHUNK_PATHS, count); index++) checkHere(index)
      sinceYield += CHUNK_PATHS
      if (sinceYield >= YIELD_EVERY) {
        sinceYield = 0
        await nextTurn(signal)
      }
    }
  } catch (error) {
    batch.stop()
    await batch.done()
    throw error
  }
  await batch.done()
  return mine
}

/** Yield to the event loop once. @throws the signal's abort reason. */
async function nextTurn(signal: AbortSignal): Promise<void> {
  await new Promise(resolve => setImmediate(resolve))
  signal.throwIfAborted()
}

/**
 * Re-check the logs of `entries` in one batch (`restat`: the index's
 * `LogFiles.restatMany`, {@link restatMany} here): an entry
 * whose file still has its identity takes the revision seen and is marked
 * checked by `checkedBy` (the caller's refresh generation), so the index's
 * `check(id, checkedBy)` does not `stat` it again; any other (gone,
 * replaced, unreadable) is left to `check`, which handles it alone.
 * @returns how many logs were checked.
 */
export async function checkEntries(entries: readonly IndexEntry[],
  restat: (logs: readonly ScannedLog[], signal: AbortSignal) => Promise<Array<ScannedLog | undefined>>, checkedBy: number,
  signal: AbortSignal): Promise<number> {
  if (entries.length === 0) return 0
  const logs = await restat(entries.map(entry => entry.log), signal)
  entries.forEach((entry, position) => {
    const log = logs[position]
    if (log === undefined || log.identity !== entry.log.identity) return
    entry.log = log
    entry.checkedBy = checkedBy
  })
  return entries.length
}
