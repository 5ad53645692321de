/**
 * A new process's first list without building the index (docs/performance.md "What a new process reads"): the
 * root's listing now, one scan of the shared rows' keys with whether each passes the list's filters (SQLite applies
 * them: no header, entry or row object is made per row), and the header of each listed log no row holds. It gives
 * the rows a list of `limit` can show and how many logs pass the list's filters: the same rows and count a full
 * refresh would give (the same listing, the same rows trusted for the same paths, the same header reads of the
 * others), at the cost of a scan.
 *
 * It declines (`undefined`: the caller refreshes the whole index) when the store is not open or fails, when one
 * session directory name is listed in two project directories (one session id may have logs at two paths: a
 * refresh keeps the newer, `index/entry-maps.ts` `onePerSession`), and when more than {@link NEW_LOGS_AT_MOST}
 * listed logs have no row (a home not indexed yet: a refresh reads them in batches and writes their rows).
 *
 * @module dsh-cross-session/index/newest
 */

import { headerPasses, type HeaderFilter } from '../model/list-filter.js'
import type { SessionHeaderView } from '../ports.js'
import type { LogFiles } from './jsonl-files.js'
import { encodeSegment, type ScannedLog } from './plan.js'
import type { SharedIndex } from './shared-index.js'

/** Listed logs without a row a first list reads itself at most; past it, the index is refreshed whole. */
export const NEW_LOGS_AT_MOST = 256

/** What {@link newestLogs} finds. */
export interface NewestLogs {
  /** The headers a list of `limit` can show: the `limit + 1` newest rows passing the filter, and every log read that passes it. */
  readonly headers: SessionHeaderView[]
  /** Listed logs passing the filter, one per session id. */
  readonly considered: number
  /** Whether a session id has a listed log with a header. */
  readonly hasLog: (sessionId: string) => boolean
}

/** The logs to read and what their headers become. */
export interface NewestSources {
  readonly files: LogFiles
  readonly shared: SharedIndex
  /** A listed log's header read (the index keeps it and queues its row); `undefined` when it is not a session log. */
  readonly read: (log: ScannedLog) => SessionHeaderView | undefined
  /** A row whose path is not listed now (its row is dropped, as a refresh drops it). */
  readonly gone: (path: string) => void
}

/**
 * The `size` first values offered in the order newest `createdAt` first, then lowest `order` (a log's place in the
 * listing: a list keeps the listing's order among sessions created in the same millisecond, tools/list-rows.ts
 * `orderRows`), in that order.
 */
export class NewestKept<T> {
  private readonly size: number
  private readonly kept: Array<{ createdAt: number, order: number, value: T }> = []

  constructor(size: number) {
    this.size = size
  }

  offer(createdAt: number, order: number, value: T): void {
    const { kept, size } = this
    const before = (other: { createdAt: number, order: number }): boolean =>
      other.createdAt > createdAt || (other.createdAt === createdAt && other.order < order)
    if (size <= 0 || (kept.length === size && before(kept[size - 1]!))) return
    let at = kept.length
    while (at > 0 && !before(kept[at - 1]!)) at--
    kept.splice(at, 0, { createdAt, order, value })
    if (kept.length > size) kept.pop()
  }

  values(): T[] {
    return this.kept.map(each => each.value)
  }
}

/**
 * The rows a first list of `limit` peers can show, from the listing now and the shared rows. The `limit + 1` newest
 * are enough whoever calls: a list shows its caller's own row only when fewer than `limit` peers pass its filters
 * (docs/tools.md#sessions_list, "Order"), and then every row passing them is among these.
 * @returns `undefined` when declined (see the module docs).
 * @throws the abort of `signal`; what the file system throws beyond "not there" (as a refresh would).
 */
export async function newestLogs(sources: NewestSources, filter: HeaderFilter, limit: number,
  signal: AbortSignal): Promise<NewestLogs | undefined> {
  const { files, shared } = sources
  const listed = await files.list(signal)
  signal.throwIfAborted()
  // Listed logs by session directory name. One name in two project directories may be one session id twice.
  const at = new Map<string, number>()
  for (let index = 0; index < listed.length; index++) {
    const size = at.size
    if (at.set(listed[index]!.dirName, index).size === size) return undefined
  }
  const logged = new Uint8Array(listed.length)
  let unrowed = listed.length
  const unlisted: Array<{ path: string, dirName: string }> = []
  const newest = new NewestKept<string>(limit + 1)
  let considered = 0
  const rows = shared.scan(filter, (path, dirName, createdAt, passes) => {
    const index = at.get(dirName)
    // A row of a log not listed now (or listed in another project directory): a refresh forgets it.
    if (index === undefined || listed[index]!.path !== path) return void unlisted.push({ path, dirName })
    logged[index] = 1
    unrowed--
    if (!passes) return
    considered++
    newest.offer(createdAt, index, path)
  }, () => newest.values())
  if (rows === undefined || unrowed > NEW_LOGS_AT_MOST) return undefined
  // Its row goes unless its log is there now: made, and its row written, after the listing (a refresh reads the rows
  // before it lists).
  for (const log of unlisted) if (files.restat(log) === undefined) sources.gone(log.path)
  const headers = rows.map(row => row.header)
  // Listed logs no row holds (new since the rows were written, or not yet written): read as a refresh reads them.
  for (let index = 0; unrowed > 0 && index < listed.length; index++) {
    if (logged[index] === 1) continue
    const scanned = files.restat(listed[index]!)
    const header = scanned === undefined ? undefined : sources.read(scanned)
    if (header === undefined) continue
    logged[index] = 1
    if (!headerPasses(filter, header)) continue
    considered++
    headers.push(header)
  }
  return {
    headers,
    considered,
    // A header names its session directory (`plan.ts` `parseHeaderLine`), so an id's log is found by that name.
    hasLog: sessionId => {
      const index = at.get(encodeSegment(sessionId))
      return index !== undefined && logged[index] === 1
    },
  }
}
