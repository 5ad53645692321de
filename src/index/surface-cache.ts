/**
 * A cold `sessions_read` of a large log through the surfaces kept in the
 * home store (table `corpus_surfaces`, docs/performance.md "What a new
 * process reads"): what `sessionPersistence.inspect(id)` and the surface fold
 * (`harness/surface-fold.ts`) gave one read is kept at the log revision it
 * was read at, so a later read, in any process, of the same file at exactly
 * that revision decodes it instead of parsing the whole log again.
 *
 * Exact by construction:
 * - a surface is kept only when the log had the same revision (the harness's
 *   `fileRevision`, `dev:ino:size:mtimeNs:ctimeNs`) right before and right
 *   after the inspect, and the session did not become live in this process
 *   meanwhile: every write to the file moves its ctime, so the inspect read
 *   exactly those bytes;
 * - it is used only for a file of the same identity at exactly that
 *   revision; a grown, repaired or replaced log is inspected again (and its
 *   new surface kept), so a replacement reaching back to any seq is folded
 *   as rc.8 folds it;
 * - a row that does not decode (zstd checksum, JSON, shape) is a miss.
 *
 * Only logs of at least {@link SURFACE_MIN_EVENTS} events are kept (a
 * smaller one parses in a few ms), the latest {@link SURFACE_ROWS} per root;
 * each process also holds the last one it read, under the same rule.
 *
 * @module dsh-cross-session/index/surface-cache
 */

import * as zlib from 'node:zlib'
import { currentSurfaceEvents } from '../harness/surface-fold.js'
import type { SessionHeaderView, SurfaceView } from '../ports.js'
import type { IndexCounters, IndexEntry } from './index-entry.js'
import type { LogFiles } from './jsonl-files.js'
import type { SharedIndex } from './shared-index.js'

/** Logs with fewer events are not kept (their inspect costs a few ms). */
export const SURFACE_MIN_EVENTS = 2_000
/** Surfaces kept per root (the latest written). */
export const SURFACE_ROWS = 16
/** A compressed surface larger than this is not kept, bytes. */
const SURFACE_MAX_BYTES = 32 * 1024 * 1024

type Compress = (input: Uint8Array, options: { params: Record<number, number> }) => Buffer
type Decompress = (input: Uint8Array) => Buffer
const compress = (zlib as { zstdCompressSync?: Compress }).zstdCompressSync
const decompress = (zlib as { zstdDecompressSync?: Decompress }).zstdDecompressSync
const CHECKSUM_FLAG = (zlib.constants as Record<string, number>).ZSTD_c_checksumFlag

/** What `sessionPersistence.inspect(id)` answered (rc.8: `{ meta, events }`). */
export interface Inspected {
  readonly meta?: unknown
  readonly events?: unknown
}

/** A surface as JSON, zstd-compressed with a content checksum; `undefined` when it cannot be (no zstd, too large). */
export function encodeSurface(view: SurfaceView): Uint8Array | undefined {
  if (compress === undefined || CHECKSUM_FLAG === undefined) return undefined
  const bytes = compress(Buffer.from(JSON.stringify(view), 'utf8'), { params: { [CHECKSUM_FLAG]: 1 } })
  return bytes.length > SURFACE_MAX_BYTES ? undefined : bytes
}

/** The surface a row holds, or `undefined` when it does not decode to one of `sessionId`. */
export function decodeSurface(bytes: Uint8Array, sessionId: string): SurfaceView | undefined {
  if (decompress === undefined) return undefined
  try {
    const view = JSON.parse(decompress(bytes).toString('utf8')) as Partial<SurfaceView> | null
    const session = view?.session as SessionHeaderView | undefined
    const through = view?.capturedThroughSeq
    if (view === null || !Array.isArray(view.events) || session?.id !== sessionId || (through !== null && typeof through !== 'number'))
      return undefined
    return { session, capturedThroughSeq: through, events: view.events }
  } catch {
    return undefined
  }
}

/** The surface of an inspected log: rc.8's `currentSurfaceEvents` over its events, through its last seq. */
export function surfaceOf(inspected: Inspected): SurfaceView {
  const events = Array.isArray(inspected.events) ? inspected.events as unknown[] : []
  const last = events.at(-1) as { seq?: unknown } | undefined
  return {
    session: inspected.meta as SessionHeaderView,
    capturedThroughSeq: typeof last?.seq === 'number' ? last.seq : null,
    events: currentSurfaceEvents(events),
  }
}

/** Cold surface reads of one root through its kept surfaces. */
export class SurfaceCache {
  private readonly shared: SharedIndex | undefined
  private readonly files: LogFiles
  private readonly counters: IndexCounters
  /** The last large surface this process read, at its revision (a repeated read decodes nothing). */
  private last: { readonly path: string, readonly identity: string, readonly revision: string, readonly view: SurfaceView } | undefined

  constructor(shared: SharedIndex | undefined, files: LogFiles, counters: IndexCounters) {
    this.shared = shared
    this.files = files
    this.counters = counters
  }

  /**
   * The surface of `entry`'s log at the revision its check just saw: the kept
   * one when it was folded at exactly that revision, else `inspect()` folded
   * (and kept, when large and unchanged across the inspect).
   * @param inspect - `sessionPersistence.inspect(id)`; `undefined` when the session is not found.
   * @param liveHere - whether the session is live in this process now (its view may hold unpersisted events).
   */
  async read(entry: IndexEntry, inspect: () => Promise<Inspected | undefined>, liveHere: () => boolean): Promise<SurfaceView | undefined> {
    const { log, header } = entry
    const last = this.last
    if (last !== undefined && last.path === log.path && last.identity === log.identity && last.revision === log.revision
      && last.view.session.id === header.id) {
      this.counters.surfaceHits++
      return last.view
    }
    const kept = this.shared?.surface(log.path)
    if (kept !== undefined && kept.identity === log.identity && kept.revision === log.revision && kept.sessionId === header.id) {
      const view = decodeSurface(kept.surface, header.id)
      if (view !== undefined) {
        this.counters.surfaceHits++
        this.last = { path: log.path, identity: log.identity, revision: log.revision, view }
        return view
      }
    }
    const inspected = await inspect()
    if (inspected === undefined) return undefined
    this.counters.inspects++
    const view = surfaceOf(inspected)
    const events = Array.isArray(inspected.events) ? inspected.events.length : 0
    if (this.shared === undefined || events < SURFACE_MIN_EVENTS || liveHere()) return view
    if (this.files.restat(log)?.revision !== log.revision) return view
    this.last = { path: log.path, identity: log.identity, revision: log.revision, view }
    const bytes = encodeSurface(view)
    if (bytes !== undefined
      && this.shared.keepSurface({ path: log.path, sessionId: header.id, identity: log.identity, revision: log.revision, surface: bytes },
        SURFACE_ROWS)) {
      this.counters.surfacesKept++
    }
    return view
  }
}
