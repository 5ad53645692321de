/**
 * The worker thread of `home/off-loop.ts`: a connection of its own to the
 * store file its process opened (`home/store-open.ts` `openExisting`: that
 * very file, of this release's schema, or none), and the same
 * `SqliteHomeStore` methods its process would run, one request at a time,
 * in the order asked.
 *
 * Liveness of another process is judged as the process judges it
 * (`harness/process-tag.ts` `isAlive`); this process is the worker's
 * process (`workerData.self`), so its claims are its process's claims.
 * The thread runs below its process's event loop (`home/thread-priority.ts`).
 *
 * @module dsh-cross-session/home/store-worker
 */

import { parentPort, workerData } from 'node:worker_threads'
import { isAlive } from '../harness/process-tag.js'
import { withLockWait } from './lock-patience.js'
import type { OffLoopAnswer, OffLoopRequest, StoreWorkerData } from './off-loop.js'
import { carryError } from './store-fault.js'
import { NOT_OPENED, openExisting } from './store-open.js'
import type { SqliteHomeStore } from './store-sqlite.js'
import { lowerThisThread, STORE_WORKER_NICE_STEPS } from './thread-priority.js'

lowerThisThread(STORE_WORKER_NICE_STEPS)
const port = parentPort!
const say = (answer: OffLoopAnswer): void => port.postMessage(answer)
const data = workerData as StoreWorkerData

let store: SqliteHomeStore | undefined
try {
  const opened = openExisting(data.file, data.identity, data.self, isAlive)
  if (typeof opened === 'string') say({ opened: false, why: NOT_OPENED[opened] })
  else {
    store = opened
    say({ opened: true })
  }
} catch (error: unknown) {
  say({ opened: false, why: carryError(error).message })
}

port.on('message', (request: OffLoopRequest) => {
  if (store === undefined) return
  try {
    if (request.method === 'times') {
      say({ id: request.id, ok: true, value: store.times() })
      return
    }
    const method = store[request.method] as (...args: readonly unknown[]) => unknown
    const value = withLockWait(request.lockWaitMs, () => method.apply(store, [...request.args]))
    say({ id: request.id, ok: true, value })
  } catch (error: unknown) {
    say({ id: request.id, ok: false, error: carryError(error) })
  }
})
