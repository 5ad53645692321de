/**
 * The current model surface of a session log, for a cold `sessions_read`
 * that reads one log through `sessionPersistence.inspect(id)` instead of
 * rc.8's `sessionQuery.readSurface(id)` (which first lists every stored
 * session).
 *
 * Port of the fold rc.8 uses, `@deepseek-ai/dsh-session@0.1.0-rc.8`
 * `lib/index.js` `foldSurface` (called by `@deepseek-ai/dsh-session-query`
 * `currentSurfaceEvents`): events of type `user/message`,
 * `assistant/message` or `tool/result` carry a `surfaceOp`; `'append'`
 * pushes the event's seq, `{ op: 'replace', start, end }` splices the surface
 * nodes from seq `start` to seq `end` (inclusive) into this one. The
 * provenance and tool-result checks of the original are validation the
 * persistence backend already ran on `inspect` (its events are "validated").
 *
 * @module dsh-cross-session/harness/surface-fold
 */

const SURFACE_EVENT_TYPES = new Set(['user/message', 'assistant/message', 'tool/result'])

interface RawEvent {
  readonly type?: unknown
  readonly seq?: unknown
  readonly surfaceOp?: unknown
}

/**
 * Surface events of a log, in model-visible order (the events themselves,
 * not copies: callers must not mutate them).
 * @throws Error when a replacement names a range not on the surface (the
 *   harness rejects such a log as `SESSION_QUERY_INVALID_SURFACE`).
 */
export function currentSurfaceEvents(events: readonly unknown[]): unknown[] {
  const nodes: number[] = []
  const bySeq = new Map<number, unknown>()
  for (const raw of events) {
    const event = raw as RawEvent
    if (typeof event !== 'object' || event === null || !SURFACE_EVENT_TYPES.has(event.type as string)) continue
    const op = event.surfaceOp
    if (typeof event.seq !== 'number' || op === undefined) continue
    if (op === 'append') {
      nodes.push(event.seq)
      bySeq.set(event.seq, raw)
      continue
    }
    const { start, end } = (op ?? {}) as { start?: unknown, end?: unknown }
    const startIdx = typeof start === 'number' ? nodes.indexOf(start) : -1
    const endIdx = typeof end === 'number' ? nodes.indexOf(end) : -1
    if (startIdx < 0 || endIdx < startIdx)
      throw new Error(`invalid session surface: replacement at seq ${event.seq} names a range not on the surface`)
    nodes.splice(startIdx, endIdx - startIdx + 1, event.seq)
    bySeq.set(event.seq, raw)
  }
  return nodes.map(seq => bySeq.get(seq))
}
