/**
 * How a `messages` row of the PostgreSQL store (`home/pg/pg-schema.ts`)
 * maps to the port's {@link StoredMessage}: through the SQLite store's own
 * mapping (`home/store-rows.ts` `messageOf`), so both stores read a row the
 * same way, with the claimer's machine kept. Pure.
 *
 * @module dsh-cross-session/home/pg/pg-message-rows
 */

import type { StoredMessage } from '../store.js'
import { messageOf } from '../store-rows.js'
import type { MachineTag } from './lease.js'

/** A `messages` row as `pg@8` returns it (`bigint` columns as text, `pg-types`). */
export interface PgMessageRow {
  readonly n: string
  readonly message_id: string
  readonly target: string
  readonly sender: string
  readonly hop: number
  readonly mode: 'queue' | 'steer'
  readonly text: string
  readonly may_wake: boolean
  readonly state: StoredMessage['state']
  readonly claimer_machine: string | null
  readonly claimer_pid: number | null
  readonly claimer_start: string | null
  readonly seq: number | null
  readonly running: boolean | null
  readonly reason: string | null
  readonly answered_seq: number | null
  readonly created_at: string
  readonly notice: string | null
  readonly expires_at: string | null
}

/** A row as the port's message; its claimer carries its machine. */
export function pgMessageOf(row: PgMessageRow): StoredMessage {
  const message = messageOf({
    ...row,
    n: Number(row.n),
    may_wake: row.may_wake ? 1 : 0,
    claimer_start: row.claimer_start === null ? null : Number(row.claimer_start),
    running: row.running === null ? null : row.running ? 1 : 0,
    created_at: Number(row.created_at),
    expires_at: row.expires_at === null ? null : Number(row.expires_at),
  })
  if (message.claimer === undefined || row.claimer_machine === null) return message
  const claimer: MachineTag = { machine: row.claimer_machine, ...message.claimer }
  return { ...message, claimer }
}
