/**
 * When the corpus index writes the rows a listing read (docs/performance.md "What a new process reads"): with the
 * titles the same tool call folds next, so a log new to the home costs one row write, not a header and then its
 * title (on a home no process has indexed, a query folds every title right after its listing).
 *
 * `sessions_list` calls `readTitles` straight on from its listing, without a turn of the event loop between, and
 * `readTitles` flushes at its end: {@link RowWrites.take} hands the write to it. A call that reads no title leaves
 * the write to the next turn of the event loop ({@link RowWrites.soon}).
 *
 * @module dsh-cross-session/adapters/row-writes
 */

/** The one pending write of an index's queued rows. */
export class RowWrites {
  private pending: ReturnType<typeof setTimeout> | undefined
  private readonly flush: () => void

  /** @param flush - writes every queued row (`CorpusIndex.flush`, one transaction; it never throws). */
  constructor(flush: () => void) {
    this.flush = flush
  }

  /** Write the queued rows once the event loop turns, unless {@link take} comes first. */
  soon(): void {
    if (this.pending !== undefined) return
    this.pending = setTimeout(() => {
      this.pending = undefined
      this.flush()
    }, 0)
    this.pending.unref?.()
  }

  /** The caller writes them itself (a title read that flushes at its end): the pending write is dropped. */
  take(): void {
    clearTimeout(this.pending)
    this.pending = undefined
  }
}
