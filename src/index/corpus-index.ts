/**
 * The corpus index (docs/performance.md, "Corpus index: what each call
 * re-checks"): session headers and titles of one JSONL
 * session root, keyed by log file and revision, so a call pays for the logs
 * that changed and the rows it shows, not for the corpus.
 *
 * - {@link CorpusIndex.refresh}: one listing of the root (`readdir`); a
 *   `stat` and the header line only of logs new to the index; drops logs
 *   that are gone. Never folds a title; known logs are re-checked by `check`.
 * - {@link CorpusIndex.check}: the same for one session id (one `stat`, or a
 *   probe of each project directory for an id the index has not seen).
 * - {@link CorpusIndex.title}: the title at the revision just checked
 *   (`index/title-fold.ts`: cached, a fold of the appended frames, or whole).
 *
 * With the home store ({@link SharedIndex}, docs/performance.md "What a new
 * process reads"), a new process starts from the rows earlier ones wrote: it
 * re-checks every revision, reads no header and folds no title a row holds
 * for that file identity / log revision, and writes back what it read.
 *
 * Memory is bounded by an `lru-cache` on an estimate of each entry's bytes
 * ({@link DEFAULT_INDEX_BYTES}, sized for 100,000 sessions); an evicted log
 * comes back from its shared row (else it is read again).
 *
 * @module dsh-cross-session/index/corpus-index
 */

import { LRUCache } from 'lru-cache'
import type { SessionHeaderView } from '../ports.js'
import { DEFAULT_INDEX_BYTES, entryBytes, entryOfRow, rowOfEntry, zeroCounters, type IndexCounters, type IndexEntry } from './index-entry.js'
import { readHeaderBatches } from './header-batches.js'
import type { LogFiles } from './jsonl-files.js'
import { planScan, type CachedTitle, type ScannedLog } from './plan.js'
import { foldTitle } from './title-fold.js'
import type { SharedIndex } from './shared-index.js'
import type { CorpusRow } from './shared-rows.js'

export class CorpusIndex {
  readonly counters: IndexCounters = zeroCounters()
  private readonly byPath: LRUCache<string, IndexEntry>
  /**
   * The same entries by path and by session id, kept in step with `byPath` by its `dispose`: reads are plain
   * `Map` reads (lru-cache's `peek` costs ~1.4 µs, once per candidate of a query list); `byPath` bounds them.
   */
  private readonly held = new Map<string, IndexEntry>()
  private readonly byId = new Map<string, IndexEntry>()
  private readonly files: LogFiles
  private readonly shared: SharedIndex | undefined
  /** Whether an entry was evicted since the last refresh (its shared row may bring it back). */
  private evicted = false
  /** Serial of the last {@link refresh}. */
  generation = 0

  constructor(files: LogFiles, maxBytes = DEFAULT_INDEX_BYTES, shared?: SharedIndex) {
    this.files = files
    this.shared = shared
    this.byPath = new LRUCache<string, IndexEntry>({
      maxSize: maxBytes,
      sizeCalculation: entryBytes,
      dispose: (entry, path, reason) => {
        if (reason === 'evict') this.evicted = true
        if (this.byId.get(entry.header.id) === entry) this.byId.delete(entry.header.id)
        if (this.held.get(path) === entry) this.held.delete(path)
      },
    })
  }

  // Reads never touch lru-cache (its `get` bookkeeping cost ~1 s a pass at 100,000 entries): eviction drops the least recently written.
  /** Entries held and their estimated bytes. */
  get size(): { entries: number, bytes: number } {
    return { entries: this.byPath.size, bytes: this.byPath.calculatedSize }
  }

  /** One listing of the whole root. @returns every log present now that has a session header. */
  async refresh(signal: AbortSignal): Promise<IndexEntry[]> {
    this.counters.scans++
    const generation = ++this.generation
    this.hydrate()
    const listed = await this.files.list(signal)
    const held = this.held
    const plan = planScan({ get: path => held.get(path), size: held.size, keys: () => held.keys() }, listed, entry => entry.log.identity)
    for (const path of plan.removed) this.forget(path)
    // Known logs: listed, not `stat`ed (their revision is checked when a title or a read needs it: `check`).
    const entries: IndexEntry[] = [...plan.known]
    const fresh = plan.readHeader.map(log => this.files.restat(log)).filter(log => log !== undefined)
    // Entries this process evicted come back from their shared rows; the rest are read.
    const rows = this.evicted && this.shared !== undefined ? this.shared.byPaths(fresh.map(log => log.path)) : undefined
    this.evicted = false
    const toRead: ScannedLog[] = []
    for (const log of fresh) {
      const row = rows?.get(log.path)
      const entry = row?.identity === log.identity ? this.adopt(row, log) : undefined
      if (entry === undefined) {
        toRead.push(log)
        continue
      }
      entry.checkedBy = generation
      entries.push(entry)
    }
    this.counters.headerReads += toRead.length
    await readHeaderBatches(this.files, toRead, signal, (log, header) => {
      const entry = this.store(log, header)
      if (entry === undefined) return
      entry.checkedBy = generation
      entries.push(entry)
    })
    this.flush()
    return entries
  }

  /**
   * One session's entry after a revision check of its log alone, or
   * `undefined` when no log of that id exists now.
   * @param checkedBy - a refresh generation made by the same tool call: an
   *   entry that refresh checked is not checked again.
   */
  check(sessionId: string, checkedBy?: number): IndexEntry | undefined {
    const entry = this.byId.get(sessionId)
    if (entry !== undefined && checkedBy !== undefined && entry.checkedBy === checkedBy) return entry
    this.counters.singleChecks++
    if (entry !== undefined) {
      const log = this.files.restat(entry.log)
      if (log !== undefined && log.identity === entry.log.identity) {
        entry.log = log
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

  /**
   * The title of an entry at the revision last checked (`refresh` / `check`),
   * or `undefined` when its log has no `session/title` event.
   */
  title(entry: IndexEntry): string | undefined {
    const { value, folded } = foldTitle(this.files, entry, this.counters)
    if (folded !== undefined) this.remember(entry, folded)
    return value
  }

  /** Write what this process read or folded since the last flush to the shared rows (one transaction). */
  flush(): void {
    if (this.shared !== undefined) this.counters.sharedWrites += this.shared.flush()
  }

  /** A new process's first call: every shared row of the root, once (revisions still to be checked). */
  private hydrate(): void {
    for (const row of this.shared?.takeAll() ?? []) this.adopt(row, entryOfRow(row).log)
  }

  private forget(path: string): void {
    this.byPath.delete(path)
    this.shared?.gone(path)
  }

  private remember(entry: IndexEntry, title: CachedTitle): void {
    entry.title = title
    this.shared?.title(entry.log.path, title)
    // Re-set so the cache re-measures the entry (titles change its size).
    if (this.held.get(entry.log.path) === entry) this.byPath.set(entry.log.path, entry)
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
    return this.put({ ...entryOfRow(row), log })
  }

  private store(log: ScannedLog, header: SessionHeaderView | undefined): IndexEntry | undefined {
    if (header === undefined) return undefined
    const entry = this.put({ log, header })
    this.shared?.header(rowOfEntry(entry))
    return entry
  }

  private put(entry: IndexEntry): IndexEntry {
    this.byPath.set(entry.log.path, entry)
    this.held.set(entry.log.path, entry)
    this.byId.set(entry.header.id, entry)
    return entry
  }
}
