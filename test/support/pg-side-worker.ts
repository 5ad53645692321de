/**
 * The worker thread of test/support/pg-side.ts: a connection of its own to
 * the test server (the crash schedules' checker reads the store through it,
 * as another process would), and a TCP gate every simulated process
 * reaches the server through, which the schedule cuts and restores
 * (`down`: every connection through it reset, none accepted until it opens
 * again, as a server out of reach refuses them).
 *
 * @module test/support/pg-side-worker
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net'
import { parentPort, workerData, type MessagePort } from 'node:worker_threads'
import pg from 'pg'

/** What the worker is started with. */
export interface SideData {
  readonly url: string
  readonly serverPort: number
  readonly answers: MessagePort
  readonly signal: SharedArrayBuffer
}

/** A request: rows of one statement, or the gate opened (`true`) or cut (`false`). */
export type SideRequest = { readonly id: number, readonly sql: string, readonly values: readonly unknown[] }
  | { readonly id: number, readonly gate: boolean }

/** An answer: the rows, or the gate's port, or what failed. */
export type SideAnswer = { readonly id: number, readonly ok: true, readonly value: unknown } | { readonly id: number, readonly ok: false, readonly error: string }

const data = workerData as SideData
const counter = new Int32Array(data.signal)
const pool = new pg.Pool({ connectionString: data.url, max: 1 })
pool.on('error', () => undefined)

/** Connections from the simulated processes, and the gate's own to the server. */
const clients = new Set<Socket>()
const upstreams = new Set<Socket>()
let server: Server | undefined
let port = 0

/** Accept connections again on the gate's port (a free one the first time), each piped to the server. */
async function open(): Promise<number> {
  if (server !== undefined) return port
  const gate = createServer(client => {
    const upstream = connect(data.serverPort, '127.0.0.1')
    clients.add(client)
    upstreams.add(upstream)
    const end = (): void => {
      client.destroy()
      upstream.destroy()
      clients.delete(client)
      upstreams.delete(upstream)
    }
    for (const socket of [client, upstream]) {
      socket.on('error', end)
      socket.on('close', end)
    }
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve, reject) => {
    gate.once('error', reject)
    gate.listen(port, '127.0.0.1', () => resolve())
  })
  server = gate
  port = (gate.address() as AddressInfo).port
  return port
}

/** Cut: stop listening (a new connection is refused) and reset every connection through the gate (the server ends its side). */
async function cut(): Promise<number> {
  const gate = server
  server = undefined
  // The process's side is reset (ECONNRESET there); the server's side ends, so the server rolls back what it had open.
  for (const client of clients) client.resetAndDestroy()
  for (const upstream of upstreams) upstream.destroy()
  clients.clear()
  upstreams.clear()
  if (gate !== undefined) await new Promise<void>(resolve => gate.close(() => resolve()))
  return port
}

async function answer(request: SideRequest): Promise<SideAnswer> {
  try {
    if ('gate' in request) return { id: request.id, ok: true, value: request.gate ? await open() : await cut() }
    return { id: request.id, ok: true, value: (await pool.query(request.sql, request.values as unknown[])).rows }
  } catch (error: unknown) {
    return { id: request.id, ok: false, error: String((error as Error).stack ?? error) }
  }
}

parentPort!.on('message', (request: SideRequest) => {
  void answer(request).then(reply => {
    data.answers.postMessage(reply)
    Atomics.add(counter, 0, 1)
    Atomics.notify(counter, 0)
  })
})
