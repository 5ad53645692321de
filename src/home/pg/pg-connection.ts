/**
 * What every transition of the PostgreSQL store (docs/architecture.md §8
 * "Several machines") shares — the PostgreSQL half of
 * `home/store-connection.ts`: the pool and schema, this process, liveness
 * (`home/pg/lease.ts`), a session's row locked for a decision, the fence of
 * this process's lease, and the claims of dead processes put back.
 *
 * @module dsh-cross-session/home/pg/pg-connection
 */

import type { Pool } from 'pg'
import type { ProcessTag } from '../../harness/dsh-home.js'
import type { HolderView } from '../store.js'
import { storeFault } from '../store-fault.js'
import { isAlive, type MachineTag, type NamedProcess } from './lease.js'
import { lastLetGoOf, namedOf, type PgHolderRow } from './pg-holder-rows.js'
import { changeChannel, isSchemaName } from './pg-schema.js'
import { bootId } from './boot-id.js'
import { inTransaction, readRows, type Query } from './pg-tx.js'

/** A process as a change notice's payload: `machine:pid:start`. */
export function tagText(tag: MachineTag): string {
  return `${tag.machine}:${tag.pid}:${tag.start}`
}

/** The database's clock in ms since the epoch, as SQL: when a holder let go, the same on every machine. */
export const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint'

/** A message back to pending: no claimer (a `SET` list). */
export const UNCLAIMED = 'state = \'pending\', claimer_machine = NULL, claimer_pid = NULL, claimer_start = NULL'

/** What a process of the PostgreSQL store is opened with. */
export interface PgStoreOptions {
  readonly pool: Pool
  /** The PostgreSQL schema of the tables (`home/pg/pg-schema.ts` `isSchemaName`). */
  readonly schema: string
  readonly self: MachineTag
  /** This machine's name, shown beside its sessions on other machines. */
  readonly machineName: string
  /** The pid + start probe for processes of this machine (`harness/process-tag.ts`). */
  readonly aliveHere: (tag: ProcessTag) => boolean
  /** This machine's clock, ms: a message's times (its age for the sweep), as the SQLite store keeps them. */
  readonly now?: () => number
  /** This process's boot (`home/pg/boot-id.ts`; tests give their own). */
  readonly boot?: string
}

/** The shared part of the PostgreSQL store's transitions. */
export class PgConnection {
  readonly self: MachineTag
  protected readonly pool: Pool
  /** The schema name, for SQL (checked by `isSchemaName` before any table is made). */
  protected readonly s: string
  protected readonly machineName: string
  protected readonly now: () => number
  /** This process's boot: a process of this machine on another boot is another host's (`home/pg/boot-id.ts`). */
  protected readonly boot: string
  private readonly aliveHere: (tag: ProcessTag) => boolean

  /** @throws Error when `options.schema` is not a schema name this package accepts (`home/pg/pg-schema.ts` `isSchemaName`). */
  constructor(options: PgStoreOptions) {
    // Every statement names the schema in its text: never one that is not a plain identifier.
    if (!isSchemaName(options.schema)) throw new Error(`not a schema name this store accepts: ${JSON.stringify(options.schema)}`)
    this.pool = options.pool
    this.s = options.schema
    this.self = options.self
    this.machineName = options.machineName
    this.aliveHere = options.aliveHere
    this.now = options.now ?? Date.now
    this.boot = options.boot ?? bootId()
  }

  /**
   * Run `work` as one transaction (`home/pg/pg-tx.ts`); one that changed a row notifies the other processes on commit,
   * unless `quiet` (a lease renewal: nothing another process acts on).
   */
  protected async tx<T>(work: (query: Query) => Promise<T>, quiet = false): Promise<T> {
    return await inTransaction(this.pool, work, quiet ? undefined : { channel: changeChannel(this.s), payload: tagText(this.self) })
  }

  /** One read statement, outside a transaction (`home/pg/pg-tx.ts` `readRows`): for a read that decides nothing. */
  protected readonly read: Query = async (text, values) => await readRows(this.pool, text, values)

