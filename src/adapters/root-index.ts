/**
 * The corpus index of the JSONL persistence backend's root now (docs/performance.md "Corpus index"), for the indexed
 * session query port (./persistence-index.ts): one per root, keyed by the backend's root and log file name, not by
 * object identity (Cordis hands out a fresh proxy of a service on every `ctx.get`). An index left behind (another
 * root, or the plugin's end) writes the rows it queued and ends its worker thread.
 *
 * @module dsh-cross-session/adapters/root-index
 */

import { CorpusIndex } from '../index/corpus-index.js'
import { jsonlFiles, jsonlLayout, type LogFiles } from '../index/jsonl-files.js'
import { SharedIndex } from '../index/shared-index.js'
import type { CorpusRows } from '../index/shared-rows.js'
import { SurfaceCache } from '../index/surface-cache.js'
import { RowWrites } from './row-writes.js'

/** The index of the backend's root now, with what it keeps and writes. */
export interface Indexed {
  /** `ctx.sessionPersistence` as read for this call. */
  readonly persistence: { inspect?: unknown }
  readonly index: CorpusIndex
  readonly surfaces: SurfaceCache
  readonly writes: RowWrites
}

/** What {@link RootIndex} reads from the host. */
export interface RootIndexOptions {
  /** `ctx.sessionPersistence` right now (read on every call: services come and go). */
  readonly persistence: () => unknown
  /** The home store's shared corpus rows, when the home is usable (asked for at each use: the store open now). */
  readonly shared?: () => CorpusRows | undefined
  /** Where a failing shared index is reported (once per index). */
  readonly log?: (message: string) => void
  /** Called once per index built (tests and the bench read its counters). */
  readonly onIndex?: (index: CorpusIndex) => void
}

/** The index of the root the backend has now. */
export class RootIndex {
  private current: (Omit<Indexed, 'persistence'> & { key: string, files: LogFiles, shared: SharedIndex | undefined }) | undefined
  private readonly options: RootIndexOptions

  constructor(options: RootIndexOptions) {
    this.options = options
  }

  /** The index of the backend's root now, built on first use; `undefined` when the backend is not rc.8's JSONL one. */
  now(): Indexed | undefined {
    const { options } = this
    const persistence = options.persistence()
    const layout = persistence === undefined ? undefined : jsonlLayout(persistence)
    if (layout === undefined) return undefined
    const key = `${layout.root}\0${layout.fileName}`
    if (this.current?.key !== key) {
      this.leave()
      const shared = options.shared === undefined
        ? undefined
        : new SharedIndex(options.shared, key,
            error => options.log?.(`the shared corpus index is off for this process (${String(error)}); each call reads the logs itself`))
      const files = jsonlFiles(layout)
      const index = new CorpusIndex(files, undefined, shared)
      const surfaces = new SurfaceCache(shared, files, index.counters)
      this.current = { key, index, surfaces, files, shared, writes: new RowWrites(() => index.flush()) }
      options.onIndex?.(index)
    }
    const { index, surfaces, writes } = this.current
    return { persistence: persistence as { inspect?: unknown }, index, surfaces, writes }
  }

  /** The index in use, left: every row it queued written now, its worker thread ended (`index/stat-worker.ts`). */
  leave(): void {
    const left = this.current
    this.current = undefined
    left?.writes.take()
    left?.index.flush()
    left?.shared?.finish()
    left?.files.close()
  }
}
