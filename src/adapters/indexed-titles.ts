/**
 * Titles through the corpus index (the indexed port's `readTitles`,
 * ./persistence-index.ts): a live session's from its in-memory log, a
 * stored one's after a revision check of its log, folded only when its log
 * changed since its title was last folded.
 *
 * A time budget bounds the folds (docs/performance.md "A query on a home
 * still being indexed"): once it has passed, an id whose title would need a
 * fold is left out of the map, so a query on a home no process has indexed
 * yet answers in bounded time, and each call folds (and keeps, for every
 * process of the home) more of the rest.
 *
 * @module dsh-cross-session/adapters/indexed-titles
 */

import type { CorpusIndex } from '../index/corpus-index.js'
import { titleIsCurrent, type IndexEntry } from '../index/index-entry.js'
import { PARALLEL_MIN_PATHS } from '../index/stat-worker.js'
import { liveTitle } from './live-sessions.js'

/** One call's inputs: the index, this process's live sessions by id, the refresh this call made (if any). */
interface TitleRead {
  readonly index: CorpusIndex
  readonly liveById: ReadonlyMap<string, { events?: unknown }>
  /** The generation of the refresh this tool call made: entries it checked are not checked again. */
  readonly checkedBy: number | undefined
  /** Time for folds, in ms from the call's start; absent: no bound. */
  readonly budgetMs: number | undefined
}

/**
 * Yields to the event loop about every 12 ms of work (a long call must not
 * freeze the host). Counting a unit of work is a plain call: only a due
 * yield makes a promise, because a host that tracks async context (rc.8's
 * `dsh` does) pays for every promise made, and a query list counts one unit
 * per candidate (docs/performance.md "Corpus index").
 */
class Slicer {
  private sliceStart = performance.now()
  private count = 0
  private readonly signal: AbortSignal
  constructor(signal: AbortSignal) {
    this.signal = signal
  }

  /** After each unit of work: whether a yield is due (every 64 units, or `force`, the clock is read). */
  due(force = false): boolean {
    if (++this.count < 64 && !force) return false
    this.count = 0
    return performance.now() - this.sliceStart > 12
  }

  /** Yield to the event loop once. @throws the abort reason. */
  async yield(): Promise<void> {
    await new Promise(resolve => setImmediate(resolve))
    this.signal.throwIfAborted()
    this.sliceStart = performance.now()
  }
}

/**
 * Read the titles of `sessionIds`: live ones from memory, then every title
 * already folded at its log's revision, then the folds, in the order given
 * without a budget, newest session first with one (so a bounded query folds
 * the rows it would show first).
 * @returns id → title (`undefined`: no title, a log gone, or a failed fold; the map's order means nothing);
 *   with a budget, the ids whose fold was not reached before it passed are
 *   absent. At least one fold is made, so repeated calls always progress.
 * @throws the signal's abort reason, between slices.
 */
export async function readIndexedTitles(sessionIds: readonly string[], read: TitleRead,
  signal: AbortSignal): Promise<Map<string, string | undefined>> {
  const { index, liveById, checkedBy, budgetMs } = read
  const deadline = budgetMs === undefined ? Infinity : performance.now() + budgetMs
  const titles = new Map<string, string | undefined>()
  // A query list asks every candidate: their revision checks in one batch (two threads), then each title.
  if (checkedBy !== undefined && sessionIds.length >= PARALLEL_MIN_PATHS) await index.checkMany(sessionIds, checkedBy, signal)
  signal.throwIfAborted()
  const slicer = new Slicer(signal)
  const toFold: IndexEntry[] = []
  for (const sessionId of sessionIds) {
    const live = liveById.get(sessionId)
    try {
      if (live !== undefined) {
        titles.set(sessionId, liveTitle(live.events))
      } else {
        const entry = index.check(sessionId, checkedBy)
        if (entry === undefined) titles.set(sessionId, undefined)
        else if (titleIsCurrent(entry)) titles.set(sessionId, index.title(entry))
        else toFold.push(entry)
      }
    } catch {
      titles.set(sessionId, undefined)
    }
    if (slicer.due()) await slicer.yield()
  }
  if (budgetMs !== undefined) toFold.sort((a, b) => b.header.createdAt - a.header.createdAt)
  let folds = 0
  for (const entry of toFold) {
    if (folds > 0 && performance.now() >= deadline) break
    folds++
    try {
      titles.set(entry.header.id, index.title(entry))
    } catch {
      titles.set(entry.header.id, undefined)
    }
    if (slicer.due(budgetMs !== undefined)) await slicer.yield()
  }
  index.flush()
  return titles
}
