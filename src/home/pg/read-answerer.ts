/**
 * The answering side of a read asked of this machine (docs/architecture.md
 * §8 "Several machines", "Reads asked of another machine"): a process of
 * the session's machine takes the requests (`home/pg/pg-reads.ts`
 * `takeReads`, each taken by one process only), reads each session's
 * surface as a local read would, and writes the answer
 * (`home/pg/read-answer.ts` gives its shape and bound).
 *
 * - **Woken** by every change another process makes (`{ changed: true }`,
 *   the store's `NOTIFY`), and by a slow timer ({@link ANSWER_POLL_MS}) in
 *   case a notification was lost.
 * - **One take at a time** per process: wakes during a take are coalesced
 *   into one more take after it.
 * - **At most {@link ANSWER_BATCH} answers under way** per process, each
 *   read bounded ({@link ANSWER_READ_MS}): a slow read delays only its own
 *   answer, and one that hangs is answered `failed`.
 * - **Old requests swept** about once a minute ({@link SWEEP_EVERY_MS});
 *   every process of every machine may sweep, which is harmless.
 * - A store fault while taking or answering is logged once per outage
 *   (until a round succeeds again), not once per wake.
 *
 * @module dsh-cross-session/home/pg/read-answerer
 */

import { raceAbort } from '../../model/service-boundary.js'
import { canNameSession } from '../../model/sessions.js'
import type { SurfaceView } from '../../ports/session-query.js'
import { storeFaultWhy } from '../store-fault.js'
import type { TakenRead } from './pg-reads.js'
import { failedAnswer, isSurfaceRequest, shortReason, surfaceAnswer, type ReadStore } from './read-answer.js'

/** Fallback look for requests when no notification came, ms (a lost `NOTIFY`; the listener reconnecting counts as a change). */
export const ANSWER_POLL_MS = 1_500
/** Answers under way at once in one process, so requests taken per take at most; a full take is followed at once by another. */
export const ANSWER_BATCH = 4
/** Longest one answering read may take, ms: twice a reader's default wait (`REMOTE_READ_WAIT_MS`), after which none waits. */
export const ANSWER_READ_MS = 10_000
/** How often a process sweeps old requests, ms (`home/pg/pg-reads.ts` `READ_RETAIN_MS` is a minute). */
export const SWEEP_EVERY_MS = 60_000

/** What a {@link ReadAnswerer} is given. */
export interface ReadAnswererOptions {
  /** This process's store (`PgSync`): its machine is the one whose requests are taken. */
  readonly store: ReadStore
  /**
   * The local read, as `SessionQueryPort.readSurface` (`ports/session-query.ts`): the surface, or `undefined` when
   * no such session exists. Only ids that can name a session reach it (`model/sessions.ts` `canNameSession`).
   */
  readonly readSurface: (sessionId: string, signal: AbortSignal) => Promise<SurfaceView | undefined>
  /** Where a store fault (once per outage) is said. */
  readonly log: (line: string) => void
  /** Fallback poll, ms (default {@link ANSWER_POLL_MS}). */
  readonly pollMs?: number
  /** Bound of one read, ms (default {@link ANSWER_READ_MS}). */
  readonly readMs?: number
}

/** Stores an answerer runs on: one per store, so one per process (a process has one store). */
const answering = new WeakSet<ReadStore>()

/** Answers the reads other machines ask of this process's machine. */
export class ReadAnswerer {
  private readonly options: ReadAnswererOptions
  private readonly stopping = new AbortController()
  private started = false
  private timer: ReturnType<typeof setInterval> | undefined
  private unlisten: (() => void) | undefined
  /** The round running now, if any, and whether a wake came since its last take. */
  private round: Promise<void> | undefined
  private again = false
  /** The answers under way (at most {@link ANSWER_BATCH}), and whether a take was held back for want of a place. */
  private readonly answers = new Set<Promise<void>>()
  private backlog = false
  private faulted = false
  private lastSweep = 0

  constructor(options: ReadAnswererOptions) {
    this.options = options
  }

