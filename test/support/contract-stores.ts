/**
 * Both stores behind the store port's contract suites
 * (test/unit/store-contract*.test.ts): the SQLite store
 * (`home/store-sqlite.ts`) on a temporary home, and the PostgreSQL store
 * (`home/pg/pg-store.ts`) on a fresh schema of the throwaway server
 * (`test/support/pg-cluster.ts`). Three stores stand for three processes of
 * one machine, each with its own connection; a process dies when the
 * injected pid + start probe says so (its pid in `dead`), as
 * `harness/process-tag.ts` would; `now` is the machine's clock.
 *
 * Every call is awaited: the SQLite store answers at once, the PostgreSQL
 * one over a connection. A suite registers {@link cleanUp} in `afterEach`.
 *
 * @module test/support/contract-stores
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { openHomeStore, type HomeStore, type ProcessTag } from '../../src/testing.js'
import { PgStore } from '../../src/home/pg/pg-store.js'
import { pgUrl, testSchema } from './pg-target.ts'

/** What the suites call of a store, answered at once (SQLite) or later (PostgreSQL). */
type Maybe<T> = T | Promise<T>
type Port = Pick<HomeStore, 'join' | 'leave' | 'acquire' | 'markLive' | 'release' | 'view' | 'board' | 'longLivedHost' | 'post'
  | 'postClaimed' | 'unpost' | 'claim' | 'record' | 'recordAll' | 'unclaimAll' | 'handBack' | 'unclaim' | 'refuse' | 'refuseWaiting'
  | 'answered' | 'takeUnanswered' | 'pendingFor' | 'waiting' | 'heldHere' | 'message' | 'adoptable' | 'sweep'
  | 'watch' | 'unwatch' | 'watchOf' | 'watchedTargets' | 'watchesOf' | 'fireWatch' | 'dropWatchesOf'
  | 'inboundOf' | 'setInbound' | 'holdForApproval' | 'approvals' | 'approval' | 'decide' | 'expireApprovals' | 'journal' | 'traffic'
  | 'withdraw'>
export type ContractStore = { readonly self: ProcessTag } & {
  [K in keyof Port]: (...args: Parameters<Port[K]>) => Maybe<ReturnType<Port[K]>>
}

/** Processes of one machine on one store; `dead` holds the pids the probe calls dead. */
export interface World {
  readonly dead: Set<number>
  readonly stores: [ContractStore, ContractStore, ContractStore]
}

const cleanups: Array<() => Promise<void> | void> = []

/** Close every store and drop every home and schema made since the last call. */
export async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}

const url = pgUrl()

/** A store to run a suite against; `skip` when it cannot be had here (no PostgreSQL server outside CI). */
export interface Backend {
  readonly name: string
  readonly skip: boolean
  world(now?: () => number): Promise<World>
}

export const backends: readonly Backend[] = [
  {
    name: 'SQLite',
    skip: false,
    world: async now => {
      const home = mkdtempSync(join(tmpdir(), 'xs-contract-'))
      const dead = new Set<number>()
      const stores = [0, 1, 2].map(index => openHomeStore(home, { pid: 101 + index, start: 7 }, tag => !dead.has(tag.pid), undefined, now))
      cleanups.push(() => {
        for (const store of stores) store.close()
        rmSync(home, { recursive: true, force: true })
      })
      return await Promise.resolve({ dead, stores: stores as HomeStore[] as [HomeStore, HomeStore, HomeStore] })
    },
  },
  {
    name: 'PostgreSQL',
    skip: url === undefined,
    world: async now => {
      const { schema, drop } = await testSchema(url!, 'xs_contract')
      cleanups.push(drop)
      const dead = new Set<number>()
      const stores = await Promise.all([0, 1, 2].map(async index => {
        const pool = new pg.Pool({ connectionString: url, max: 2 })
        cleanups.push(() => pool.end())
        const store = new PgStore({ pool, schema, self: { machine: 'machine-a', pid: 101 + index, start: 7 }, machineName: 'a',
          aliveHere: tag => !dead.has(tag.pid), ...(now === undefined ? {} : { now }) })
        // A process of the PostgreSQL store holds nothing before it has a lease.
        await store.join(false)
        return store
      }))
      return { dead, stores: stores as [PgStore, PgStore, PgStore] }
    },
  },
]
