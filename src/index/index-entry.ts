/**
 * What the corpus index holds for one log, its estimated size (the bound of
 * its `lru-cache`), and the counters tests and the bench read.
 *
 * @module dsh-cross-session/index/index-entry
 */

import type { SessionHeaderView } from '../ports.js'
import type { CachedTitle, ScannedLog } from './plan.js'
import type { CorpusRow } from './shared-rows.js'

/**
 * Default bound of the index's estimated size: 192 MB, so 100,000 sessions
 * (~1.3 KB estimated each) stay in memory and a repeated call folds nothing
 * (retained at 10,000 sessions: ≤ 64 MB, docs/performance.md "Budgets").
 */
export const DEFAULT_INDEX_BYTES = 192 * 1024 * 1024

/** What the index holds for one log. */
export interface IndexEntry {
  /** The log as last checked (a row taken from the shared index has no revision yet: `''`). */
  log: ScannedLog
  /** The generation of the refresh that last checked it. */
  checkedBy?: number
  readonly header: SessionHeaderView
  title?: CachedTitle
  /** Its estimated bytes when the index last measured it (`index/entry-maps.ts`), 0 before. */
  bytes?: number
}

/** Whether an entry's title was folded at exactly its log's revision as last checked (reading it costs no fold). */
export function titleIsCurrent(entry: IndexEntry): boolean {
  return entry.title !== undefined && entry.title.revision === entry.log.revision
}

/** Estimated retained bytes of one entry (UTF-16 strings plus object overhead). */
export function entryBytes(entry: IndexEntry): number {
  const { log, header, title } = entry
  let chars = log.path.length + log.dirName.length + log.identity.length + log.revision.length + header.id.length
    + (header.cwd?.length ?? 0) + (header.parentSession?.length ?? 0) + (header.origin?.length ?? 0) + (header.agentPreset?.length ?? 0)
  if (title !== undefined) chars += title.revision.length + title.identity.length + (title.value?.length ?? 0)
  return chars * 2 + 400
}

/**
 * An entry from a shared row: its header and title as that row holds them, its revision still to be checked.
 * Every entry and log is built with the same keys in the same order (one object shape: the index reads
 * 100,000 of them per list).
 */
export function entryOfRow(row: CorpusRow): IndexEntry {
  const log: ScannedLog = { path: row.path, dirName: row.dirName, identity: row.identity, revision: '', size: 0, stamp: undefined }
  return { log, checkedBy: undefined, header: row.header, title: row.title, bytes: 0 }
}

/** The shared row of an entry. */
export function rowOfEntry(entry: IndexEntry): CorpusRow {
  const { log, header, title } = entry
  return {
    path: log.path, sessionId: header.id, dirName: log.dirName, identity: log.identity, header,
    ...(title === undefined ? {} : { title }),
  }
}

/** Work done by the index since it was built (for tests and the bench). */
export interface IndexCounters {
  scans: number
  /** Revision checks of one log (`check` outside a same-call refresh). */
  singleChecks: number
  /** Logs re-checked in batches (`checkMany`, a query list's candidates). */
  batchChecks: number
  headerReads: number
  titleFolds: number
  /** Titles folded from the appended frames only. */
  titleTailFolds: number
  /** Rows read from the shared index (a new process's first call, or entries this one evicted). */
  sharedRows: number
  /** Transactions written to the shared index. */
  sharedWrites: number
  /** Cold reads that called `sessionPersistence.inspect(id)` (a whole-log parse in rc.8). */
  inspects: number
  /** Cold reads answered by a surface kept at exactly that log revision (`index/surface-cache.ts`). */
  surfaceHits: number
  /** Surfaces written to the home store. */
  surfacesKept: number
  /** First lists answered from the shared rows without a refresh (`index/newest.ts`). */
  newestLists: number
}

/** Counters at zero. */
export function zeroCounters(): IndexCounters {
  return { scans: 0, singleChecks: 0, batchChecks: 0, headerReads: 0, titleFolds: 0, titleTailFolds: 0, sharedRows: 0, sharedWrites: 0,
    inspects: 0, surfaceHits: 0, surfacesKept: 0, newestLists: 0 }
}
