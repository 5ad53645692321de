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
 * told to the calling thread; a lost listening connection counts as a
 * change and is opened again. A lease found run out is taken again by
 * joining as before, and said.
 *
 * Liveness of a process of this machine is judged as its process judges it
 * (`harness/process-tag.ts` `isAlive`); this process is the worker's
 * process (`workerData.self`). A test may give a simulated machine instead
 * (`workerData.simulated`, `home/pg/simulated-machine.ts`): its probe and
 * clock.
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
import { simulatedAlive, simulatedNow } from './simulated-machine.js'
import { PG_CONNECT_MS, PG_IDLE_IN_TRANSACTION_MS, PG_STATEMENT_MS, type PgAnswer, type PgEvent, type PgRequest,
  type PgWorkerData } from './pg-sync-protocol.js'

const data = workerData as PgWorkerData
const counter = new Int32Array(data.signal)
const changes = new Int32Array(data.changes)
const tell = (event: PgEvent): void => parentPort!.postMessage(event)

/** First delay before listening again after the listening connection was lost, ms; it doubles up to {@link LISTEN_RETRY_MAX_MS}. */
const LISTEN_RETRY_FIRST_MS = 250
/** Longest delay before listening again, ms. */
const LISTEN_RETRY_MAX_MS = 5_000

interface Opened {
  readonly store: PgStore
  readonly pool: Pool
  /** A new client for `LISTEN` (each one connects once; a lost one is replaced). */
  readonly listener: () => Client
}

/** The store, made on the first request (loading `pg` then). */
let opened: Promise<Opened> | undefined
let renewing: ReturnType<typeof setInterval> | undefined
/** How this process last joined (`longLived`), while it has. */
let joinedAs: boolean | undefined
/** Whether this worker listens (from `prepare` on), and the delay before the next try after a lost listening connection, ms. */
let listening = false
let relisten = LISTEN_RETRY_FIRST_MS
/** Whether the next connection that listens replaces a lost one. */
let reconnecting = false

async function open(): Promise<Opened> {
  const loaded = await loadPg()
  if (!loaded.ok) throw Object.assign(new Error(loaded.why), { storeFault: loaded.why })
  // `statement_timeout` bounds a statement on the server; `query_timeout` bounds the wait here (a server that died
  // mid-statement may never answer on its socket). `idle_in_transaction_session_timeout`: a process stopped inside a
  // transaction (SIGSTOP, a laptop's lid closed) has its session ended by the server, so the rows it locked are free
  // again for every other process instead of until it wakes; TCP keepalive finds a peer that vanished.
  const config = { connectionString: data.url, connectionTimeoutMillis: PG_CONNECT_MS, statement_timeout: PG_STATEMENT_MS,
    query_timeout: PG_STATEMENT_MS + PG_CONNECT_MS, idle_in_transaction_session_timeout: PG_IDLE_IN_TRANSACTION_MS,
    keepAlive: true, keepAliveInitialDelayMillis: 10_000, application_name: 'dsh-cross-session' }
  const pool = new loaded.pg.Pool({ ...config, max: 4 })
  // A connection the server drops while idle in the pool is replaced on the next request; the event is not a crash.
  pool.on('error', () => undefined)
  const simulated = data.simulated === undefined ? {} : { aliveHere: simulatedAlive(data.simulated), now: simulatedNow(data.simulated) }
  const store = new PgStore({ pool, schema: data.schema, self: data.self, machineName: data.machineName, aliveHere: isAlive, ...simulated })
  return { store, pool, listener: () => new loaded.pg.Client(config) }
}

/**
 * Count other processes' changes on a connection of its own. A lost one counts as a change (some may have been
 * missed) and is replaced, backing off from {@link LISTEN_RETRY_FIRST_MS} to {@link LISTEN_RETRY_MAX_MS}.
 */
async function listen(make: () => Client): Promise<void> {
  const self = tagText(data.self)
  const client = make()
  let lost = false
  const onLost = (): void => {
    if (lost) return
    lost = true
    changed()
    void client.end().catch(() => undefined)
    if (!listening) return
    reconnecting = true
    setTimeout(() => void listen(make).catch(() => undefined), relisten)
    relisten = Math.min(LISTEN_RETRY_MAX_MS, relisten * 2)
  }
  client.on('notification', notification => {
    if (notification.payload !== self) changed()
  })
  client.on('error', onLost)
  client.on('end', onLost)
  try {
    await client.connect()
    await client.query(`LISTEN ${changeChannel(data.schema)}`)
    // What was committed while nobody listened is not told again: listening again counts as a change too.
    if (relisten !== LISTEN_RETRY_FIRST_MS || reconnecting) changed()
    reconnecting = false
    relisten = LISTEN_RETRY_FIRST_MS
  } catch (error: unknown) {
    onLost()
    throw error
  }
}

function changed(): void {
  Atomics.add(changes, 0, 1)
  tell({ changed: true })
}

/**
 * Renew this process's lease every `RENEW_MS` while it has joined. A lease that ran out (the server was out of reach
 * longer than a lease, or another machine's sweep dropped this process's row) is taken again at once by joining as
 * before, and said: only other machines judged this process by it (its own machine judges it by pid + start time, and
 * only its own machine holds and claims its sessions), so nothing it holds was taken from it.
 */
function renewFrom(store: PgStore, longLived: boolean): void {
  joinedAs = longLived
  renewing ??= setInterval(() => {
    void store.renew().then(async kept => {
      if (kept || joinedAs === undefined) return
      await store.join(joinedAs)
      tell({ leaseLost: true })
    }).catch(() => undefined)
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
      if (!listening) {
        listening = true
        // A server not reachable now is listened to once it is (the retry above); the store is prepared either way.
        await listen(listener).catch(() => undefined)
      }
      return { id: request.id, ok: true, value: undefined }
    }
    const method = (store as unknown as Record<string, unknown>)[request.method]
    if (typeof method !== 'function') throw new Error(`no such store method: ${request.method}`)
    const value = await (method as (...args: readonly unknown[]) => Promise<unknown>).apply(store, [...request.args])
    if (request.method === 'join') renewFrom(store, request.args[0] === true)
    if (request.method === 'leave') {
      clearInterval(renewing)
      renewing = undefined
      joinedAs = undefined
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
