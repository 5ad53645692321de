/**
 * The corpus index's entries in memory: bounded by an `lru-cache` on each
 * entry's estimated bytes (eviction drops the least recently written; the
 * cache is built the first time the entries pass the bound), with
 * the same entries in plain `Map`s by path and by session id for reads
 * (lru-cache's `peek` costs ~1.4 µs, once per candidate of a query list;
 * its `get` bookkeeping ~1 s a pass at 100,000 entries), kept in step with
 * the cache by its `dispose`.
 *
 * @module dsh-cross-session/index/entry-maps
 */

import { LRUCache } from 'lru-cache'
import { entryBytes, entryOfRow, type IndexEntry } from './index-entry.js'
import type { CorpusRow } from './shared-rows.js'

/** Entries by log path and by session id, within a byte bound. */
export class EntryMaps {
  /** By log path (read with plain `Map` speed). */
  readonly byPath = new Map<string, IndexEntry>()
  /** By session id: the entry last put for that id. */
  readonly byId = new Map<string, IndexEntry>()
  /** Entries put or dropped so far: while it stays put, so do the entries. */
  changes = 0
  /** Whether an entry was evicted since {@link takeEvicted} (its shared row may bring it back). */
  private evicted = false
  private readonly maxBytes: number
  /**
   * The bound, from the first time the entries' estimated bytes pass it:
   * below it nothing can be evicted, and a new process's first call holds
   * 100,000 entries without one cache write each (~0.25 s).
   */
  private bound: LRUCache<string, IndexEntry> | undefined
  /** Estimated bytes held while the bound is not engaged (each entry's as measured when put: `entry.bytes`). */
  private bytes = 0

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes
  }

  /** Entries held and their estimated bytes. */
  get size(): { entries: number, bytes: number } {
    return this.bound === undefined
      ? { entries: this.byPath.size, bytes: this.bytes } : { entries: this.bound.size, bytes: this.bound.calculatedSize }
  }

  /** Hold `entry` under its log path and session id. */
  put(entry: IndexEntry): IndexEntry {
    this.changes++
    const path = entry.log.path
    // The id of the entry this one replaces is dropped with it: every id held maps to an entry held by path.
    const replaced = this.byPath.get(path)
    if (replaced !== undefined && replaced !== entry && this.byId.get(replaced.header.id) === replaced) this.byId.delete(replaced.header.id)
    if (this.bound !== undefined) this.bound.set(path, entry)
    else this.measure(path, entry)
    this.byPath.set(path, entry)
    this.byId.set(entry.header.id, entry)
    this.engageWhenFull()
    return entry
  }

  /**
   * {@link put} of an entry of each shared row (`entryOfRow`) that `feed` hands to its callback: a new process's
   * first call holds every stored session this way, running it cold (no call per row to put and measure, no array
   * of every row). Rows are keyed by path, so no two share one; into maps already holding entries each is
   * {@link put} alone. @returns what `feed` returned (the rows it handed over).
   */
  putRows(feed: (put: (row: CorpusRow) => void) => number): number {
    if (this.bound !== undefined || this.byPath.size > 0) return feed(row => this.put(entryOfRow(row)))
    const { byPath, byId } = this
    let bytes = 0
    let count = 0
    try {
      return feed(row => {
        const entry = entryOfRow(row)
        entry.bytes = entryBytes(entry)
        bytes += entry.bytes
        count++
        byPath.set(entry.log.path, entry)
        byId.set(entry.header.id, entry)
      })
    } finally {
      // What was held counts even when `feed` throws part way: the maps hold it.
      this.bytes += bytes
      this.changes += count
      this.engageWhenFull()
    }
  }

  /** Measure `entry` again after it grew (a title was folded), if it is still held. */
  remeasure(entry: IndexEntry): void {
    const path = entry.log.path
    if (this.byPath.get(path) !== entry) return
    if (this.bound !== undefined) this.bound.set(path, entry)
    else this.measure(path, entry)
    this.engageWhenFull()
  }

  /** Drop the entry of a log path. */
  drop(path: string): void {
    this.changes++
    if (this.bound !== undefined) {
      this.bound.delete(path)
      return
    }
    const entry = this.byPath.get(path)
    if (entry !== undefined) this.forget(path, entry)
  }

  /** Count `entry`'s bytes in place of what was held at `path` (bound not engaged). */
  private measure(path: string, entry: IndexEntry): void {
    const previous = this.byPath.get(path)
    if (previous !== undefined) this.bytes -= previous.bytes ?? 0
    entry.bytes = entryBytes(entry)
    this.bytes += entry.bytes
  }

  /** What lru-cache's `dispose` does for an entry leaving the maps. */
  private forget(path: string, entry: IndexEntry): void {
    if (this.byId.get(entry.header.id) === entry) this.byId.delete(entry.header.id)
    if (this.byPath.get(path) === entry) this.byPath.delete(path)
    if (this.bound === undefined) this.bytes -= entry.bytes ?? 0
  }

  /** Past the bound: every entry into the `lru-cache` (in the order first held, the least recent first), for good. */
  private engageWhenFull(): void {
    if (this.bound !== undefined || this.bytes <= this.maxBytes) return
    const bound = new LRUCache<string, IndexEntry>({
      maxSize: this.maxBytes,
      sizeCalculation: entryBytes,
      dispose: (entry, path, reason) => {
        this.changes++
        if (reason === 'evict') this.evicted = true
        this.forget(path, entry)
      },
    })
    this.bound = bound
    for (const [path, entry] of [...this.byPath]) bound.set(path, entry)
  }

  /**
   * {@link onePerSession} of a refresh's entries, with each duplicated id
   * looked up (`byId`) as the entry shown: a row's title and reads come from
   * the very log whose header it shows.
   */
  onePerSession(entries: IndexEntry[]): IndexEntry[] {
    // Every held entry is a distinct session when the maps hold as many ids as paths (each id maps to a held entry),
    // and with no bound engaged every entry of a refresh is held: nothing to look for (a new process's first list).
    if (this.bound === undefined && this.byId.size === this.byPath.size) return entries
    const unique = onePerSession(entries)
    if (unique !== entries) for (const entry of unique) if (this.byPath.get(entry.log.path) === entry) this.byId.set(entry.header.id, entry)
    return unique
  }

  /** Whether an entry was evicted since the last call (and reset). */
  takeEvicted(): boolean {
    const evicted = this.evicted
    this.evicted = false
    return evicted
  }
}

/**
 * One entry per session id (the same id can have a log in two project
 * directories, for example a copied session): the newest by `createdAt`,
 * the first listed among ties. `entries` itself when every id is unique.
 */
export function onePerSession(entries: IndexEntry[]): IndexEntry[] {
  const byId = new Map<string, IndexEntry>()
  let duplicates = false
  for (const entry of entries) {
    const previous = byId.get(entry.header.id)
    if (previous === undefined) byId.set(entry.header.id, entry)
    else {
      duplicates = true
      if (entry.header.createdAt > previous.header.createdAt) byId.set(entry.header.id, entry)
    }
  }
  return duplicates ? entries.filter(entry => byId.get(entry.header.id) === entry) : entries
}
