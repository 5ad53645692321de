/**
 * The corpus index's link to its shared rows (`index/shared-rows.ts`): what
 * it takes from them (every row of the root once per process, one row for a
 * session it has not seen, the rows of entries it evicted) and the changes
 * it queues for them (headers read, logs gone, titles folded), written at
 * each {@link SharedIndex.flush}, one transaction per turn of the event loop
 * (`index/write-turns.ts`).
 *
 * A store that fails (locked past its timeout, closed, full) costs only the
 * sharing: the index keeps answering from the files, and the failure is
 * reported once through `onError`. The rows are asked for at each use, so a
 * store file replaced under a running process (`home/store-supervisor.ts`
 * opens the new one) is shared from its next call on.
 *
 * @module dsh-cross-session/index/shared-index
 */

import type { CachedTitle } from './plan.js'
import type { HeaderFilter } from '../model/list-filter.js'
import type { CorpusRow, CorpusRows, RowVisitor, StoredSurface } from './shared-rows.js'
import { WriteTurns } from './write-turns.js'

/** Above this many evicted logs in one refresh, their rows are read in one query over the root. */
const BULK_ROWS = 64

/**
 * How long the rows a {@link SharedIndex.scan} read whole answer {@link SharedIndex.bySession} for their session,
 * ms: the same list's title read asks for each shown row's right after the scan read it.
 */
export const PICKED_ROWS_MS = 1000

/** The shared rows of one root, as one corpus index uses them. */
export class SharedIndex {
  private readonly source: () => CorpusRows | undefined
  private readonly root: string
  private readonly onError: (error: unknown) => void
  private hydrated = false
  private failed = false
  private readonly headers = new Map<string, CorpusRow>()
  private readonly removed = new Set<string>()
  private readonly titles = new Map<string, CachedTitle>()
  /** The rows the last scan read whole, by session id, and when (`performance.now()`, ms). */
  private picked: { rows: Map<string, CorpusRow>, at: number } | undefined
  private readonly turns = new WriteTurns(changes => this.guard(rows => {
    rows.write(this.root, changes)
    return true
  }) ?? false)

  /**
   * @param source - the shared rows of the store open now; `undefined` while none is (nothing is shared meanwhile:
   *   the supervisor says why).
   * @param root - the root's key (`${root}\0${fileName}`).
   */
  constructor(source: () => CorpusRows | undefined, root: string, onError: (error: unknown) => void = () => undefined) {
    this.source = source
    this.root = root
    this.onError = onError
  }

  /**
   * Hand every row of the root to `visit`, the first time only (a new process's first call); none after. A store
   * that fails part way leaves the rows visited so far (each is a cache entry: a log without one is read).
   * @returns the rows `visit` took.
   * @throws what `visit` throws (a fault of the caller's, not of the store: never taken for the store failing).
   */
  takeAll(visit: (row: CorpusRow) => void): number {
    if (this.hydrated) return 0
    this.hydrated = true
    let visited = 0
    let refused: { error: unknown } | undefined
    try {
      this.source()?.each(this.root, row => {
        try {
          visit(row)
        } catch (error: unknown) {
          refused = { error }
          throw error
        }
        visited++
      })
    } catch (error: unknown) {
      if (refused !== undefined) throw refused.error
      this.fault(error)
    }
    return visited
  }

  /**
   * `CorpusRows.scan` of the root (a new process's first list, `index/newest.ts`); `undefined` when no store is open
   * or it fails (then the caller lists the usual way). The rows it reads whole answer {@link bySession} for
   * {@link PICKED_ROWS_MS}.
   */
  scan(filter: HeaderFilter, visit: RowVisitor, pick: () => readonly string[]): CorpusRow[] | undefined {
    const picked = this.guard(rows => rows.scan(this.root, filter, visit, pick))
    this.picked = picked === undefined ? undefined : { rows: new Map(picked.map(row => [row.sessionId, row])), at: performance.now() }
    return picked
  }

  /**
   * The row of one session id: one the last scan read whole moments ago (each once), else the store's. A row is a
   * cache entry either way (its header used only while its file keeps that identity, its title only at that
   * revision), so one read a second earlier is as exact, and spares a query per shown row.
   */
  bySession(sessionId: string): CorpusRow | undefined {
    const picked = this.picked
    const row = picked !== undefined && performance.now() - picked.at < PICKED_ROWS_MS ? picked.rows.get(sessionId) : undefined
    if (row !== undefined) {
      picked!.rows.delete(sessionId)
      return row
    }
    return this.guard(rows => rows.bySession(this.root, sessionId))
  }

  /** Rows of these paths (entries this process evicted), by path. */
  byPaths(paths: readonly string[]): Map<string, CorpusRow> {
    const found = new Map<string, CorpusRow>()
    if (paths.length === 0) return found
    const wanted = paths.length > BULK_ROWS ? new Set(paths) : undefined
    const rows = this.guard(shared => wanted === undefined ? paths.map(path => shared.byPath(path)) : shared.all(this.root)) ?? []
    for (const row of rows) if (row !== undefined && (wanted === undefined || wanted.has(row.path))) found.set(row.path, row)
    return found
  }

  /** The surface kept for one log path (`index/surface-cache.ts`). */
  surface(path: string): StoredSurface | undefined {
    return this.guard(rows => rows.surface(path))
  }

  /** Keep a surface (one transaction, not queued: it is large and written once per read). @returns whether it was written. */
  keepSurface(surface: StoredSurface, keep: number): boolean {
    return this.guard(rows => {
      rows.keepSurface(this.root, surface, keep)
      return true
    }) ?? false
  }

  /** Queue a header read from its log. */
  header(row: CorpusRow): void {
    this.removed.delete(row.path)
    this.headers.set(row.path, row)
  }

  /** Queue a log gone from the root. */
  gone(path: string): void {
    this.headers.delete(path)
    this.titles.delete(path)
    this.removed.add(path)
  }

  /** Queue a title folded. */
  title(path: string, title: CachedTitle): void {
    const header = this.headers.get(path)
    if (header !== undefined && header.identity === title.identity) this.headers.set(path, { ...header, title })
    else this.titles.set(path, title)
  }

  /**
   * Write what is queued: up to `index/write-turns.ts` `WRITE_BATCH` changes now (one transaction), the rest one
   * transaction per turn of the event loop, after whatever an earlier flush left waiting.
   * @param later - called after each transaction written in a later turn.
   * @returns transactions written now (0 or 1).
   */
  flush(later?: () => void): number {
    if (this.headers.size === 0 && this.removed.size === 0 && this.titles.size === 0) return 0
    const changes = {
      headers: [...this.headers.values()],
      removed: [...this.removed],
      titles: [...this.titles].map(([path, title]) => ({ path, title })),
    }
    this.headers.clear()
    this.removed.clear()
    this.titles.clear()
    return this.turns.add(changes, later)
  }

  /** Write every transaction still waiting for its turn, now (the index is left: the process ends, or the root changed). */
  finish(): void {
    this.turns.finish()
  }

  /** `work` on the rows of the store open now, or `undefined` when none is or the store fails it ({@link fault}). */
  private guard<T>(work: (rows: CorpusRows) => T): T | undefined {
    try {
      // Asked inside the guard: a source that throws is a store that failed (a write in a later turn of the event
      // loop must never throw out of it).
      const rows = this.source()
      return rows === undefined ? undefined : work(rows)
    } catch (error: unknown) {
      this.fault(error)
      return undefined
    }
  }

  /** A store failure: reported the first time only. */
  private fault(error: unknown): void {
    if (!this.failed) this.onError(error)
    this.failed = true
  }
}
