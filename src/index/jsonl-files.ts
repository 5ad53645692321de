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
 * Work is synchronous in slices with an event-loop yield between them
 * (measured at 10,000 logs: a sync scan ~50 ms, the async one ~150 ms).
 *
 * @module dsh-cross-session/index/jsonl-files
 */

import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync, type BigIntStats } from 'node:fs'
import { basename, dirname, isAbsolute, join } from 'node:path'
import type { SessionHeaderView } from '../ports.js'
import { encodeSegment, lastTitleIn, parseHeaderLine, type ScannedLog } from './plan.js'
import { createFrameDecoder, decodeFrames, scanFrames, zstdDecompress } from './zstd.js'

/** Where a recognised JSONL backend keeps its logs. */
export interface JsonlLayout {
  readonly root: string
  /** `session.jsonl.zstd` or `session.jsonl`. */
  readonly fileName: string
  readonly compressed: boolean
}

/** A title fold of one log (or of its appended frames). */
export interface TitleRead {
  readonly found: boolean
  readonly value: string | undefined
  /** Absolute end of the last complete frame (or line) read, bytes. */
  readonly completeBytes: number
}

/** The file operations the index uses (counted in tests). */
export interface LogFiles {
  /** One revision check of every log under the root. */
  scan(signal: AbortSignal): Promise<ScannedLog[]>
  /** The log of one session id, found without a listing, or `undefined`. */
  probe(sessionId: string): ScannedLog | undefined
  /** The current state of one known log file, or `undefined` when it is gone. */
  restat(log: ScannedLog): ScannedLog | undefined
  /** Its header line, or `undefined` when the file is not a session log. */
  readHeader(log: ScannedLog): SessionHeaderView | undefined
  /** {@link readHeader} of many logs, in order, decoding their header frames in one batch. */
  readHeaders(logs: readonly ScannedLog[]): Array<SessionHeaderView | undefined>
  /** Fold the title from byte `from` (a frame boundary) to the end. */
  readTitle(log: ScannedLog, from: number): TitleRead
}

/**
 * The layout of `ctx.sessionPersistence` when it is the rc.8 JSONL backend
 * (its `locate()` answers `kind: 'jsonl'` with the documented path shape),
 * else `undefined` (SQLite and unknown backends: use `sessionQuery`).
 */
export function jsonlLayout(persistence: unknown): JsonlLayout | undefined {
  const locate = (persistence as { locate?: unknown } | null | undefined)?.locate
  if (typeof locate !== 'function') return undefined
  let located: unknown
  try {
    located = locate.call(persistence, { version: 0, id: 'probe', createdAt: 0 })
  } catch {
    return undefined
  }
  const { kind, path } = (located ?? {}) as { kind?: unknown, path?: unknown }
  if (kind !== 'jsonl' || typeof path !== 'string' || !isAbsolute(path)) return undefined
  const fileName = basename(path)
  if (fileName !== 'session.jsonl.zstd' && fileName !== 'session.jsonl') return undefined
  if (basename(dirname(path)) !== 'probe' || basename(dirname(dirname(path))) !== '_no-cwd') return undefined
  const compressed = fileName.endsWith('.zstd')
  if (compressed && zstdDecompress === undefined) return undefined
  return { root: dirname(dirname(dirname(path))), fileName, compressed }
}

/** Stats per slice before yielding to the event loop. */
const SLICE = 500

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** A zstd decoding error (`ZSTD_error_*`) or a frame-structure error of ./zstd.ts. */
function isCorrupt(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown, message?: unknown }
  return (typeof code === 'string' && code.startsWith('ZSTD_error')) || (typeof message === 'string' && message.startsWith('corrupt Zstandard session log'))
}

function directories(path: string): string[] {
  try {
    return readdirSync(path, { withFileTypes: true }).filter(entry => entry.isDirectory()).map(entry => entry.name)
  } catch (error: unknown) {
    if (isMissing(error)) return []
    throw error
  }
}

function scanned(path: string, dirName: string, stats: BigIntStats): ScannedLog {
  return {
    path,
    dirName,
    identity: `${stats.dev}:${stats.ino}`,
    revision: `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`,
    size: Number(stats.size),
  }
}

function statLog(path: string, dirName: string): ScannedLog | undefined {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false })
  return stats?.isFile() === true ? scanned(path, dirName, stats) : undefined
}

/** Reused for header probes: the decoded header is copied out of it at once. */
const probeBuffer = Buffer.allocUnsafe(4096)

/**
 * Read `length` bytes at `position` (fewer at end of file); `probe` reads into
 * the shared probe buffer (callers consume it synchronously).
 */
function readAt(path: string, position: number, length: number | undefined, probe = false): Buffer {
  const fd = openSync(path, 'r')
  try {
    const size = length ?? Math.max(0, Number(fstatSync(fd).size) - position)
    const buffer = probe && size <= probeBuffer.length ? probeBuffer : Buffer.allocUnsafe(size)
    let filled = 0
    while (filled < size) {
      const read = readSync(fd, buffer, filled, size - filled, position + filled)
      if (read === 0) break
      filled += read
    }
    return buffer.subarray(0, filled)
  } finally {
    closeSync(fd)
  }
}

const HEADER_PROBE = 4096
const HEADER_MAX = 1 << 20

/** The real file operations over one layout. */
export function jsonlFiles(layout: JsonlLayout): LogFiles {
  const { root, fileName, compressed } = layout
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
    async scan(signal) {
      const logs: ScannedLog[] = []
      let sinceYield = 0
      for (const project of directories(root)) {
        for (const dirName of directories(join(root, project))) {
          const log = statLog(join(root, project, dirName, fileName), dirName)
          if (log !== undefined) logs.push(log)
          if (++sinceYield >= SLICE) {
            sinceYield = 0
            await new Promise(resolve => setImmediate(resolve))
            signal.throwIfAborted()
          }
        }
      }
      return logs
    },

    probe(sessionId) {
      const dirName = encodeSegment(sessionId)
      for (const project of directories(root)) {
        const log = statLog(join(root, project, dirName, fileName), dirName)
        if (log !== undefined) return log
      }
      return undefined
    },

    restat(log) {
      return statLog(log.path, log.dirName)
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
      // at the first that holds one (one zstd context for the log).
      const frames = scanFrames(buffer)
      const completeBytes = from + (frames.at(-1)?.end ?? 0)
      const decoder = createFrameDecoder()
      try {
        for (let index = frames.length - 1; index >= 0; index--) {
          const frame = frames[index]!
          const read = lastTitleIn(decoder.decode(buffer.subarray(frame.start, frame.end)))
          if (read.found) return { found: true, value: read.value, completeBytes }
        }
      } finally {
        decoder.close()
      }
      return { found: false, value: undefined, completeBytes }
    },
  }
}
