/**
 * What the calling thread and the worker thread of the PostgreSQL store
 * (`home/pg/pg-sync.ts`, `home/pg/pg-sync-worker.ts`) say to each other,
 * and the bounds of a call. Types and constants only.
 *
 * @module dsh-cross-session/home/pg/pg-sync-protocol
 */

import type { MessagePort } from 'node:worker_threads'
import type { CarriedError } from '../store-fault.js'
import type { MachineTag } from './lease.js'

/** How long a connection may take to open, ms (an unreachable server is a fault after this). */
export const PG_CONNECT_MS = 2_000
/** How long one statement may run on the server, ms (`statement_timeout`). */
export const PG_STATEMENT_MS = 5_000
/**
 * How long a session may sit inside a transaction without a statement before the server ends it, ms
 * (`idle_in_transaction_session_timeout`): a transaction here runs its statements back to back, so only a process
 * stopped or starved mid-transaction reaches it, and then the rows it locked are free again for every other process.
 */
export const PG_IDLE_IN_TRANSACTION_MS = 2_000
/** How long a blocked {@link PgSync.call} waits for the worker, ms. */
export const SYNC_WAIT_MS = 15_000

/** What the worker is started with. */
export interface PgWorkerData {
  /** The connection URL (`settings/store-url.ts`; never logged). */
  readonly url: string
  readonly schema: string
  readonly self: MachineTag
  readonly machineName: string
  /** Where blocked calls' answers go, with the shared counter the worker bumps after each. */
  readonly answers: MessagePort
  readonly signal: SharedArrayBuffer
  /** A counter of other processes' changes the worker heard (`LISTEN`), read without a round trip. */
  readonly changes: SharedArrayBuffer
  /**
   * Tests only: a simulated machine whose processes' liveness and clock the test sets (`home/pg/simulated-machine.ts`);
   * absent, the real pid + start probe and clock.
   */
  readonly simulated?: SharedArrayBuffer
}

/** What the worker says unasked: another process changed the store; this process's lease had run out (it joined again). */
export type PgEvent = { readonly changed: true } | { readonly leaseLost: true }

/** A request: run the store's `method` with `args`; `blocked`: the caller waits on the counter. */
export interface PgRequest {
  readonly id: number
  readonly method: string
  readonly args: readonly unknown[]
  readonly blocked: boolean
}

/** An answer to a request. */
export type PgAnswer =
  | { readonly id: number, readonly ok: true, readonly value: unknown }
  | { readonly id: number, readonly ok: false, readonly error: CarriedError }
