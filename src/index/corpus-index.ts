/**
 * The corpus index (docs/performance.md, "Corpus index: what each call re-checks"): session headers and titles of
 * one JSONL session root, keyed by log file and revision, so a call pays for what changed and what it shows.
 *
 * - {@link CorpusIndex.refresh}: one listing of the root (`index/root-listing.ts`); a `stat` and the header line
 *   only of logs new to the index; drops logs that are gone. Never folds a title; known logs are re-checked by `check`.
 * - {@link CorpusIndex.check}: one session id (one `stat`, or a probe of each project directory for an id the
 *   index has not seen); `checkMany` in a batch.
 * - {@link CorpusIndex.title}: the title at the revision just checked (`index/log-reads.ts`: cached, a fold of the
 *   appended frames, or whole).
 * - {@link CorpusIndex.newest}: a new process's first list without a refresh (./newest.ts).
 *
 * With the home store ({@link SharedIndex}, docs/performance.md "What a new process reads"), a new process starts
 * from the rows earlier ones wrote: it re-checks every revision, reads no header and folds no title a row holds for
 * that file identity / log revision, and writes back what it read. Memory is bounded (`index/entry-maps.ts`,
 * {@link DEFAULT_INDEX_BYTES}); an evicted log comes back from its shared row (else it is read again).
 *
 * @module dsh-cross-session/index/corpus-index
 */

import type { SessionHeaderView } from '../ports.js'
import { DEFAULT_INDEX_BYTES, entryOfRow, rowOfEntry, titleIsCurrent, zeroCounters, type IndexCounters,
  type IndexEntry } from './index-entry.js'
import { EntryMaps } from './entry-maps.js'
import { checkEntries } from './stat-batch.js'
import type { LogFiles } from './jsonl-files.js'
import { planScan, type CachedTitle, type ScannedLog } from './plan.js'
import { foldTitle, readHeaderBatches } from './log-reads.js'
import { loglessMoved, restatListed, type LoglessDir } from './root-listing.js'
import type { SharedIndex } from './shared-index.js'
import type { CorpusRow } from './shared-rows.js'
import type { HeaderFilter } from '../model/list-filter.js'
import { newestLogs, type NewestLogs } from './newest.js'

export class CorpusIndex {
  readonly counters: IndexCounters = zeroCounters()
  private readonly entries: EntryMaps
  private readonly files: LogFiles
  private readonly shared: SharedIndex | undefined
  /** Serial of the last {@link refresh}, raised as it is called (before its first `await`). */
  generation = 0
  /** The last refresh: the listing it saw, the entry maps' changes then, the entries it returned, the listed paths with none. */
  private lastRefresh: { listed: unknown, changes: number, entries: IndexEntry[], logless: LoglessDir[] } | undefined

  constructor(files: LogFiles, maxBytes = DEFAULT_INDEX_BYTES, shared?: SharedIndex) {
    this.files = files
    this.shared = shared
    this.entries = new EntryMaps(maxBytes)
  }

  /** Entries held and their estimated bytes. */
  get size(): { entries: number, bytes: number } { return this.entries.size }

  /**
   * One listing of the whole root.
   * @returns every log present now that has a session header, one per session id, in listing order; the very array
   *   of the last call when nothing was listed, read or dropped since (callers must not change it). The rows of the
   *   headers it read are written by the next {@link flush}, with the titles folded before it.
   */
  async refresh(signal: AbortSignal): Promise<readonly IndexEntry[]> {
    this.counters.scans++
    const generation = ++this.generation
    this.hydrate()
    const listed = await this.files.list(signal)
    // The same listing, no entry put or dropped, no log in a listed directory without one: the same entries.
    const last = this.lastRefresh
    if (last?.listed === listed && last.changes === this.entries.changes && !loglessMoved(last.logless, log => this.files.restat(log)))
      return last.entries
    const plan = planScan(this.entries.byPath, listed, entry => entry.log.identity)
    for (const path of plan.removed) this.forget(path)
    // Known logs: listed, not `stat`ed (their revision is checked when a title or a read needs it: `check`).
    const entries: IndexEntry[] = [...plan.known]
    const logless: LoglessDir[] = []
    const fresh = restatListed(plan.readHeader, log => this.files.restat(log), logless)
    // Entries this process evicted come back from their shared rows; the rest are read.
    const rows = this.entries.takeEvicted() && this.shared !== undefined ? this.shared.byPaths(fresh.map(log => log.path)) : undefined
    const toRead: ScannedLog[] = []
    for (const log of fresh) {
      const row = rows?.get(log.path)
      const entry = row?.identity === log.identity ? this.adopt(row, log) : undefined
      if (entry === undefined) toRead.push(log)
      else {
        entry.checkedBy = generation
        entries.push(entry)
      }
    }
    this.counters.headerReads += toRead.length
    await readHeaderBatches(this.files, toRead, signal, (log, header) => {
      const entry = this.store(log, header)
      if (entry === undefined) return void logless.push({ log, revision: log.revision })
      entry.checkedBy = generation
      entries.push(entry)
    })
    const unique = this.entries.onePerSession(entries)
    this.lastRefresh = { listed, changes: this.entries.changes, entries: unique, logless }
    return unique
  }

