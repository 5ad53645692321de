/**
 * Revision checks of many logs in one batch: half on a worker thread when
 * there are at least `PARALLEL_MIN_PATHS` (`index/stat-worker.ts`), the rest
 * here, each exactly as one `restat` would see it.
 *
 * @module dsh-cross-session/index/stat-batch
 */

import type { IndexEntry } from './index-entry.js'
import type { ScannedLog } from './plan.js'
import type { ListedLog } from './root-listing.js'
import { PARALLEL_MIN_PATHS, STAT_FIELDS, STAT_KIND, type StatWorker } from './stat-worker.js'
import { fieldsLog } from './sync-fs.js'

/**
 * `restat` of every log, in order. A log that is gone, not a file, or could
 * not be checked reads `undefined` (the caller checks it alone, as before).
 */
export async function restatMany(logs: ReadonlyArray<ListedLog | ScannedLog>, worker: StatWorker,
  restat: (log: ListedLog | ScannedLog) => ScannedLog | undefined, signal: AbortSignal): Promise<Array<ScannedLog | undefined>> {
  const results = new Array<ScannedLog | undefined>(logs.length)
  const split = logs.length >= PARALLEL_MIN_PATHS ? logs.length >> 1 : logs.length
  const remote = split < logs.length ? worker.start(logs.slice(split).map(log => log.path)) : undefined
  const here = remote === undefined ? logs.length : split
  const checkHere = (index: number): void => {
    try {
      results[index] = restat(logs[index]!)
    } catch {
      results[index] = undefined // unreadable: checked alone by the caller, which reports it
    }
  }
  for (let index = 0; index < here; index++) {
    checkHere(index)
    if (index % 2048 === 2047) {
      await new Promise(resolve => setImmediate(resolve))
      signal.throwIfAborted()
    }
  }
  if (remote !== undefined) {
    const fields = await remote
    for (let index = split; index < logs.length; index++) {
      const at = (index - split) * STAT_FIELDS
      const kind = fields[at]
      const log = logs[index]!
      if (kind === STAT_KIND.file) results[index] = fieldsLog(log.path, log.dirName, fields, at, 'stamp' in log ? log : undefined)
      else if (kind === STAT_KIND.failed) checkHere(index)
      else results[index] = undefined
    }
    signal.throwIfAborted()
  }
  return results
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
