/**
 * The worker thread of `home/pg/pg-sync.ts`: one connection pool to the
 * PostgreSQL server and the store's own transitions (`home/pg/pg-store.ts`),
 * each request run as it arrives (several may be in flight, each its own
 * transaction, as several processes' would be). A blocked caller's answer
 * goes to its own port and bumps the shared counter it waits on.
 *
 * Liveness of a process of this machine is judged as its process judges it
 * (`harness/process-tag.ts` `isAlive`); this process is the worker's
 * process (`workerData.self`).
 *
 * @module dsh-cross-session/home/pg/pg-sync-worker
 */

import { parentPort, workerData } from 'node:worker_threads'
import { isAlive } from '../../harness/process-tag.js'
import { carryError } from '../store-fault.js'
import { loadPg } from './pg-module.js'
import { preparePgStore } from './pg-schema.js'
import { PgStore } from './pg-store.js'
import { PG_CONNECT_MS, PG_STATEMENT_MS, type PgAnswer, type PgRequest, type PgWorkerData } from './pg-sync.js'

const data = workerData as PgWorkerData
const counter = new Int32Array(data.signal)

/** The store, made on the first request (loading `pg` then). */
let opened: Promise<{ store: PgStore, prepare: () => Promise<void>, end: () => Promise<void> }> | undefined

async function open(): Promise<{ store: PgStore, prepare: () => Promise<void>, end: () => Promise<void> }> {
  const loaded = await loadPg()
  if (!loaded.ok) throw Object.assign(new Error(loaded.why), { storeFault: loaded.why })
  const pool = new loaded.pg.Pool({ connectionString: data.url, max: 4, connectionTimeoutMillis: PG_CONNECT_MS,
    statement_timeout: PG_STATEMENT_MS, application_name: 'dsh-cross-session' })
  // A connection the server drops while idle in the pool is replaced on the next request; the event is not a crash.
  pool.on('error', () => undefined)
  const store = new PgStore({ pool, schema: data.schema, self: data.self, machineName: data.machineName, aliveHere: isAlive })
  return { store, prepare: () => preparePgStore(pool, data.schema), end: () => pool.end() }
}

async function answer(request: PgRequest): Promise<PgAnswer> {
  try {
    opened ??= open()
    const { store, prepare, end } = await opened.catch((error: unknown) => {
      opened = undefined
      throw error
    })
    if (request.method === 'prepare') return { id: request.id, ok: true, value: await prepare() }
    if (request.method === 'end') return { id: request.id, ok: true, value: await end() }
    const method = (store as unknown as Record<string, unknown>)[request.method]
    if (typeof method !== 'function') throw new Error(`no such store method: ${request.method}`)
    const value = await (method as (...args: readonly unknown[]) => Promise<unknown>).apply(store, [...request.args])
    return { id: request.id, ok: true, value }
  } catch (error: unknown) {
    return { id: request.id, ok: false, error: carryError(error) }
  }
}

parentPort!.on('message', (request: PgRequest) => {
  void answer(request).then(reply => {
    if (!request.blocked) {
      parentPort!.postMessage(reply)
      return
    }
    data.answers.postMessage(reply)
    Atomics.add(counter, 0, 1)
    Atomics.notify(counter, 0)
  })
})
