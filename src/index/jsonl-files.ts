/**
 * File access to an rc.8 JSONL session root, for the corpus index: one cheap
 * revision check of every log (two `readdir` levels plus one `stat` per log),
 * a targeted probe of one id, a header-line read and a title fold.
 *
 * Layout and formats, read from `@deepseek-ai/dsh-session-persistence-jsonl@0.1.0-rc.8`
 * `lib/index.js`: `<root>/<projectKey(cwd)>/<encodeSegment(id)>/session.jsonl.zstd`
 * (or `session.jsonl` with `compression: 'none'`); the root and file name are
 * taken from the backend's own public `locate()`, never guessed. The harness
 * reads the same bytes the same way (`listArtifacts`, `readFirstZstdLine`,
 * `findLog`); this module only reads.
 *
 * Work is synchronous (measured at 10,000 logs: a sync `stat` pass ~50 ms,
 * the async one ~150 ms), with event-loop yields in the listing and the
 * batch checks.
 *
 * @module dsh-cross-session/index/jsonl-files
 */

import { dirname, join } from 'node:path'
import type { SessionHeaderView } from '../ports.js'
import type { JsonlLayout } from './jsonl-layout.js'
import { encodeSegment, lastTitleIn, parseHeaderLine, type ScannedLog } from './plan.js'
import { isCorrupt, isMissing, isRealDirectory, readAt, statLog } from './sync-fs.js'
import { RootListing, type ListedLog } from './root-listing.js'
import { restatMany } from './stat-batch.js'
import { PARALLEL_MIN_PATHS, StatWorker } from './stat-worker.js'
import { createFrameDecoder, decodeFrames, scanFrames } from '../harness/zstd.js'

export { jsonlLayout, type JsonlLayout } from './jsonl-layout.js'
export { RACY_LISTING_MS, type ListedLog } from './root-listing.js'

/** A title fold of one log (or of its appended frames). */
interface TitleRead {
  readonly found: boolean
  readonly value: string | undefined
  /** Absolute end of the last complete frame (or line) read, bytes. */
  readonly completeBytes: number
}

/** The file operations the index uses (counted in tests). */
export interface LogFiles {
  /** Every session directory's log path under the root (`index/root-listing.ts`: a directory is read again only when its stamp moved). */
  list(signal: AbortSignal): Promise<readonly ListedLog[]>
  /** Directories actually read (`readdir`) by {@link list} and {@link probe} so far (tests and the bench). */
  readonly directoryReads: number
  /** The log of one session id, found without a listing, or `undefined`. */
  probe(sessionId: string): ScannedLog | undefined
  /**
   * The current state of one log file, or `undefined` when it is gone; `log`
   * itself when it is a {@link ScannedLog} whose file is exactly as it was.
   */
  restat(log: ListedLog | ScannedLog): ScannedLog | undefined
  /**
   * {@link restat} of many logs, in order (`index/stat-batch.ts`: shared with a
   * worker thread when there are many); `undefined` for a log the caller
   * must check alone (gone, not a file, or unreadable).
   */
  restatMany(logs: ReadonlyArray<ListedLog | ScannedLog>, signal: AbortSignal): Promise<Array<ScannedLog | undefined>>
  /** End the worker thread, if one was started. */
  close(): void
  /** Its header line, or `undefined` when the file is not a session log. */
  readHeader(log: ScannedLog): SessionHeaderView | undefined
  /** {@link readHeader} of many logs, in order, decoding their header frames in one batch. */
  readHeaders(logs: readonly ScannedLog[]): Array<SessionHeaderView | undefined>
  /** Fold the title from byte `from` (a frame boundary) to the end. */
  readTitle(log: ScannedLog, from: number): TitleRead
}

const HEADER_PROBE = 4096
const HEADER_MAX = 1 << 20

