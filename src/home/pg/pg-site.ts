/**
 * The PostgreSQL store as a site of the store supervisor
 * (`home/store-site.ts`, docs/architecture.md §8 "Several machines"): what
 * `store: postgres://…` opens.
 *
 * - **Open**: this home's machine id (`home/pg/machine-id.ts`), a worker
 *   thread holding the connections (`home/pg/pg-sync.ts`), and the schema
 *   made or checked on the server (`prepare`). A server out of reach, a
 *   refused password, a schema of another release or a missing `pg`
 *   package is a store fault: the supervisor fails closed and tries again.
 * - **Still the store there** while its worker thread runs; a worker that
 *   stopped is replaced by a new one at the next call.
 * - **What it hears** (another process's change, a lease taken again) is
 *   told to listeners kept by the site, so they outlive each store.
 * - The corpus index's rows stay in this machine's SQLite store (`rows`).
 *
 * @module dsh-cross-session/home/pg/pg-site
 */

import type { CorpusRows } from '../../index/shared-rows.js'
import type { ProcessTag } from '../../harness/dsh-home.js'
import type { StoreSite } from '../store-site.js'
import { storeFault } from '../store-fault.js'
import { machineId, machineName } from './machine-id.js'
import { PgHomeStore } from './pg-home-store.js'
import { PgSync } from './pg-sync.js'
import type { PgEvent } from './pg-sync-protocol.js'

/** The schema every machine of one user's store shares on the server (a database of its own keeps two users apart). */
export const PG_SCHEMA = 'dsh_cross_session'

/** What opening the PostgreSQL store needs. */
export interface PgSiteOptions {
  /** The connection URL as set (`settings/store-url.ts`); only {@link shown} is ever printed. */
  readonly url: string
  readonly shown: string
  readonly home: string
  readonly self: ProcessTag
  /** The `machine` setting (`''`: the host name). */
  readonly machine: string
  /** This machine's corpus rows (its SQLite store's), or `undefined` while that store cannot be used. */
  readonly rows: () => CorpusRows | undefined
  readonly log: (message: string) => void
  /** Run before each opening; what it throws (a store fault) keeps the store closed (`home/store-choice.ts`). */
  readonly claim?: () => void
  /** The schema (tests give their own; {@link PG_SCHEMA} otherwise). */
  readonly schema?: string
  /** Tests only: a simulated machine's processes and clock (`home/pg/simulated-machine.ts`). */
  readonly simulated?: SharedArrayBuffer
}

/** The PostgreSQL site, with what its stores hear. */
export interface PgSite extends StoreSite<PgHomeStore> {
  /** Hear every store's events (another process's change; a lease lost and taken again). @returns the removal. */
  listen(listener: (event: PgEvent) => void): () => void
}

/** The site of `store: postgres://…`. */
export function pgSite(options: PgSiteOptions): PgSite {
  const listeners = new Set<(event: PgEvent) => void>()
  const syncs = new WeakMap<PgHomeStore, PgSync>()
  const rows = (): CorpusRows => {
    const found = options.rows()
    if (found === undefined) throw storeFault('this machine\'s SQLite store cannot be used', 'this machine\'s own store cannot be used')
    return found
  }
  return {
    where: options.shown,
    open() {
      options.claim?.()
      const machine = machineId(options.home)
      const self = { machine, ...options.self }
      const sync = new PgSync({ url: options.url, schema: options.schema ?? PG_SCHEMA, self, machineName: machineName(options.machine),
        ...(options.simulated === undefined ? {} : { simulated: options.simulated }) }, options.log)
      try {
        sync.call('prepare', [])
        // A home copied from another host carries its machine id: refused until that host's processes are gone.
        sync.call('refuseCopiedMachine', [])
      } catch (error: unknown) {
        sync.close()
        throw error
      }
      sync.listen(event => {
        for (const listener of [...listeners]) listener(event)
      })
      const store = new PgHomeStore(sync, self, rows)
      syncs.set(store, sync)
      return store
    },
    holds: store => syncs.get(store)?.running() === true,
    listen(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
