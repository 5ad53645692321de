/**
 * Pure decisions of the corpus index (docs/performance.md, "Corpus index:
 * what each call re-checks"): what one revision check of
 * the persistence root must re-read, when a cached title is still exact, and
 * how a header line or a title is read out of JSONL text.
 *
 * Sources (rc.8, read from the published `lib/index.js`):
 * - `@deepseek-ai/dsh-session-persistence-jsonl@0.1.0-rc.8`: `fileRevision`
 *   (`dev:ino:size:mtimeNs:ctimeNs` of the log file: changes on every append
 *   or repair), `encodeSegment` (session directory name), the header line
 *   (`{"type":"session",…}`, first line of the log), logs are append-only
 *   except a repair that truncates a torn tail and appends closers, and a new
 *   log is published by `link()` (a new inode).
 * - `@deepseek-ai/dsh-session-title@0.1.0-rc.8` `foldSessionTitle`: the title
 *   is `data.title` of the LAST `session/title` event of the log.
 *
 * @module dsh-cross-session/index/plan
 */

import type { SessionHeaderView } from '../ports.js'
import { readHeader } from '../model/sessions.js'

/**
 * The `stat` fields a log's identity and revision are made of, kept on the
 * log so a re-check compares six BigInts instead of building two strings
 * (a query list re-checks every candidate).
 */
export interface FileStamp {
  readonly dev: bigint
  readonly ino: bigint
  readonly birthtimeNs: bigint
  readonly size: bigint
  readonly mtimeNs: bigint
  readonly ctimeNs: bigint
}

/** One log file as one revision check saw it. */
export interface ScannedLog {
  /** The `stat` fields behind `identity` and `revision` (absent on a log taken from a shared row, not yet checked). */
  readonly stamp?: FileStamp
  /** Absolute path of the log file. */
  readonly path: string
  /** Its session directory name (`encodeSegment(session id)`). */
  readonly dirName: string
  /** `dev:ino:birthtimeNs`: the file's identity (a reused inode number is a new birth); a header is immutable while it holds. */
  readonly identity: string
  /** `dev:ino:size:mtimeNs:ctimeNs`, the harness's own `fileRevision`. */
  readonly revision: string
  /** File size, bytes. */
  readonly size: number
}

/** What the index knows of one log. */
interface KnownLog {
  readonly identity: string
  readonly revision: string
}

/** The title cached for one log and the revision it was folded at. */
export interface CachedTitle {
  /** Revision of the log the title was folded from. */
  readonly revision: string
  /** File identity at that fold. */
  readonly identity: string
  /** Latest `session/title` title, `undefined` when the log has none. */
  readonly value: string | undefined
  /** End of the last complete frame folded, bytes (the next fold may resume there). */
  readonly completeBytes: number
}

/** Outcome of {@link planScan}. */
interface ScanPlan<T, K> {
  /** Logs whose header is known for this identity (or, listed without a `stat`, known by path): nothing is read. */
  readonly unchanged: T[]
  /** What the index knows of each unchanged log, in the same order (one lookup per log, not two). */
  readonly known: K[]
  /** New logs, or logs whose file was replaced: their header line is read. */
  readonly readHeader: T[]
  /** Known paths no longer present: dropped (deleted by any process). */
  readonly removed: string[]
}

/**
 * Decide what one revision check re-reads: only the header line of a log the
 * index has not seen under this file identity. A grown log keeps its header
 * (headers are immutable; appends never rewrite line 1). A log listed
 * without its identity (a directory listing, no `stat`) is unchanged when
 * its path is known.
 */
