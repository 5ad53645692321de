/**
 * The corpus index's shared half (docs/performance.md "What a new process
 * reads"; tables in docs/architecture.md §8): rows every process of one
 * `DSH_HOME` reads and writes, so a new process re-checks revisions instead
 * of re-reading headers and re-folding titles an earlier process already read.
 *
 * A row is a cache entry, never a fact: its header is used only while the
 * log file keeps the same identity (`dev:ino:birthtime`, headers are
 * immutable while it holds), and its title only at exactly the log revision
 * it was folded at (or as the start of a fold of the appended frames). A
 * stale, lost or half-written row therefore costs a re-read, never a wrong
 * answer.
 *
 * @module dsh-cross-session/index/shared-rows
 */

import type { SessionHeaderView } from '../ports.js'
import type { CachedTitle } from './plan.js'
import type { HeaderFilter } from '../model/list-filter.js'

/** One log as the shared index holds it. */
export interface CorpusRow {
  /** Absolute path of the log file (the row's key). */
  readonly path: string
  readonly sessionId: string
  /** Its session directory name (`encodeSegment(session id)`). */
  readonly dirName: string
  /** File identity the header was read at. */
  readonly identity: string
  readonly header: SessionHeaderView
  /** The title and the log revision it was folded at, when one was folded. */
  readonly title?: CachedTitle
}

/** Changes of one root, written as one transaction. */
export interface CorpusChanges {
  /** Logs whose header was read (new, or whose file was replaced). */
  readonly headers: readonly CorpusRow[]
  /** Logs gone from the root. */
  readonly removed: readonly string[]
  /** Titles folded, by path (written only while the row has that identity). */
  readonly titles: ReadonlyArray<{ readonly path: string, readonly title: CachedTitle }>
}

/**
 * The folded surface of one log at one revision (`index/surface-cache.ts`):
 * what a cold `sessions_read` got from `sessionPersistence.inspect(id)` and
 * the surface fold, kept so a later process at the same revision does not
 * parse the log again. Used only at exactly `revision` of a file of `identity`.
 */
export interface StoredSurface {
  /** Absolute path of the log file (the row's key). */
  readonly path: string
  readonly sessionId: string
  readonly identity: string
  /** The harness's `fileRevision` of the log the surface was folded from. */
  readonly revision: string
  /** `{ session, capturedThroughSeq, events }` as JSON, zstd-compressed. */
  readonly surface: Uint8Array
}

/**
 * One row as a first list scans it ({@link CorpusRows.scan}): its key, its session directory's name, its creation
 * time (a bad one read as 0, as `model/sessions.ts` `headerOf` reads it) and whether its header passes the list's
 * filters; no object is made per row.
 */
export type RowVisitor = (path: string, dirName: string, createdAt: number, passes: boolean) => void

/** The shared rows of the home store (`home/store-corpus.ts`). Every method is synchronous; none throws on a missing row. */
export interface CorpusRows {
  /** Every row of the root `root` (one snapshot). */
  all(root: string): CorpusRow[]
  /**
   * Hand every row of `root` to `visit`, one at a time, from one snapshot (a new process's first call: no array of
   * every row is kept). @returns the rows visited.
   */
  each(root: string, visit: (row: CorpusRow) => void): number
  /**
   * From one snapshot: every row of `root` with a usable session id handed to `visit`, with whether its header
   * passes `filter` (`model/list-filter.ts` `headerPasses`), then the whole rows of the paths `pick` names then, in
   * that order (a new process's first list, docs/performance.md "What a new process reads").
   */
  scan(root: string, filter: HeaderFilter, visit: RowVisitor, pick: () => readonly string[]): CorpusRow[]
  /** The row of one session id under `root`, if any (one indexed query). */
  bySession(root: string, sessionId: string): CorpusRow | undefined
  /** The row of one log path, if any. */
  byPath(path: string): CorpusRow | undefined
  /**
   * Apply `changes` to `root`, in transactions of a bounded number of rows (each row stands alone: a batch that did not
   * commit costs a re-read).
   */
  write(root: string, changes: CorpusChanges): void
  /** The surface kept for one log path, if any (one indexed query). */
  surface(path: string): StoredSurface | undefined
  /**
   * Keep `surface` for its path (replacing the one kept before), and keep at most `keep` surfaces of `root` (the latest
   * written); one transaction.
   */
  keepSurface(root: string, surface: StoredSurface, keep: number): void
}