/** The real file operations over one layout. `racyMs` is `RACY_LISTING_MS` (`index/root-listing.ts`) unless a test sets it. */
export function jsonlFiles(layout: JsonlLayout, options: { racyMs?: number } = {}): LogFiles {
  const { root, fileName, compressed } = layout
  const listing = new RootListing(root, fileName, options.racyMs)
  const worker = new StatWorker()
  let titleDecoder: ReturnType<typeof createFrameDecoder> | undefined
  // A listed path new to the index (no `stamp` key) counts only in a session directory that is a directory
  // itself, as rc.8 lists them; a known log is only `stat`ed.
  const restat = (log: ListedLog | ScannedLog): ScannedLog | undefined => 'stamp' in log
    ? statLog(log.path, log.dirName, log)
    : isRealDirectory(dirname(log.path)) ? statLog(log.path, log.dirName) : undefined
  const readHeaderOf = (log: ScannedLog): SessionHeaderView | undefined => {
    let length = HEADER_PROBE
    for (;;) {
      const buffer = readAt(log.path, 0, length, true)
      const complete = buffer.length < length
      if (compressed) {
        const frames = scanFrames(buffer, 1)
        if (frames.length === 1) return parseHeaderLine(decodeFrames(buffer, frames).split('\n', 1)[0] ?? '', log.dirName)
      } else {
        const newline = buffer.indexOf(0x0a)
        if (newline >= 0) return parseHeaderLine(buffer.subarray(0, newline).toString('utf8'), log.dirName)
      }
      if (complete || length >= HEADER_MAX) return undefined
      length *= 4
    }
  }
  return {
    get directoryReads() {
      return listing.directoryReads
    },

    async list(signal) {
      const logs = await listing.logs(signal)
      // A root this large answers a query list in shared batches: the thread starts once the event loop turns (after
      // this call, which then has both cores to itself: a thread's start is tens of ms of a core's time).
      if (logs.length >= PARALLEL_MIN_PATHS) setImmediate(() => worker.prepare()).unref()
      return logs
    },

    probe(sessionId) {
      const dirName = encodeSegment(sessionId)
      for (const project of listing.projects()) {
        const log = statLog(join(root, project, dirName, fileName), dirName)
        if (log !== undefined) return log
      }
      return undefined
    },

    restat,

    restatMany: (logs, signal) => restatMany(logs, worker, restat, signal),

    close() {
      worker.close()
      titleDecoder?.close()
      titleDecoder = undefined
    },

    readHeader(log) {
      try {
        return readHeaderOf(log)
      } catch (error: unknown) {
        // Gone since the scan, or a corrupt header frame: not a log this index can
        // show (rc.8's own list() rejects the whole listing on the latter).
        if (isMissing(error) || isCorrupt(error)) return undefined
        throw error
      }
    },

    readHeaders(logs) {
      if (!compressed) return logs.map(log => this.readHeader(log))
      // One zstd context for the batch (each header frame is exactly one line,
      // rc.8 `assertZstdHeaderFrame`).
      let decoder = createFrameDecoder()
      try {
        return logs.map(log => {
          try {
            const buffer = readAt(log.path, 0, HEADER_PROBE, true)
            const [frame] = scanFrames(buffer, 1)
            if (frame !== undefined) {
              const line = decoder.decode(buffer.subarray(frame.start, frame.end)).toString('utf8').split('\n', 1)[0] ?? ''
              return parseHeaderLine(line, log.dirName)
            }
          } catch {
            // A torn, long or corrupt header frame: read this log alone (that
            // decides); a failed context is not reused.
            decoder.close()
            decoder = createFrameDecoder()
          }
          return this.readHeader(log)
        })
      } finally {
        decoder.close()
      }
    },

    readTitle(log, from) {
      const buffer = readAt(log.path, from, undefined)
      if (!compressed) {
        const end = buffer.lastIndexOf(0x0a) + 1
        const read = lastTitleIn(buffer.subarray(0, end))
        return { found: read.found, value: read.found ? read.value : undefined, completeBytes: from + end }
      }
      // The latest title is the last one: decode frames from the end and stop
      // at the first that holds one. One zstd context for every fold of this
      // root (creating one per log was most of a fold of a short log); a
      // context that failed is closed, never reused.
      const frames = scanFrames(buffer)
      const completeBytes = from + (frames.at(-1)?.end ?? 0)
      const decoder = titleDecoder ??= createFrameDecoder()
      try {
        for (let index = frames.length - 1; index >= 0; index--) {
          const frame = frames[index]!
          const read = lastTitleIn(decoder.decode(buffer.subarray(frame.start, frame.end)))
          if (read.found) return { found: true, value: read.value, completeBytes }
        }
      } catch (error: unknown) {
        decoder.close()
        titleDecoder = undefined
        throw error
      }
      return { found: false, value: undefined, completeBytes }
    },
  }
}
