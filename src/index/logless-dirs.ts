/**
 * Listed session directories that gave the corpus index no entry (no log
 * yet, a log deleted while its directory stays, a stray file, a file that
 * is not a session log), each with the revision it had then. A log linked
 * into such a directory (rc.8 `materializePosix` makes the directory first,
 * then `link()`s the log into it) does not move the project directory's
 * stamp, so a refresh that reuses its listing `stat`s these again
 * (docs/performance.md "What each call re-checks").
 *
 * @module dsh-cross-session/index/logless-dirs
 */

import type { ScannedLog } from './plan.js'
import type { ListedLog } from './root-listing.js'

/** A listed log path with no entry, and its revision when it was last looked at (`undefined`: not a file). */
export interface LoglessDir {
  readonly log: ListedLog
  readonly revision: string | undefined
}

/** Whether any of `dirs` is not as it was: a log appeared, or the file there changed. */
export function loglessMoved(dirs: readonly LoglessDir[], restat: (log: ListedLog) => ScannedLog | undefined): boolean {
  for (const { log, revision } of dirs) if (restat(log)?.revision !== revision) return true
  return false
}

/** `restat` of each listed log that is new to the index; one that is not a file now is noted in `logless`. */
export function restatListed(logs: readonly ListedLog[], restat: (log: ListedLog) => ScannedLog | undefined, logless: LoglessDir[]): ScannedLog[] {
  const fresh: ScannedLog[] = []
  for (const log of logs) {
    const scanned = restat(log)
    if (scanned === undefined) logless.push({ log, revision: undefined })
    else fresh.push(scanned)
  }
  return fresh
}