  /**
   * One session's entry after a revision check of its log alone, or `undefined` when no log of that id exists now.
   * @param checkedBy - a refresh generation made by the same tool call: an entry that refresh (or a check given it)
   *   checked is not checked again.
   */
  check(sessionId: string, checkedBy?: number): IndexEntry | undefined {
    const entry = this.entries.byId.get(sessionId)
    if (entry !== undefined && checkedBy !== undefined && entry.checkedBy === checkedBy) return entry
    this.counters.singleChecks++
    if (entry !== undefined) {
      const log = this.files.restat(entry.log)
      if (log !== undefined && log.identity === entry.log.identity) {
        entry.log = log
        // Checked by this call: its later checks in the call (the shown rows' re-check after their titles) cost no `stat`.
        if (checkedBy !== undefined) entry.checkedBy = checkedBy
        return entry
      }
      this.forget(entry.log.path)
      if (log !== undefined) return this.matching(this.load(log), sessionId)
    } else {
      // Not in memory: its shared row, when its file is still the one that row read.
      const row = this.shared?.bySession(sessionId)
      const log = row === undefined ? undefined : this.files.restat(entryOfRow(row).log)
      if (row !== undefined && log?.identity === row.identity) return this.adopt(row, log)
      if (row !== undefined) this.forget(row.path)
    }
    const probed = this.files.probe(sessionId)
    return probed === undefined ? undefined : this.matching(this.load(probed), sessionId)
  }

  /** Revision checks of many known sessions in one batch (`index/stat-batch.ts`), before `check(id, checkedBy)` of each. */
  async checkMany(sessionIds: readonly string[], checkedBy: number, signal: AbortSignal): Promise<void> {
    const entries: IndexEntry[] = []
    for (const sessionId of sessionIds) {
      const entry = this.entries.byId.get(sessionId)
      if (entry !== undefined && entry.checkedBy !== checkedBy) entries.push(entry)
    }
    this.counters.batchChecks += await checkEntries(entries, (logs, inner) => this.files.restatMany(logs, inner), checkedBy, signal)
  }

  /** The title of an entry at the revision last checked (`refresh` / `check`), or `undefined` when its log has none. */
  title(entry: IndexEntry): string | undefined {
    // Folded at exactly this revision (the common case: a query list asks every candidate's).
    if (titleIsCurrent(entry)) return entry.title!.value
    const { value, folded } = foldTitle(this.files, entry, this.counters)
    if (folded !== undefined) this.remember(entry, folded)
    return value
  }

  /** A process's first list from the shared rows (./newest.ts); `undefined` for a later one (refreshed), without rows, or declined. */
  async newest(filter: HeaderFilter, limit: number, signal: AbortSignal): Promise<NewestLogs | undefined> {
    if (this.generation > 0 || this.counters.newestLists > 0 || this.shared === undefined) return undefined
    const found = await newestLogs({ files: this.files, shared: this.shared, read: log => this.load(log)?.header,
      gone: path => this.forget(path) }, filter, limit, signal)
    if (found !== undefined) this.counters.newestLists++
    return found
  }

  /** Write what this process read or folded since the last flush to the shared rows (a transaction per turn, `index/write-turns.ts`). */
  flush(): void {
    if (this.shared !== undefined) this.counters.sharedWrites += this.shared.flush(() => this.counters.sharedWrites++)
  }

  /** A new process's first refresh: every shared row of the root, once (revisions still to be checked). */
  private hydrate(): void {
    if (this.shared !== undefined) this.counters.sharedRows += this.entries.putRows(put => this.shared!.takeAll(put))
  }

  private forget(path: string): void {
    this.entries.drop(path)
    this.shared?.gone(path)
  }

  private remember(entry: IndexEntry, title: CachedTitle): void {
    entry.title = title
    this.shared?.title(entry.log.path, title)
    this.entries.remeasure(entry) // titles change an entry's size
  }

  private matching(entry: IndexEntry | undefined, sessionId: string): IndexEntry | undefined {
    this.flush()
    return entry?.header.id === sessionId ? entry : undefined
  }

  private load(log: ScannedLog): IndexEntry | undefined {
    this.counters.headerReads++
    return this.store(log, this.files.readHeader(log))
  }

  /** A shared row whose file still has its identity, as an entry at the revision just seen. */
  private adopt(row: CorpusRow, log: ScannedLog): IndexEntry {
    this.counters.sharedRows++
    return this.entries.put({ ...entryOfRow(row), log })
  }

  private store(log: ScannedLog, header: SessionHeaderView | undefined): IndexEntry | undefined {
    if (header === undefined) return undefined
    const entry = this.entries.put({ log, checkedBy: undefined, header, title: undefined, bytes: 0 })
    this.shared?.header(rowOfEntry(entry))
    return entry
  }
}
