/**
 * Synchronous file helpers of the corpus index: directory listing, a log's
 * `stat` as a {@link ScannedLog} (the harness's `fileRevision` fields), a
 * positioned read, and the error classes the index tolerates. Synchronous on
 * purpose (measured at 10,000 logs: a sync `stat` pass ~50 ms, async ~150 ms);
 * callers yield to the event loop between slices.
 *
 * @module dsh-cross-session/index/sync-fs
 */

import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import type { FileStamp, ScannedLog } from './plan.js'

/** Whether a file-system error means "not there (any more)". */
export function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** A zstd decoding error (`ZSTD_error_*`) or a frame-structure error of ./zstd.ts. */
export function isCorrupt(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown, message?: unknown }
  return (typeof code === 'string' && code.startsWith('ZSTD_error'))
    || (typeof message === 'string' && message.startsWith('corrupt Zstandard session log'))
}

/** Names of the sub-directories of `path` (none when it does not exist). */
export function directories(path: string): string[] {
  try {
    return readdirSync(path, { withFileTypes: true }).filter(entry => entry.isDirectory()).map(entry => entry.name)
  } catch (error: unknown) {
    if (isMissing(error)) return []
    throw error
  }
}

/**
 * Names of the entries of `path` (none when it does not exist), without
 * their types: a project directory holds 100,000 session directories at the
 * bench's largest home. Whether an entry is a session directory at all is
 * asked once, when it is new to the index ({@link isRealDirectory}).
 */
export function entryNames(path: string): string[] {
  try {
    return readdirSync(path)
  } catch (error: unknown) {
    if (isMissing(error)) return []
    throw error
  }
}

/**
 * Whether `path` is a directory itself, not a symlink to one: rc.8's
 * `listSessionDirs` keeps only `readdir` entries whose `Dirent.isDirectory()`
 * (`@deepseek-ai/dsh-session-persistence-jsonl@0.1.0-rc.8` `lib/index.js`).
 */
export function isRealDirectory(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true
}

/**
 * The log at `path` with these `stat` fields: `previous` itself when it has
 * exactly the same ones (same identity and revision, nothing allocated),
 * else a new {@link ScannedLog} (its revision is the harness's `fileRevision`).
 */
function logOf(path: string, dirName: string, stats: FileStamp, previous: { readonly stamp?: FileStamp } | undefined): ScannedLog {
  const { dev, ino, birthtimeNs, size, mtimeNs, ctimeNs } = stats
  const stamp = previous?.stamp
  if (stamp !== undefined && stamp.size === size && stamp.mtimeNs === mtimeNs && stamp.ctimeNs === ctimeNs
    && stamp.ino === ino && stamp.dev === dev && stamp.birthtimeNs === birthtimeNs) return previous as ScannedLog
  // `dev:ino` once: each BigInt's decimal string costs.
  const file = `${dev}:${ino}`
  return {
    path,
    dirName,
    identity: `${file}:${birthtimeNs}`,
    revision: `${file}:${size}:${mtimeNs}:${ctimeNs}`,
    size: Number(size),
    stamp: { dev, ino, birthtimeNs, size, mtimeNs, ctimeNs },
  }
}

/**
 * The log file at `path` as one revision check sees it, or `undefined` when
 * it is not a file. When `previous` (an earlier check of the same path) has
 * exactly the same `stat` fields, `previous` itself is returned.
 */
export function statLog(path: string, dirName: string, previous?: { readonly stamp?: FileStamp }): ScannedLog | undefined {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false })
  return stats?.isFile() === true ? logOf(path, dirName, stats, previous) : undefined
}

/**
 * A log as a worker's `stat` saw it (`index/stat-worker.ts`: fields
 * `kind, dev, ino, birthtimeNs, size, mtimeNs, ctimeNs` at `at`), exactly as
 * {@link statLog} would give it. Node's own `BigIntStats` come from a
 * `BigInt64Array` too, so the values round-trip exactly.
 */
export function fieldsLog(path: string, dirName: string, fields: BigInt64Array, at: number,
  previous?: { readonly stamp?: FileStamp }): ScannedLog {
  // The common case of a warm query list, checked before any object is made: the log is exactly as it was.
  const kept = previous?.stamp
  if (kept !== undefined && fields[at + 4] === kept.size && fields[at + 5] === kept.mtimeNs && fields[at + 6] === kept.ctimeNs
    && fields[at + 2] === kept.ino && fields[at + 1] === kept.dev && fields[at + 3] === kept.birthtimeNs) return previous as ScannedLog
  const stamp = {
    dev: fields[at + 1]!, ino: fields[at + 2]!, birthtimeNs: fields[at + 3]!,
    size: fields[at + 4]!, mtimeNs: fields[at + 5]!, ctimeNs: fields[at + 6]!,
  }
  return logOf(path, dirName, stamp, previous)
}

/** A directory's `dev:ino:mtimeNs:ctimeNs` and its change time in ms, or `undefined` when it is not a directory. */
export function statDirectory(path: string): { stamp: string, changedMs: number } | undefined {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false })
  if (stats?.isDirectory() !== true) return undefined
  const changedNs = stats.ctimeNs > stats.mtimeNs ? stats.ctimeNs : stats.mtimeNs
  return { stamp: `${stats.dev}:${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}`, changedMs: Number(changedNs / 1_000_000n) }
}

/** Reused for header probes: the decoded header is copied out of it at once. */
const probeBuffer = Buffer.allocUnsafe(4096)

/**
 * Read `length` bytes at `position` (fewer at end of file); `probe` reads into
 * the shared probe buffer (callers consume it synchronously).
 */
export function readAt(path: string, position: number, length: number | undefined, probe = false): Buffer {
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
