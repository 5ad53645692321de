/**
 * One transition of the PostgreSQL store as one transaction
 * (docs/architecture.md §8 "Several machines"): `BEGIN` … `COMMIT` on one
 * pooled connection, `ROLLBACK` on any error, retried from the start when
 * the server reports a serialization failure or a deadlock (it asks the
 * client to, postgresql.org/docs/current/mvcc-serialization-failure-handling.html);
 * every other error is thrown once, a fault of the server as a store fault
 * (`home/pg/pg-fault.ts`).
 *
 * Rows a decision reads are locked first (`SELECT … FOR UPDATE`), so two
 * transitions never decide on the same rows at once — as `BEGIN IMMEDIATE`
 * does for the SQLite store.
 *
 * @module dsh-cross-session/home/pg/pg-tx
 */

import type { Pool, PoolClient, QueryResultRow } from 'pg'
import { asStoreError, isRetryable, pgFaultWhy } from './pg-fault.js'

/** How many times a transition is tried when the server keeps asking for a retry. */
export const MAX_TRIES = 8

/** A query inside a transaction: the rows it returned. */
export type Query = <R extends QueryResultRow = Record<string, unknown>>(text: string, values?: readonly unknown[]) => Promise<R[]>

/** What a transaction that changed rows tells the other processes on commit (`NOTIFY`, delivered only if it commits). */
export interface ChangeNotice {
  /** The channel (an identifier this package made, `home/pg/pg-schema.ts` `changeChannel`). */
  readonly channel: string
  /** Who changed it, so a process can tell its own commits from others'. */
  readonly payload: string
}

/**
 * Run `work` as one transaction on a connection of `pool`; when it changed a
 * row and `notice` is given, `pg_notify` in the same transaction. @returns what
 * `work` returned once committed. @throws a store fault (`home/store-fault.ts`
 * `storeFaultWhy` reads it) when the server cannot be used; whatever `work`
 * threw otherwise (nothing it did is kept).
 */
export async function inTransaction<T>(pool: Pool, work: (query: Query) => Promise<T>, notice?: ChangeNotice): Promise<T> {
  for (let tries = 1; ; tries++) {
    let client: PoolClient | undefined
    try {
      client = await pool.connect()
      const on = client
      // A connection that breaks between two statements emits `error` on its client (`pg@8.23.1` lib/client.js
      // `_handleErrorEvent`); unheard, that would end the process. The next statement on it fails, and is handled below.
      on.on('error', ignore)
      let changed = false
      const query: Query = async (text, values) => {
        const result = await on.query(text, values as unknown[])
        if ((result.command === 'INSERT' || result.command === 'UPDATE' || result.command === 'DELETE') && (result.rowCount ?? 0) > 0) {
          changed = true
        }
        return result.rows
      }
      await on.query('BEGIN')
      try {
        const result = await work(query)
        if (changed && notice !== undefined) await on.query('SELECT pg_notify($1, $2)', [notice.channel, notice.payload])
        await on.query('COMMIT')
        return result
      } catch (error: unknown) {
        await on.query('ROLLBACK').catch(() => undefined)
        throw error
      }
    } catch (error: unknown) {
      // A connection the server or the network broke is not given back to the pool for reuse.
      client?.removeListener('error', ignore)
      client?.release(pgFaultWhy(error) === undefined ? undefined : true)
      client = undefined
      if (isRetryable(error) && tries < MAX_TRIES) continue
      throw asStoreError(error)
    } finally {
      client?.removeListener('error', ignore)
      client?.release()
    }
  }
}

function ignore(): void {}

/**
 * One read statement on any connection of `pool`, outside a transaction: one round trip where `BEGIN` … `COMMIT`
 * would take three (a statement sees one snapshot on its own). @returns its rows. @throws as {@link inTransaction}
 * (`pg-pool`'s `query` hears the connection's `error` while it runs).
 */
export async function readRows<R extends QueryResultRow>(pool: Pool, text: string, values?: readonly unknown[]): Promise<R[]> {
  try {
    return (await pool.query<R>(text, values as unknown[])).rows
  } catch (error: unknown) {
    throw asStoreError(error)
  }
}
