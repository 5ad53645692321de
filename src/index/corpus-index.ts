/**
 * The corpus index (docs/performance.md, "Corpus index: what each call
 * re-checks"): session headers and titles of one JSONL
 * session root, keyed by log file and revision, so a call pays for the logs
 * that changed and the rows it shows, not for the corpus.
 *
 * - {@link CorpusIndex.refresh}: one revision check of every log (`stat`);
 *   reads the header line only of logs new to the index (or whose file was
 *   replaced); drops logs that are gone. Never folds a title.
 * - {@link CorpusIndex.check}: the same for one session id (one `stat`, or a
 *   probe of each project directory for an id the index has not seen).
 * - {@link CorpusIndex.title}: the title at the revision just checked: cached
 *   when the log is unchanged, else folded from the frames appended since the
 *   last fold (or the whole log when the file was replaced or shortened).
 *
 * Memory is bounded by an `lru-cache` on an estimate of each entry's bytes
 * ({@link DEFAULT_INDEX_BYTES}); an evicted log is simply read again.
 *
 * @module dsh-cross-session/index/corpus-index
 */

import { LRUCache } from 'lru-cache'
import type { SessionHeaderView } from '../ports.js'
import type { LogFiles } from './jsonl-files.js'
import { planScan, planTitle, type CachedTitle, type ScannedLog } from './plan.js'

/** Default bound of the index's estimated size: 48 MB (its budget: ≤ 64 MB retained at 10,000 sessions, docs/performance.md "Budgets"). */
const DEFAULT_INDEX_BYTES = 48 * 1024 * 1024

/** What the index holds for one log. */
interface IndexEntry {
  /** The log as last checked. */
  log: ScannedLog
  /** The {@link CorpusIndex.generation} of the refresh that last checked it. */
  checkedBy?: number
  readonly header: SessionHeaderView
  title?: CachedTitle
}

/** Estimated retained bytes of one entry (UTF-16 strings plus object overhead). */
function entryBytes(entry: IndexEntry): number {
  let chars = entry.log.path.length + entry.log.dirName.length + entry.log.identity.length + entry.log.revision.length
  for (const value of Object.values(entry.header)) if (typeof value === 'string') chars += value.length
  if (entry.title !== undefined) chars += entry.title.revision.length + entry.title.identity.length + (entry.title.value?.length ?? 0)
  return chars * 2 + 400
}

/** Work done by the index since it was built (for tests and the bench). */
interface IndexCounters {
  scans: number
  /** Revision checks of one log (`check` outside a same-call refresh). */
  singleChecks: number
  headerReads: number
  titleFolds: number
  /** Titles folded from the appended frames only. */
  titleTailFolds: number
}

/** Header frames decoded per batch (one zstd context each); the loop yields between batches. */
const HEADER_BATCH = 256

export class CorpusIndex {
  readonly counters: IndexCounters = { scans: 0, singleChecks: 0, headerReads: 0, titleFolds: 0, titleTailFolds: 0 }
  private readonly byPath: LRUCache<string, IndexEntry>
  private readonly pathById = new Map<string, string>()
  private readonly files: LogFiles
  /** Serial of the last {@link refresh}. */
  generation = 0

  constructor(files: LogFiles, maxBytes = DEFAULT_INDEX_BYTES) {
    this.files = files
    this.byPath = new LRUCache<string, IndexEntry>({
      maxSize: maxBytes,
      sizeCalculation: entryBytes,
      dispose: (entry, path) => {
        if (this.pathById.get(entry.header.id) === path) this.pathById.delete(entry.header.id)
      },
    })
  }

  /** Entries held and their estimated bytes. */
  get size(): { entries: number, bytes: number } {
    return { entries: this.byPath.size, bytes: this.byPath.calculatedSize }
  }