  /**
   * Listen, start the fallback timer (unref'd) and take what waits now. Calling it again, or after {@link stop}, does nothing.
   * @throws an `Error` when another answerer runs on the same store (a wiring mistake: one per process).
   */
  start(): void {
    if (this.started || this.stopping.signal.aborted) return
    const { store } = this.options
    if (answering.has(store)) throw new Error('a read answerer already runs on this store: one per process')
    answering.add(store)
    this.started = true
    this.unlisten = store.listen(event => {
      if ('changed' in event) this.wake()
    })
    this.timer = setInterval(() => this.wake(), this.options.pollMs ?? ANSWER_POLL_MS)
    this.timer.unref()
    this.wake()
  }

  /**
   * End the timer and the listener; a read under way is aborted and answered `failed`. @returns when the take and
   * the answers under way (if any) have ended; nothing is logged after.
   */
  async stop(): Promise<void> {
    if (this.stopping.signal.aborted) return
    this.stopping.abort()
    clearInterval(this.timer)
    this.unlisten?.()
    if (this.started) answering.delete(this.options.store)
    await this.round
    await Promise.all(this.answers)
  }

  private wake(): void {
    if (this.stopping.signal.aborted) return
    if (this.round !== undefined) {
      this.again = true
      return
    }
    this.round = this.run().finally(() => {
      this.round = undefined
      if (this.again) this.wake()
    })
  }

  /** Take what waits, as many as there are free places for answers, until a take comes back short; sweep when due. Never rejects. */
  private async run(): Promise<void> {
    const { store } = this.options
    try {
      for (;;) {
        // A wake from here on is answered by this take.
        this.again = false
        const free = ANSWER_BATCH - this.answers.size
        // More may wait: the answer that ends next takes again.
        this.backlog = free <= 0
        if (this.backlog || this.stopping.signal.aborted) break
        const taken = await store.callAsync<TakenRead[]>('takeReads', [free])
        this.faulted = false
        for (const read of taken) this.begin(read)
        if (taken.length < free) break
      }
      const now = Date.now()
      if (now - this.lastSweep >= SWEEP_EVERY_MS && !this.stopping.signal.aborted) {
        this.lastSweep = now
        await store.callAsync<number>('sweepReads', [now])
      }
    } catch (error: unknown) {
      this.fault(error)
    }
  }

  /** Answer one taken request, without holding up the next take (a slow read delays only its own answer). */
  private begin(read: TakenRead): void {
    const answered = this.answerText(read)
      .then(async text => { await this.options.store.callAsync<boolean>('answerRead', [read.id, text]) })
      .catch((error: unknown) => this.fault(error))
      .finally(() => {
        this.answers.delete(answered)
        if (this.backlog) this.wake()
      })
    this.answers.add(answered)
  }

  /** Log a fault of taking or answering, once until a take succeeds again. */
  private fault(error: unknown): void {
    if (this.faulted || this.stopping.signal.aborted) return
    this.faulted = true
    const why = storeFaultWhy(error) ?? (error instanceof Error ? error.message : String(error))
    this.options.log(`reads asked by other machines cannot be taken or answered now (${why}); trying again on the next change`)
  }

  private async answerText(read: TakenRead): Promise<string> {
    if (!isSurfaceRequest(read.request)) return failedAnswer('a request this release does not answer')
    // An id from another machine that cannot name a session never reaches the local read (it may name files).
    if (!canNameSession(read.sessionId)) return surfaceAnswer(undefined)
    const timeout = AbortSignal.timeout(this.options.readMs ?? ANSWER_READ_MS)
    const signal = AbortSignal.any([this.stopping.signal, timeout])
    try {
      return surfaceAnswer(await raceAbort(this.options.readSurface(read.sessionId, signal), signal))
    } catch (error: unknown) {
      if (this.stopping.signal.aborted) return failedAnswer('the answering process stopped')
      if (timeout.aborted) return failedAnswer(`the read took longer than ${this.options.readMs ?? ANSWER_READ_MS} ms`)
      return failedAnswer(shortReason(error))
    }
  }
}
