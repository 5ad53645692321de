/**
 * The home store the `store` setting chooses, supervised
 * (docs/architecture.md §8, "When the store fails" and "Several machines"):
 *
 * - `sqlite` (the default): this home's SQLite file, each message's
 *   transitions on a worker thread of its own (`home/off-loop.ts`), its
 *   directory watched for changes;
 * - `postgres://…`: the PostgreSQL server (`home/pg/pg-site.ts`), told of
 *   changes by `NOTIFY`; this machine's SQLite store is opened too, for the
 *   corpus index's rows only (they describe this machine's log files).
 *
 * Each opening first records which store this process uses in the home's SQLite store (`home/store-users.ts`): one
 * set otherwise than a living process of the home keeps its store closed, with that reason, and is tried again.
 * A `store` value that is neither is thrown as an `Error` naming what is wrong (never the password): the mount then
 * fails closed (`home/fail-closed.ts`) rather than coordinate on a store the user did not choose.
 *
 * @module dsh-cross-session/home/store-choice
 */

import { isAlive, selfTag } from '../harness/process-tag.js'
import { openHomeStore, storePaths } from './store-open.js'
import type { SqliteHomeStore } from './store-sqlite.js'
import { sqliteSite } from './store-site.js'
import { RETRY_BUSY_MS, StoreSupervisor } from './store-supervisor.js'
import { StoreWatch } from './store-watch.js'
import { storeFault } from './store-fault.js'
import type { SessionQueryPort } from '../ports.js'
import type { InboundMode } from '../settings/resolve.js'
import { startMachines, type MachinesHome } from './pg/machines-home.js'
import type { PgHomeStore } from './pg/pg-home-store.js'
import { pgSite } from './pg/pg-site.js'
import { storePlace } from '../settings/store-url.js'

/** The supervised store of one process and home, and how it hears other processes' changes. */
export interface ChosenStore {
  readonly supervisor: StoreSupervisor
  readonly watch: StoreWatch
  /** `postgres`: the store is shared by machines (`shown`: its URL without the password). */
  readonly kind: 'sqlite' | 'postgres'
  readonly shown?: string
  /** Hear that this process's lease ran out and was taken again (PostgreSQL only). @returns the removal. */
  readonly onLeaseLost: (listener: () => void) => () => void
  /** Before the runtime stops: leave the home's record of store users, and close what only this choice opened. */
  readonly closeAlso: () => void
  /** PostgreSQL only: start publishing `local`'s sessions and answering other machines' reads (`home/pg/machines-home.ts`). */
  readonly machines?: (local: SessionQueryPort, inbound: () => InboundMode) => MachinesHome
}

/** `store`, running its per-message transitions off the event loop (`home/off-loop.ts`). */
function offLoop(store: SqliteHomeStore, warn: (message: string) => void): SqliteHomeStore {
  store.runOffLoop(warn)
  return store
}

/**
 * Open the store `setting` names for `home` (waiting at most {@link RETRY_BUSY_MS} for a lock; a store that cannot be
 * used now is retried in the background by its supervisor).
 * @param setting - the `store` setting; `machine` - the `machine` setting (`''`: the host name).
 * @throws `Error` when `setting` is neither `sqlite` nor a `postgres://` URL.
 */
export function chooseStore(home: string, setting: string, machine: string, warn: (message: string) => void): ChosenStore {
  const place = storePlace(setting)
  if ('error' in place) throw new Error(place.error)
  if (place.kind === 'sqlite') {
    // Each opening records this process's choice first; another process's other choice keeps the store closed (retried).
    const supervisor = new StoreSupervisor(sqliteSite(busyMs => {
      const store = openHomeStore(home, selfTag(), isAlive, warn, Date.now, busyMs)
      try {
        useOneStore(store, 'sqlite')
      } catch (error: unknown) {
        store.close()
        throw error
      }
      return offLoop(store, warn)
    }, storePaths(home).file), selfTag(), warn)
    supervisor.start(RETRY_BUSY_MS)
    const users = supervisor.store as unknown as StoreUsers
    return { supervisor, watch: new StoreWatch(supervisor.store, storePaths(home).dir), kind: 'sqlite', onLeaseLost: () => () => undefined,
      closeAlso: () => leave(users) }
  }
  // This machine's own store, for the corpus rows only: no process joins it, so nothing in it coordinates.
  const local = new StoreSupervisor(sqliteSite(busyMs => openHomeStore(home, selfTag(), isAlive, warn, Date.now, busyMs),
    storePaths(home).file), selfTag(), warn)
  local.start(RETRY_BUSY_MS)
  const users = local.store as unknown as StoreUsers
  const site = pgSite({ url: place.url, shown: place.shown, home, self: selfTag(), machine, rows: () => local.corpus(), log: warn,
    // Before each opening: this machine's store must be readable, to record this process's choice there.
    claim: () => useOneStore(users, place.shown) })
  const supervisor = new StoreSupervisor(site, selfTag(), warn)
  supervisor.start(RETRY_BUSY_MS)
  const watch = new StoreWatch(supervisor.store, { pushed: changed => site.listen(event => 'changed' in event && changed()) })
  return {
    supervisor, watch, kind: 'postgres', shown: place.shown,
    onLeaseLost: listener => site.listen(event => 'leaseLost' in event && listener()),
    closeAlso: () => {
      leave(users)
      local.close()
    },
    machines: (sessions, inbound) => startMachines(supervisor.store as unknown as Pick<PgHomeStore, 'machines'>,
      listener => site.listen(listener), sessions, inbound, warn),
  }
}

/** The record of which store each process of the home uses (`home/store-connection.ts`, on the home's SQLite store). */
type StoreUsers = Pick<SqliteHomeStore, 'useStore' | 'leaveStoreUsers'>

/**
 * Record this process's `choice` in the home's SQLite store (`home/store-users.ts`), before its store opens.
 * @throws a store fault while another living process of the home uses another store (the supervisor keeps the store
 *   closed, every send refused with this reason, and tries again: that process may be switching too), or what the
 *   SQLite store throws (a store fault while it cannot be used).
 */
function useOneStore(users: StoreUsers, choice: string): void {
  const other = users.useStore(choice)
  if (other === undefined) return
  throw storeFault(`another dsh process of this home coordinates on the store ${other}, and this one is set to ${choice}`,
    `another dsh process of this home uses the store ${other}: set store alike for every process of the home (settings.yaml)`)
}

/** Leave the record of store users (at stop; a process that dies is dropped by the next that records a choice). */
function leave(users: StoreUsers): void {
  try {
    users.leaveStoreUsers()
  } catch {
    // The store cannot be used now: the next process that records a choice drops this one's once it has exited.
  }
}
