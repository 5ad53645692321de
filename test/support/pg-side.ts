/**
 * What the PostgreSQL crash schedules (test/support/home-schedule.ts on
 * test/support/pg-schedule-world.ts) need beside the shipped store, on a
 * worker thread of the test's own (test/support/pg-side-worker.ts), asked
 * synchronously as the store's own worker is (`home/pg/pg-sync.ts`: the
 * schedule's checks run between steps, with no await):
 * - {@link PgSide.rows}: one statement on a connection of its own, the way
 *   another process reads the store;
 * - {@link PgSide.gate}: the TCP gate every simulated process reaches the
 *   server through, cut (the server out of reach: connections reset, new
 *   ones refused) and opened again.
 *
 * @module test/support/pg-side
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import type { SideAnswer, SideData, SideRequest } from './pg-side-worker.ts'

/** How long a request may take before the test fails, ms. */
const SIDE_WAIT_MS = 30_000

/** The checker's connection and the processes' gate. */
export class PgSide {
  /** The server's URL through the gate (what every simulated process connects to). */
  readonly gatedUrl: string
  private readonly worker: Worker
  private readonly answers: MessagePort
  private readonly counter: Int32Array
  private next = 0

  constructor(url: string) {
    const channel = new MessageChannel()
    const signal = new SharedArrayBuffer(4)
    this.counter = new Int32Array(signal)
    this.answers = channel.port1
    const serverPort = Number(new URL(url).port)
    this.worker = new Worker(new URL('./pg-side-worker.ts', import.meta.url), {
      workerData: { url, serverPort, answers: channel.port2, signal } satisfies SideData, transferList: [channel.port2], execArgv: ['--import', 'tsx'],
    })
    this.worker.unref()
    const gated = new URL(url)
    gated.port = String(this.gate(true))
    this.gatedUrl = gated.href
  }

  /** The rows of one statement, read now. */
  rows<R>(sql: string, values: readonly unknown[] = []): R[] {
    return this.ask({ id: ++this.next, sql, values }) as R[]
  }

  /** Open (`true`) or cut (`false`) the gate. @returns its port. */
  gate(open: boolean): number {
    return this.ask({ id: ++this.next, gate: open }) as number
  }

  close(): void {
    void this.worker.terminate()
    this.answers.close()
  }

  private ask(request: SideRequest): unknown {
    const seen = Atomics.load(this.counter, 0)
    this.worker.postMessage(request)
    const until = performance.now() + SIDE_WAIT_MS
    for (let last = seen; ;) {
      for (let received = receiveMessageOnPort(this.answers); received !== undefined; received = receiveMessageOnPort(this.answers)) {
        const answer = received.message as SideAnswer
        if (answer.id !== request.id) continue
        if (answer.ok) return answer.value
        throw new Error(`the schedule's side worker failed: ${answer.error}`)
      }
      if (performance.now() > until) throw new Error(`the schedule's side worker did not answer in ${SIDE_WAIT_MS} ms`)
      Atomics.wait(this.counter, 0, last, 50)
      last = Atomics.load(this.counter, 0)
    }
  }
}
