/**
 * What the corpus index reads from logs it has checked: the header lines of
 * many new logs, in batches (one zstd context each, `LogFiles.readHeaders`)
 * with an event-loop yield between batches, so a first index of a large
 * root never blocks the host for long; and one title at the revision just
 * checked (`index/plan.ts` `planTitle`): the cached one when it was folded
 * at that revision, else a fold of the frames appended since the last
 * fold, else a fold of the whole log (rc.8 `foldSessionTitle`: the last
 * `session/title`).
 *
 * @module dsh-cross-session/index/log-reads
 */

import type { SessionHeaderView } from '../ports.js'
import type { IndexCounters, IndexEntry } from './index-entry.js'
import type { LogFiles } from './jsonl-files.js'
import { planTitle, type CachedTitle, type ScannedLog } from './plan.js'

/** Header frames decoded per batch (one zstd context each); the loop yields between batches. */
const HEADER_BATCH = 256

/** {@link LogFiles.readHeaders} of `logs` in batches, yielding to the event loop between them; `each` gets every log and its header. */
export async function readHeaderBatches(files: LogFiles, logs: readonly ScannedLog[], signal: AbortSignal,
  each: (log: ScannedLog, header: SessionHeaderView | undefined) => void): Promise<void> {
  for (let start = 0; start < logs.length; start += HEADER_BATCH) {
    if (start > 0) {
      await new Promise(resolve => setImmediate(resolve))
      signal.throwIfAborted()
    }
    const batch = logs.slice(start, start + HEADER_BATCH)
    const headers = files.readHeaders(batch)
    batch.forEach((log, position) => each(log, headers[position]))
  }
}

/**
 * The title of `entry` at `entry.log`'s revision, and the fold to remember
 * (`undefined` when the cached one still holds).
 */
export function foldTitle(files: LogFiles, entry: IndexEntry,
  counters: IndexCounters): { value: string | undefined, folded?: CachedTitle } {
  const plan = planTitle(entry.title, entry.log)
  if (plan === 'cached') return { value: entry.title?.value }
  const log = entry.log
  if (plan !== 'full') {
    try {
      const tail = files.readTitle(log, plan.from)
      counters.titleTailFolds++
      const value = tail.found ? tail.value : entry.title?.value
      return { value, folded: { revision: log.revision, identity: log.identity, value, completeBytes: tail.completeBytes } }
    } catch {
      // Not a frame boundary after all (the file was rewritten): fold it whole.
    }
  }
  const read = files.readTitle(log, 0)
  counters.titleFolds++
  return { value: read.value,
    folded: { revision: log.revision, identity: log.identity, value: read.value, completeBytes: read.completeBytes } }
}
