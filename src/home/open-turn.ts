/**
 * Processes without this package cannot be seen: a session whose log ends
 * in an open turn (a `turn/start` without its `turn/end`) that was written
 * recently may be running in such a process right now, so it is not woken.
 *
 * Unless the store knows who wrote it: when the last process of this
 * package that held the session is gone — it died holding it, or it let it
 * go no earlier than the log's last event — the open turn is that process's
 * cut-off turn, and the session is woken normally (rc.8's recovery then
 * closes the turn as interrupted).
 *
 * Bound: {@link OPEN_TURN_RECENT_MS} (10 minutes) since the log's last
 * event. A running turn writes at every model answer and tool result; ten
 * quiet minutes covers long tool calls.
 *
 * @module dsh-cross-session/home/open-turn
 */

import type { HolderView } from './store.js'

/** How recent an open turn's last event must be to block a wake, ms. */
export const OPEN_TURN_RECENT_MS = 10 * 60_000
/** Clock slack between the log's event times and the store's let-go time (same machine), ms. */
const LET_GO_SLACK_MS = 2000

/** One raw-log record as rc.8 `sessionPersistence.readFrom` returns it (`type`, `time` ms). */
interface EventRecordView {
  readonly type?: unknown
  readonly time?: unknown
}

/** An open turn at the end of a log: how long ago it last wrote, and when (ms). */
export interface OpenTurn {
  readonly ageMs: number
  readonly lastTime: number | undefined
}

/** Pure: the open turn the log ends in, or `undefined` when its last turn is closed. */
export function openTurnOf(records: readonly unknown[], now: number): OpenTurn | undefined {
  let lastTime: number | undefined
  for (let index = records.length - 1; index >= 0; index--) {
    const record = records[index] as EventRecordView | null
    if (typeof record !== 'object' || record === null) continue
    if (lastTime === undefined && typeof record.time === 'number') lastTime = record.time
    if (record.type === 'turn/end') return undefined
    if (record.type === 'turn/start') return { ageMs: lastTime === undefined ? 0 : Math.max(0, now - lastTime), lastTime }
  }
  return undefined
}

/** Pure: whether the store knows the open turn's writer is gone (see the module comment). */
export function writerKnownGone(turn: OpenTurn, lastLetGo: HolderView['lastLetGo']): boolean {
  if (lastLetGo === undefined) return false
  if (lastLetGo.how === 'died') return true
  return lastLetGo.at !== undefined && turn.lastTime !== undefined && turn.lastTime <= lastLetGo.at + LET_GO_SLACK_MS
}

/** Pure: whether a wake must be refused for an open turn. */
export function blocksWake(turn: OpenTurn | undefined, lastLetGo: HolderView['lastLetGo']): boolean {
  return turn !== undefined && turn.ageMs < OPEN_TURN_RECENT_MS && !writerKnownGone(turn, lastLetGo)
}
