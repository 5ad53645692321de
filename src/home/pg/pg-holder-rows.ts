/**
 * How a `holders` row of the PostgreSQL store (`home/pg/pg-schema.ts`) maps
 * to the port's shapes — the PostgreSQL half of `home/store-rows.ts`: the
 * process a row names with its lease, the living holder, and how the last
 * holder let go. Pure.
 *
 * @module dsh-cross-session/home/pg/pg-holder-rows
 */

import type { Holder, HolderView, LetGo } from '../store.js'
import type { MachineTag, NamedProcess } from './lease.js'

/** A `holders` row as read with {@link WITH_LEASE} (`bigint` columns come back as text, `pg@8` `pg-types`). */
export interface PgHolderRow {
  readonly session_id: string
  readonly machine: string | null
  readonly pid: number | null
  readonly start: string | null
  readonly state: 'waking' | 'live' | 'free'
  readonly woke: boolean
  readonly let_go: LetGo | null
  readonly let_go_machine: string | null
  readonly let_go_pid: number | null
  readonly let_go_at: string | null
  /** Whether the named process's lease is unexpired by the database's clock (`null`: no process row). */
  readonly leased: boolean | null
}

/** Holder rows of schema `schema` joined with their holder's lease, judged by the database's clock when read. */
export function WITH_LEASE(schema: string): string {
  return `SELECT h.*, p.lease_until > clock_timestamp() AS leased
  FROM ${schema}.holders h LEFT JOIN ${schema}.processes p ON p.machine = h.machine AND p.pid = h.pid AND p.start = h.start`
}

/** The process a row names, if any, with its lease. */
export function namedOf(row: PgHolderRow | undefined): NamedProcess | undefined {
  if (row?.machine == null || row.pid === null) return undefined
  return { tag: { machine: row.machine, pid: row.pid, start: Number(row.start ?? 0) }, leased: row.leased === true }
}

/** A row's living holder. */
export function holderOf(row: PgHolderRow, tag: MachineTag): Holder {
  return { tag, state: row.state === 'waking' ? 'waking' : 'live', woke: row.woke }
}

/** How the last holder of a row let go, when known: it let go (`let_go`), or it holds it and `alive` says it is dead. */
export function lastLetGoOf(row: PgHolderRow | undefined, alive: (named: NamedProcess) => boolean): HolderView['lastLetGo'] {
  const named = namedOf(row)
  if (named !== undefined) return alive(named) ? undefined : { how: 'died', pid: named.tag.pid, at: undefined }
  if (row?.let_go == null || row.let_go_pid === null) return undefined
  return { how: row.let_go, pid: row.let_go_pid, at: row.let_go_at === null ? undefined : Number(row.let_go_at) }
}
