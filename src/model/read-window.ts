/**
 * Which messages one `sessions_read` call shows: the window of the filtered
 * surface picked by `max_messages`, `after_seq` and `before_seq`, and the
 * counts and cursors of what remains on either side. Pure.
 *
 * Rules (docs/tools.md#sessions_read, "Cursors"):
 * - `after_seq N` keeps messages with seq > N, `before_seq M` those with
 *   seq < M; both together keep N < seq < M.
 * - With `after_seq` the window is the OLDEST `max_messages` of the range
 *   (reading forward from a cursor); otherwise the NEWEST (paging back).
 * - `newer` / `older` count readable messages after / before the window
 *   (over the whole filtered surface, not only the range); the next cursors
 *   are the window's newest seq (`after_seq`) and oldest seq (`before_seq`).
 * - An empty range (past either end, inverted) is not an error: the window
 *   is empty and the cursors stay where they were asked.
 * - Ranges, windows and counts go by seq, not by surface position: a
 *   compaction's checkpoint sits first on the surface but carries the later
 *   seq it was recorded at (rc.8 `@deepseek-ai/dsh-compaction-basic`
 *   lib/index.js `commitCompactionBody`), so position order is not seq
 *   order. The shown window keeps the surface order.
 *
 * @module dsh-cross-session/model/read-window
 */

/** The cursor arguments of one read (docs/tools.md#sessions_read). */
export interface ReadCursor {
  readonly afterSeq?: number
  readonly beforeSeq?: number
}

/** One side of the window: how many readable messages remain there and the cursor that reads them. */
export interface WindowSide {
  readonly count: number
  /** `after_seq` value (newer side) or `before_seq` value (older side) that reads them. */
  readonly cursor: number
}

/** Result of {@link pickWindow}. */
export interface ReadWindow<T> {
  /** Shown messages, newest first (the order of docs/tools.md#sessions_read). */
  readonly shown: T[]
  readonly newer: WindowSide
  readonly older: WindowSide
}

/**
 * Pick the window.
 * @param surface - readable messages in surface order (ascending seq except after a compaction).
 * @param maxMessages - at most this many shown (≥ 1).
 * @param cursor - `after_seq` / `before_seq`, either or both or neither.
 */
export function pickWindow<T extends { readonly seq: number }>(surface: readonly T[], maxMessages: number,
  cursor: ReadCursor): ReadWindow<T> {
  const { afterSeq, beforeSeq } = cursor
  const messages = [...surface].sort((a, b) => a.seq - b.seq)
  const inRange = messages.filter(message => (afterSeq === undefined || message.seq > afterSeq)
    && (beforeSeq === undefined || message.seq < beforeSeq))
  const picked = afterSeq === undefined
    ? inRange.slice(Math.max(0, inRange.length - maxMessages))
    : inRange.slice(0, maxMessages)
  if (picked.length > 0) {
    const oldest = picked[0]!.seq
    const newest = picked[picked.length - 1]!.seq
    const kept = new Set(picked)
    return {
      shown: surface.filter(message => kept.has(message)).reverse(),
      newer: { count: messages.filter(message => message.seq > newest).length, cursor: newest },
      older: { count: messages.filter(message => message.seq < oldest).length, cursor: oldest },
    }
  }
  // Empty range: what lies beyond each asked bound (an inverted range leaves the middle to neither side).
  const newerFrom = afterSeq ?? (beforeSeq === undefined ? Infinity : beforeSeq - 1)
  const olderTo = beforeSeq ?? (afterSeq === undefined ? -Infinity : afterSeq + 1)
  return {
    shown: [],
    newer: {
      count: messages.filter(message => message.seq > newerFrom).length,
      cursor: Number.isFinite(newerFrom) ? Math.max(0, newerFrom) : 0,
    },
    older: { count: messages.filter(message => message.seq < olderTo).length, cursor: Number.isFinite(olderTo) ? Math.max(0, olderTo) : 0 },
  }
}