export function planScan<T extends { readonly path: string, readonly identity?: string },
  K = KnownLog>(known: KnownLogs<K>, scanned: readonly T[],
  identityOf: (known: K) => string = value => (value as KnownLog).identity): ScanPlan<T, K> {
  const unchanged: T[] = []
  const knownOf: K[] = []
  const readHeaderOf: T[] = []
  let stillKnown = 0
  for (const log of scanned) {
    const previous = known.get(log.path)
    if (previous !== undefined) stillKnown++
    if (previous !== undefined && (log.identity === undefined || identityOf(previous) === log.identity)) {
      unchanged.push(log)
      knownOf.push(previous)
    } else {
      readHeaderOf.push(log)
    }
  }
  // Every known path was seen again: nothing was deleted (the common case; no set built).
  if (stillKnown === known.size) return { unchanged, known: knownOf, readHeader: readHeaderOf, removed: [] }
  const seen = new Set(scanned.map(log => log.path))
  const removed = [...known.keys()].filter(path => !seen.has(path))
  return { unchanged, known: knownOf, readHeader: readHeaderOf, removed }
}

/** The index's known logs by path, as {@link planScan} reads them (a `Map` or an LRU cache). */
interface KnownLogs<K> {
  get(path: string): K | undefined
  readonly size: number
  keys(): Iterable<string>
}

/**
 * How to get the title of a log at `revision`: the cached one when it was
 * folded at exactly this revision; else fold only the frames appended since
 * (same file, not shorter than what was folded); else fold the whole log.
 */
export function planTitle(cached: CachedTitle | undefined, log: { identity: string, revision: string, size: number }): 'cached'
  | { from: number } | 'full' {
  if (cached === undefined) return 'full'
  if (cached.revision === log.revision) return 'cached'
  if (cached.identity === log.identity && log.size >= cached.completeBytes) return { from: cached.completeBytes }
  return 'full'
}

const SAFE_SEGMENT = /^[A-Za-z0-9._-]+$/

/**
 * The harness's `encodeSegment` (jsonl `lib/index.js`, rc.8): a session id as
 * one path segment.
 */
export function encodeSegment(raw: string): string {
  // Fast path (every harness-made id): nothing to escape.
  if (SAFE_SEGMENT.test(raw) && raw !== '.' && raw !== '..') return raw
  if (raw === '.') return '~002E'
  if (raw === '..') return '~002E~002E'
  let out = ''
  for (let index = 0; index < raw.length; index++) {
    const code = raw.charCodeAt(index)
    const char = String.fromCharCode(code)
    out += char !== '~' && /^[A-Za-z0-9._-]$/.test(char) ? char : `~${code.toString(16).toUpperCase().padStart(4, '0')}`
  }
  return out
}

/**
 * Read a log's first line as a session header, or `undefined` when it is not
 * one or names another session than its directory (the harness skips such
 * files in `list()` too).
 */
export function parseHeaderLine(line: string, dirName: string): SessionHeaderView | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(line)
  } catch {
    return undefined
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { type?: unknown }).type !== 'session') return undefined
  const header = readHeader(parsed)
  return header !== undefined && encodeSegment(header.id) === dirName ? header : undefined
}

/** The bytes every `session/title` event line holds (a fold searches for them before parsing a line). */
export const TITLE_TYPE = Buffer.from('"session/title"', 'utf8')

/**
 * The title of the last `session/title` event in JSONL bytes (`foldSessionTitle`):
 * `{ found: false }` when they hold none. Searches the bytes from the end and
 * parses only lines that contain the type string (a decoded log can be
 * 100+ MB: it is never turned into one string).
 */
export function lastTitleIn(bytes: Uint8Array): { found: false } | { found: true, value: string | undefined } {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let at = view.lastIndexOf(TITLE_TYPE)
  while (at >= 0) {
    const start = at === 0 ? 0 : view.lastIndexOf(0x0a, at) + 1
    const newline = view.indexOf(0x0a, at)
    try {
      const event = JSON.parse(view.toString('utf8', start,
        newline < 0 ? view.length : newline)) as { type?: unknown, data?: { title?: unknown } }
      if (event.type === 'session/title') {
        const title = event.data?.title
        return { found: true, value: typeof title === 'string' ? title : undefined }
      }
    } catch {
      // A foreign line: not an event the harness would fold.
    }
    at = start >= 2 ? view.lastIndexOf(TITLE_TYPE, start - 2) : -1
  }
  return { found: false }
}
