/**
 * The worker thread of `home/pg/pg-sync.ts`: one connection pool to the
 * PostgreSQL server and the store's own transitions (`home/pg/pg-store.ts`),
 * each request run as it arrives (several may be in flight, each its own
 * transaction, as several processes' would be). A blocked caller's answer
 * goes to its own port and bumps the shared counter it waits on.
 *
 * Also, for as long as this process has joined: its lease is renewed every
 * `RENEW_MS` (`home/pg/lease.ts`) from this thread, so a stalled event loop
 * never loses it; and one more connection `LISTEN`s for other processes'
 * changes (`home/pg/pg-tx.ts` `ChangeNotice`), counted in shared memory and
 * told to the calling thread. A lease found run out is said once; the
 * store's fence then refuses this process's holds until it joins again.
 *
 * Liveness of a process of this machine is judged as its process judges it
 * (`harness/process-tag.ts` `isAlive`); this process is the worker's
 * process (`workerData.self`).
 *
 * @module dsh-cross-session/home/pg/pg-sync-worker
 */

import { parentPort, workerData } from 'node:worker_threads'
import type { Client, Pool } from 'pg'
import { isAlive } from '../../harness/process-tag.js'
import { carryError } from '../store-fault.js'
import { RENEW_MS } from './lease.js'
import { tagText } from './pg-connection.js'
import { loadPg } from './pg-module.js'
import { changeChannel, preparePgStore } from './pg-schema.js'
import { PgStore } from './pg-store.js'
import { PG_CONNECT_MS, PG_STATEMENT_MS, type PgAnswer, type PgEvent, type PgRequest, type PgWorkerData } from './pg-sync.js'

const data = workerData as PgWorkerData
const counter = new Int32Array(data.signal)
const changes = new Int32Array(data.changes)
const tell = (event: PgEvent): void => parentPort!.postMessage(event)

interface Opened {
  readonly store: PgStore
  readonly pool: Pool
  readonly listener: Client
}

/** The store, made on the first request (loading `pg` then). */
let opened: Promise<Opened> | undefined
let renewing: ReturnType<typeof setInterval> | undefined

async function open(): Promise<Opened> {
  const loaded = await loadPg()
  if (!loaded.ok) throw Object.assign(new Error(loaded.why), { storeFault: loaded.why })
  const config = { connectionString: data.url, connectionTimeoutMillis: PG_CONNECT_MS, statement_timeout: PG_STATEMENT_MS,
    application_name: 'dsh-cross-session' }
  const pool = new loaded.pg.Pool({ ...config, max: 4 })
  // A connection the server drops while idle in the pool is replaced on the next request; the event is not a crash.
  pool.on('error', () => undefined)
  const store = new PgStore({ pool, schema: data.schema, self: data.self, machineName: data.machineName, aliveHere: isAlive })
  const listener = new loaded.pg.Client(config)
  listener.on('error', () => undefined)
  return { store, pool, listener }
}

/** Count other processes' changes; a lost listening connection counts as a change (some may have been missed). */
async function listen(listener: Client): Promise<void> {
  const self = tagText(data.self)
  listener.on('notification', notification => {
    if (notification.payload !== self) changed()
  })
  listener.on('end', changed)
  await listener.connect()
  await listener.query(`LISTEN ${changeChannel(data.schema)}`)
}

function changed(): void {
  Atomics.add(changes, 0, 1)
  tell({ changed: true })
}

/** Renew this process's lease every `RENEW_MS` while it has joined; a lease that ran out is said once. */
function renewFrom(store: PgStore): void {
  renewing ??= setInterval(() => {
    void store.renew().then(kept => {
      if (!kept) tell({ leaseLost: true })
    }, () => undefined)
  }, RENEW_MS)
}

async function answer(request: PgRequest): Promise<PgAnswer> {
  try {
    opened ??= open()
    const { store, pool, listener } = await opened.catch((error: unknown) => {
      opened = undefined
      throw error
    })
    if (request.method === 'prepare') {
      await preparePgStore(pool, data.schema)
      await listen(listener)
      return { id: request.id, ok: true, value: undefined }
    }
    if (request.method === 'end') {
      clearInterval(renewing)
      await listener.end().catch(() => undefined)
      return { id: request.id, ok: true, value: await pool.end() }
    }
    const method = (store as unknown as Record<string, unknown>)[request.method]
    if (typeof method !== 'function') throw new Error(`no such store method: ${request.method}`)
    const value = await (method as (...args: readonly unknown[]) => Promise<unknown>).apply(store, [...request.args])
    if (request.method === 'join') renewFrom(store)
    if (request.method === 'leave') {
      clearInterval(renewing)
      renewing = undefined
    }
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