  /**
   * One revision check of the whole root.
   * @returns every log present now that has a session header.
   */
  async refresh(signal: AbortSignal): Promise<IndexEntry[]> {
    this.counters.scans++
    const generation = ++this.generation
    const scanned = await this.files.scan(signal)
    const byPath = this.byPath
    const plan = planScan({ get: path => byPath.peek(path)?.log, size: byPath.size, keys: () => byPath.keys() }, scanned)
    for (const path of plan.removed) this.byPath.delete(path)
    const entries: IndexEntry[] = []
    for (const log of plan.unchanged) {
      const entry = this.byPath.get(log.path)
      if (entry === undefined) continue
      entry.log = log
      entry.checkedBy = generation
      entries.push(entry)
    }
    for (let start = 0; start < plan.readHeader.length; start += HEADER_BATCH) {
      if (start > 0) {
        await new Promise(resolve => setImmediate(resolve))
        signal.throwIfAborted()
      }
      const batch = plan.readHeader.slice(start, start + HEADER_BATCH)
      this.counters.headerReads += batch.length
      const headers = this.files.readHeaders(batch)
      batch.forEach((log, position) => {
        const entry = this.store(log, headers[position])
        if (entry === undefined) return
        entry.checkedBy = generation
        entries.push(entry)
      })
    }
    return entries
  }

  /**
   * One session's entry after a revision check of its log alone, or
   * `undefined` when no log of that id exists now.
   * @param checkedBy - a refresh generation made by the same tool call: an
   *   entry that refresh checked is not checked again.
   */
  check(sessionId: string, checkedBy?: number): IndexEntry | undefined {
    const path = this.pathById.get(sessionId)
    const entry = path === undefined ? undefined : this.byPath.get(path)
    if (entry !== undefined && checkedBy !== undefined && entry.checkedBy === checkedBy) return entry
    this.counters.singleChecks++
    if (entry !== undefined) {
      const log = this.files.restat(entry.log)
      if (log !== undefined && log.identity === entry.log.identity) {
        entry.log = log
        return entry
      }
      this.byPath.delete(entry.log.path)
      if (log !== undefined) return this.matching(this.load(log), sessionId)
    }
    const probed = this.files.probe(sessionId)
    return probed === undefined ? undefined : this.matching(this.load(probed), sessionId)
  }

  /**
   * The title of an entry at the revision last checked (`refresh` / `check`),
   * or `undefined` when its log has no `session/title` event.
   */
  title(entry: IndexEntry): string | undefined {
    const plan = planTitle(entry.title, entry.log)
    if (plan === 'cached') return entry.title?.value
    const log = entry.log
    if (plan !== 'full') {
      try {
        const tail = this.files.readTitle(log, plan.from)
        this.counters.titleTailFolds++
        const value = tail.found ? tail.value : entry.title?.value
        this.remember(entry, { revision: log.revision, identity: log.identity, value, completeBytes: tail.completeBytes })
        return value
      } catch {
        // Not a frame boundary after all (the file was rewritten): fold it whole.
      }
    }
    const read = this.files.readTitle(log, 0)
    this.counters.titleFolds++
    this.remember(entry, { revision: log.revision, identity: log.identity, value: read.value, completeBytes: read.completeBytes })
    return read.value
  }

  private remember(entry: IndexEntry, title: CachedTitle): void {
    entry.title = title
    // Re-set so the cache re-measures the entry (titles change its size).
    if (this.byPath.get(entry.log.path) === entry) this.byPath.set(entry.log.path, entry)
  }

  private matching(entry: IndexEntry | undefined, sessionId: string): IndexEntry | undefined {
    return entry?.header.id === sessionId ? entry : undefined
  }

  private load(log: ScannedLog): IndexEntry | undefined {
    this.counters.headerReads++
    return this.store(log, this.files.readHeader(log))
  }

  private store(log: ScannedLog, header: SessionHeaderView | undefined): IndexEntry | undefined {
    if (header === undefined) return undefined
    const entry: IndexEntry = { log, header }
    this.byPath.set(log.path, entry)
    this.pathById.set(header.id, log.path)
    return entry
  }
}