  /**
   * `sessionId`'s holder row, made to exist and locked (`FOR UPDATE`) for the rest of the transaction: every decision
   * about a session's holder or its waiting messages queues on this one row, so posts to a target commit in the order
   * their posting numbers were drawn and claims see each in that order.
   *
   * The row is locked first and the lease of the process it names read after, in a statement of its own: a row
   * locked after a wait is read as the transaction that held the lock left it, but a table joined in the same
   * statement would be read as it was before that wait (a holder that joined and took the row meanwhile would read as
   * having no lease). A row a sweep dropped between the insert and the lock is made again.
   */
  protected async lockSession(query: Query, sessionId: string): Promise<PgHolderRow> {
    for (;;) {
      await query(`INSERT INTO ${this.s}.holders (session_id, state, since) VALUES ($1, 'free', clock_timestamp())
        ON CONFLICT (session_id) DO NOTHING`, [sessionId])
      const [row] = await query<Omit<PgHolderRow, 'leased'>>(`SELECT * FROM ${this.s}.holders WHERE session_id = $1 FOR UPDATE`,
        [sessionId])
      if (row === undefined) continue
      if (row.machine === null || row.pid === null) return { ...row, leased: null }
      const [lease] = await query<{ leased: boolean }>(`SELECT lease_until > clock_timestamp() AS leased FROM ${this.s}.processes
        WHERE machine = $1 AND pid = $2 AND start = $3`, [row.machine, row.pid, row.start])
      return { ...row, leased: lease?.leased ?? null }
    }
  }

  /** The living process a row names, if any. */
  protected livingHolder(row: PgHolderRow | undefined): MachineTag | undefined {
    const named = namedOf(row)
    return named !== undefined && this.alive(named) ? named.tag : undefined
  }

  /** Fence: a store fault when this process's lease ran out (or it never joined); its row stays locked meanwhile. */
  protected async checkLease(query: Query): Promise<void> {
    const { machine, pid, start } = this.self
    const rows = await query<{ leased: boolean }>(`SELECT lease_until > clock_timestamp() AS leased FROM ${this.s}.processes
      WHERE machine = $1 AND pid = $2 AND start = $3 FOR SHARE`, [machine, pid, start])
    if (rows[0]?.leased !== true) {
      throw storeFault('this process\'s lease on the cross-session store ran out; it joins again before it holds anything',
        'this process\'s lease on the store ran out')
    }
  }

  /** Claims of dead processes on `sessionId` go back to pending (inside the caller's transaction, its session locked). */
  protected async revertDeadClaims(query: Query, sessionId: string): Promise<void> {
    const claims = await query<{ n: string, machine: string, pid: number, start: string, leased: boolean | null }>(
      `SELECT m.n, m.claimer_machine AS machine, m.claimer_pid AS pid, m.claimer_start AS start, p.lease_until > clock_timestamp() AS leased
        FROM ${this.s}.messages m LEFT JOIN ${this.s}.processes p
          ON p.machine = m.claimer_machine AND p.pid = m.claimer_pid AND p.start = m.claimer_start
        WHERE m.target = $1 AND m.state = 'claimed'`, [sessionId])
    const dead = claims.filter(claim => !this.alive({ tag: { machine: claim.machine, pid: claim.pid, start: Number(claim.start) },
      leased: claim.leased === true }))
    if (dead.length === 0) return
    // Still claimed, as read: a process judged dead may still have a commit in flight (it sent its `recordAll` before it
    // died); this update waits for that row and then leaves a row it recorded as it is.
    await query(`UPDATE ${this.s}.messages SET ${UNCLAIMED}, updated_at = $2 WHERE n = ANY($1::bigint[]) AND state = 'claimed'`,
      [dead.map(claim => claim.n), this.now()])
  }

  /** This process's claims (on `target` only, when given) go back to pending (inside the caller's transaction). */
  protected async returnClaims(query: Query, target?: string): Promise<void> {
    const { machine, pid, start } = this.self
    await query(`UPDATE ${this.s}.messages SET ${UNCLAIMED}, updated_at = $4 WHERE state = 'claimed'
      AND claimer_machine = $1 AND claimer_pid = $2 AND claimer_start = $3${target === undefined ? '' : ' AND target = $5'}`,
    target === undefined ? [machine, pid, start, this.now()] : [machine, pid, start, this.now(), target])
  }

  /** Whether a named process is alive, as this process judges it (`home/pg/lease.ts` `isAlive`). */
  protected alive(named: NamedProcess): boolean {
    return isAlive(named, this.self, this.aliveHere)
  }

  /** How the last holder of a row let go, as this process judges the one it names. */
  protected lastLetGo(row: PgHolderRow | undefined): HolderView['lastLetGo'] {
    return lastLetGoOf(row, named => this.alive(named))
  }
}
