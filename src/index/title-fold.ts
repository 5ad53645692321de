/**
 * One title of the corpus index at the revision just checked
 * (`index/plan.ts` `planTitle`): the cached one when it was folded at that
 * revision, else a fold of the frames appended since the last fold, else a
 * fold of the whole log (rc.8 `foldSessionTitle`: the last `session/title`).
 *
 * @module dsh-cross-session/index/title-fold
 */

import type { IndexCounters, IndexEntry } from './index-entry.js'
import type { LogFiles } from './jsonl-files.js'
import { planTitle, type CachedTitle } from './plan.js'

/**
 * The title of `entry` at `entry.log`'s revision, and the fold to remember
 * (`undefined` when the cached one still holds).
 */
export function foldTitle(files: LogFiles, entry: IndexEntry, counters: IndexCounters): { value: string | undefined, folded?: CachedTitle } {
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
  return { value: read.value, folded: { revision: log.revision, identity: log.identity, value: read.value, completeBytes: read.completeBytes } }
}
