/**
 * Processes without this package cannot be seen (issue 8 §5): a session
 * whose log ends in an open turn (a `turn/start` without its `turn/end`)
 * that was written recently may be running in such a process right now, so
 * it is not woken.
 *
 * Bound: {@link OPEN_TURN_RECENT_MS} (10 minutes) since the log's last
 * event. A running turn writes events at every model answer and tool result;
 * ten quiet minutes covers long tool calls, and after that a crashed
 * writer's log becomes wakeable again (rc.8's recovery then marks the turn
 * interrupted). A session whose presence entry shows its last holder (with
 * this package) died is known to have no writer and is exempt.
 *
 * @module dsh-cross-session/home/open-turn
 */

/** How recent an open turn's last event must be to block a wake, ms. */
export const OPEN_TURN_RECENT_MS = 10 * 60_000

/** One raw-log record as rc.8 `SessionQueryEngine.listEvents` returns it (`type`, `time` ms). */
interface EventRecordView {
  readonly type?: unknown
  readonly time?: unknown
}

/**
 * Pure: how long ago the log's open turn last wrote, or `undefined` when the
 * log does not end in an open turn.
 */
export function openTurnAgeMs(records: readonly unknown[], now: number): number | undefined {
  let lastTime: number | undefined
  for (let index = records.length - 1; index >= 0; index--) {
    const record = records[index] as EventRecordView | null
    if (typeof record !== 'object' || record === null) continue
    if (lastTime === undefined && typeof record.time === 'number') lastTime = record.time
    if (record.type === 'turn/end') return undefined
    if (record.type === 'turn/start') return lastTime === undefined ? 0 : Math.max(0, now - lastTime)
  }
  return undefined
}

/** Pure: whether a wake must be refused for an open turn. */
export function blocksWake(ageMs: number | undefined, writerKnownDead: boolean): boolean {
  return ageMs !== undefined && ageMs < OPEN_TURN_RECENT_MS && !writerKnownDead
}
