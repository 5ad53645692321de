/**
 * The set of session logs under a JSONL root, as two `readdir` levels
 * (`<root>/<project>/<session directory>`), where a directory is read again
 * only when its stamp moved: `dev:ino:mtimeNs:ctimeNs` changes whenever an
 * entry is added, removed or renamed in it (`ctime` cannot be set back by
 * `utimes`, so a copy that restores `mtime` still moves it). Appending to a
 * log does not touch its directories; the corpus index checks a log's own
 * revision for that (docs/performance.md "What each call re-checks").
 *
 * Listed session directories that gave the index no entry are kept with
 * the revision they had ({@link LoglessDir}): a log linked into such a
 * directory (rc.8 `materializePosix` makes the directory first, then
 * `link()`s the log into it) does not move the project directory's stamp,
 * so a refresh that reuses its listing `stat`s these again.
 *
 * @module dsh-cross-session/index/root-listing
 */

import { join } from 'node:path'
import type { ScannedLog } from './plan.js'
import { directories, entryNames, statDirectory } from './sync-fs.js'

/**
 * A directory whose last change (the later of its `mtime` and `ctime`) is
 * less than this many ms older than the moment it was listed is listed again
 * on the next call: file-system timestamps are coarse (a jiffy on ext4, 2 s
 * on FAT), so a change in the same tick as the listing can leave the
 * directory's stamp as it was.
 */
export const RACY_LISTING_MS = 2000

/** A log path as a directory listing gives it (not yet `stat`ed). */
export interface ListedLog {
  readonly path: string
  readonly dirName: string
}

/** The listings of one root, kept by directory stamp. */
export class RootListing {
  /** Directories actually read (`readdir`) so far (tests and the bench). */
  directoryReads = 0
  private readonly root: string
  private readonly fileName: string
  private readonly racyMs: number
  /** Listings kept by directory path, each with the directory's stamp when it was read. */
  private readonly kept = new Map<string, { stamp: string, value: unknown }>()
  /** Listings read or dropped so far: while it stays put, {@link logs} returns the very array it returned last. */
  private changes = 0
  private last: { changes: number, logs: ListedLog[] } | undefined

  constructor(root: string, fileName: string, racyMs = RACY_LISTING_MS) {
    this.root = root
    this.fileName = fileName
    this.racyMs = racyMs
  }

  /** The project directories of the root (none when it does not exist). */
  projects(): string[] {
    return this.listing(this.root, () => directories(this.root)) ?? []
  }

  /**
   * Every session directory's log path, without a `stat` of any log. When
   * no directory was read or dropped since the last call, it is that call's
   * very array (callers compare it by identity and must not change it).
   */
  async logs(signal: AbortSignal): Promise<readonly ListedLog[]> {
    const before = this.changes
    const logs: ListedLog[] = []
    for (const project of this.projects()) {
      const base = join(this.root, project)
      // Plain concatenation: the same string `join` makes here (an absolute normalised root, plain
      // segments), at a fraction of its cost over 100,000 entries. A kept listing keeps its
      // objects, so their path strings keep their cached hashes for the index's lookups.
      const listed = this.listing(base, () => entryNames(base).map(dirName => ({ path: `${base}/${dirName}/${this.fileName}`, dirName })))
        ?? []
      for (const log of listed) logs.push(log)
      await new Promise(resolve => setImmediate(resolve))
      signal.throwIfAborted()
    }
    if (this.changes === before && this.last?.changes === this.changes) return this.last.logs
    this.last = { changes: this.changes, logs }
    return logs
  }

  /** `read()` of the directory at `path`, or its kept value while its stamp holds; `undefined` when it is not a directory. */
  private listing<T>(path: string, read: () => T): T | undefined {
    const listedAt = Date.now()
    const directory = statDirectory(path)
    if (directory === undefined) {
      if (this.kept.delete(path)) this.changes++
      return undefined
    }
    const previous = this.kept.get(path)
    if (previous?.stamp === directory.stamp) return previous.value as T
    this.directoryReads++
    this.changes++
    const value = read()
    // The stamp was read before the listing: a change after it moves the stamp, unless it fell in the same tick.
    if (directory.changedMs < listedAt - this.racyMs) this.kept.set(path, { stamp: directory.stamp, value })
    else this.kept.delete(path)
    return value
  }
}

/**
 * A listed log path with no entry, and its revision when it was last looked
 * at (`undefined`: not a file): no log yet, a log deleted while its
 * directory stays, a stray file, a file that is not a session log.
 */
export interface LoglessDir {
  readonly log: ListedLog
  readonly revision: string | undefined
}

/** Whether any of `dirs` is not as it was: a log appeared, or the file there changed. */
export function loglessMoved(dirs: readonly LoglessDir[], restat: (log: ListedLog) => ScannedLog | undefined): boolean {
  for (const { log, revision } of dirs) if (restat(log)?.revision !== revision) return true
  return false
}

/** `restat` of each listed log that is new to the index; one that is not a file now is noted in `logless`. */
export function restatListed(logs: readonly ListedLog[], restat: (log: ListedLog) => ScannedLog | undefined,
  logless: LoglessDir[]): ScannedLog[] {
  const fresh: ScannedLog[] = []
  for (const log of logs) {
    const scanned = restat(log)
    if (scanned === undefined) logless.push({ log, revision: undefined })
    else fresh.push(scanned)
  }
  return fresh
}
