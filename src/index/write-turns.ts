/**
 * The shared rows' writes, one transaction per turn of the event loop
 * (docs/performance.md "A query on a home still being indexed"): what a call
 * queued is cut into chunks of at most {@link WRITE_BATCH} changes; the first
 * is written at once, each next one a turn later. A first query on an
 * unindexed home of 100,000 sessions queues 100,000 rows, about 3 s of
 * writes: written back to back they held the event loop (a web host's page,
 * every running turn) for all of it, and the answer waited for the last one.
 *
 * Chunks are written in the order they were queued, so a log removed after
 * its header was queued stays removed. A row still waiting is only missing
 * from the store for a while: rows are a cache (`index/shared-rows.ts`), and a
 * process that finds none reads the log. The process's end writes every chunk
 * left ({@link WriteTurns.finish}).
 *
 * @module dsh-cross-session/index/write-turns
 */

import type { CorpusChanges } from './shared-rows.js'

/** One chunk being filled. */
interface Chunk {
  headers: Array<CorpusChanges['headers'][number]>
  removed: string[]
  titles: Array<CorpusChanges['titles'][number]>
}

/**
 * Changes per chunk, and rows per transaction of the store (`home/store-corpus.ts` cuts any write by it): about
 * 25 ms of write lock each (a 100,000-row write held it 2.65 s in one).
 */
export const WRITE_BATCH = 1000

/**
 * Cut `changes` into chunks of at most `size` changes, keeping their order of
 * application (removals, then headers, then titles, as one write applies them).
 * @returns the chunks in order; none for no change.
 */
export function chunksOf(changes: CorpusChanges, size: number = WRITE_BATCH): CorpusChanges[] {
  const chunks: CorpusChanges[] = []
  const empty = (): Chunk => ({ headers: [], removed: [], titles: [] })
  let current = empty()
  let count = 0
  const take = (): void => {
    if (++count < size) return
    chunks.push(current)
    current = empty()
    count = 0
  }
  for (const path of changes.removed) {
    current.removed.push(path)
    take()
  }
  for (const row of changes.headers) {
    current.headers.push(row)
    take()
  }
  for (const title of changes.titles) {
    current.titles.push(title)
    take()
  }
  if (count > 0) chunks.push(current)
  return chunks
}

/** One chunk waiting, and what to call once it is written in a later turn. */
interface Pending {
  readonly changes: CorpusChanges
  readonly written: () => void
}

/** Chunks waiting for their turn, and the one turn scheduled. */
export class WriteTurns {
  private readonly write: (changes: CorpusChanges) => boolean
  private readonly pending: Pending[] = []
  private turn: ReturnType<typeof setImmediate> | undefined

  /**
   * @param write - one chunk in one transaction; `false` when the store is not open or failed it (the chunk is
   *   dropped, as it is when `write` throws).
   */
  constructor(write: (changes: CorpusChanges) => boolean) {
    this.write = write
  }

  /** Chunks not written yet. */
  get waiting(): number {
    return this.pending.length
  }

  /**
   * Queue `changes`: the first chunk is written now unless earlier chunks still wait (then after them), the rest
   * one per turn of the event loop.
   * @param later - called after each chunk written in a later turn.
   * @returns chunks written now (0 or 1).
   */
  add(changes: CorpusChanges, later: () => void = () => undefined): number {
    const chunks = chunksOf(changes)
    if (chunks.length === 0) return 0
    const waited = this.pending.length > 0
    for (const chunk of chunks) this.pending.push({ changes: chunk, written: later })
    if (waited) return 0
    const now = this.apply(this.pending.shift()!, false) ? 1 : 0
    this.schedule()
    return now
  }

  /** Write every waiting chunk now (the process's end, or the index left). @returns chunks written. */
  finish(): number {
    if (this.turn !== undefined) clearImmediate(this.turn)
    this.turn = undefined
    let written = 0
    for (const chunk of this.pending.splice(0)) if (this.apply(chunk, true)) written++
    return written
  }

  /**
   * Write one chunk, then (`counted`) call its `written`. A throw from either counts as not written: thrown in a
   * turn it would escape the event loop (a host without a handler ends) and no turn would follow for the chunks
   * still waiting. (`write` reports a store's failures itself: `SharedIndex`.)
   */
  private apply(chunk: Pending, counted: boolean): boolean {
    try {
      if (!this.write(chunk.changes)) return false
      if (counted) chunk.written()
      return true
    } catch {
      return false
    }
  }

  private schedule(): void {
    if (this.turn !== undefined || this.pending.length === 0) return
    this.turn = setImmediate(() => {
      this.turn = undefined
      const next = this.pending.shift()
      if (next !== undefined) this.apply(next, true)
      this.schedule()
    })
  }
}
