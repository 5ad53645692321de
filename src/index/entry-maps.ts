/**
 * The corpus index's entries in memory: bounded by an `lru-cache` on each
 * entry's estimated bytes (eviction drops the least recently written), with
 * the same entries in plain `Map`s by path and by session id for reads
 * (lru-cache's `peek` costs ~1.4 µs, once per candidate of a query list;
 * its `get` bookkeeping ~1 s a pass at 100,000 entries), kept in step with
 * the cache by its `dispose`.
 *
 * @module dsh-cross-session/index/entry-maps
 */

import { LRUCache } from 'lru-cache'
import { entryBytes, type IndexEntry } from './index-entry.js'

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
  private readonly bound: LRUCache<string, IndexEntry>

  constructor(maxBytes: number) {
    this.bound = new LRUCache<string, IndexEntry>({
      maxSize: maxBytes,
      sizeCalculation: entryBytes,
      dispose: (entry, path, reason) => {
        this.changes++
        if (reason === 'evict') this.evicted = true
        if (this.byId.get(entry.header.id) === entry) this.byId.delete(entry.header.id)
        if (this.byPath.get(path) === entry) this.byPath.delete(path)
      },
    })
  }

  /** Entries held and their estimated bytes. */
  get size(): { entries: number, bytes: number } {
    return { entries: this.bound.size, bytes: this.bound.calculatedSize }
  }

  /** Hold `entry` under its log path and session id. */
  put(entry: IndexEntry): IndexEntry {
    this.changes++
    this.bound.set(entry.log.path, entry)
    this.byPath.set(entry.log.path, entry)
    this.byId.set(entry.header.id, entry)
    return entry
  }

  /** Measure `entry` again after it grew (a title was folded), if it is still held. */
  remeasure(entry: IndexEntry): void {
    if (this.byPath.get(entry.log.path) === entry) this.bound.set(entry.log.path, entry)
  }

  /** Drop the entry of a log path. */
  drop(path: string): void {
    this.changes++
    this.bound.delete(path)
  }

  /**
   * {@link onePerSession} of a refresh's entries, with each duplicated id
   * looked up (`byId`) as the entry shown: a row's title and reads come from
   * the very log whose header it shows.
   */
  onePerSession(entries: IndexEntry[]): IndexEntry[] {
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
