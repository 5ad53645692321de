/**
 * How a row of the home store's tables (`home/store-schema.ts`) maps to the
 * port's shapes: the holder of a row and how it last let go, a stored
 * message, and the stored reasons and outcomes, each read defensively (an
 * older or foreign row reads `unknown` or `failed`).
 *
 * @module dsh-cross-session/home/store-rows
 */

import type { ProcessTag } from '../harness/dsh-home.js'
import type { HolderRefusal } from '../ports.js'
import type { NoticeOutcome } from '../model/outcomes.js'
import type { Holder, HolderView, LetGo, MessageState, StoredMessage } from './store.js'

/** A `holders` row as read. */
export interface HolderRow {
  readonly session_id: string
  readonly pid: number | null
  readonly start: number | null
  readonly state: 'waking' | 'live' | 'free'
  readonly woke: number
  readonly let_go: LetGo | null
  readonly let_go_pid: number | null
  readonly let_go_at: number | null
}

/** A `messages` row as read. */
export interface MessageRow {
  readonly n: number
  readonly message_id: string
  readonly target: string
  readonly sender: string
  readonly hop: number
  readonly mode: 'queue' | 'steer'
  readonly text: string
  readonly may_wake: number
  readonly state: MessageState
  readonly claimer_pid: number | null
  readonly claimer_start: number | null
  readonly seq: number | null
  readonly running: number | null
  readonly reason: string | null
  readonly answered_seq: number | null
  readonly created_at: number
  readonly notice: string | null
  readonly expires_at: number | null
}

/** The holder of a row, when it names one (alive or not). */
export function holderTag(row: Pick<HolderRow, 'pid' | 'start'> | undefined): ProcessTag | undefined {
  return row?.pid === null || row?.pid === undefined ? undefined : { pid: row.pid, start: row.start ?? 0 }
}

/** A row's living holder. */
export function holderOf(row: HolderRow, tag: ProcessTag): Holder {
  return { tag, state: row.state === 'waking' ? 'waking' : 'live', woke: row.woke === 1 }
}

/** How the last holder of a row let go, when known: it let go (`let_go`), or it holds it and is dead. */
export function lastLetGo(row: HolderRow | undefined, alive: (tag: ProcessTag) => boolean): HolderView['lastLetGo'] {
  if (row === undefined) return undefined
  const tag = holderTag(row)
  if (tag !== undefined) return alive(tag) ? undefined : { how: 'died', pid: tag.pid, at: undefined }
  if (row.let_go === null || row.let_go_pid === null) return undefined
  return { how: row.let_go, pid: row.let_go_pid, at: row.let_go_at ?? undefined }
}

/** Whether two tags name the same process. */
export function sameTag(a: ProcessTag | undefined, b: ProcessTag | undefined): boolean {
  return a !== undefined && b !== undefined && a.pid === b.pid && a.start === b.start
}

/** A stored refusal reason, read defensively (an older or foreign row reads `unknown`). */
function holderRefusalOf(reason: string): HolderRefusal {
  const known: readonly string[] = ['misaddressed', 'target-gone', 'expired', 'inbound-refused', 'withdrawn']
  return known.includes(reason) ? reason as HolderRefusal : 'unknown'
}

/** A `messages` row as the port's {@link StoredMessage}. */
export function messageOf(row: MessageRow): StoredMessage {
  return {
    order: row.n,
    messageId: row.message_id,
    target: row.target,
    sender: row.sender,
    hop: row.hop,
    mode: row.mode,
    text: row.text,
    mayWake: row.may_wake === 1,
    state: row.state,
    ...(row.claimer_pid === null ? {} : { claimer: { pid: row.claimer_pid, start: row.claimer_start ?? 0 } }),
    ...(row.seq === null ? {} : { seq: row.seq }),
    ...(row.running === null ? {} : { running: row.running === 1 }),
    ...(row.reason === null ? {} : { reason: holderRefusalOf(row.reason) }),
    ...(row.answered_seq === null ? {} : { answeredSeq: row.answered_seq }),
    ...(row.notice === null ? {} : { notice: noticeOutcomeOf(row.notice) }),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    createdAt: row.created_at,
  }
}

/** A stored notice outcome, read defensively. */
export function noticeOutcomeOf(value: string | null): NoticeOutcome {
  return value === 'completed' || value === 'interrupted' || value === 'refused' || value === 'expired' ? value : 'failed'
}
