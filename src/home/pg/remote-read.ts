/**
 * The asking side of a read of another machine's session
 * (docs/architecture.md §8 "Several machines", "Reads asked of another
 * machine"): ask that machine for the session's surface through the
 * PostgreSQL store (`home/pg/pg-reads.ts`), wait a bounded time for a
 * process of it to answer (`home/pg/read-answerer.ts`), and read the answer
 * defensively (`home/pg/read-answer.ts`). The reader's machine then windows
 * the surface as a local read does (`tools/sessions-read.ts`).
 *
 * Woken by the answer's `NOTIFY` (`{ changed: true }`), with a short poll
 * ({@link REMOTE_READ_POLL_MS}) in case a notification is lost; one
 * `readState` at a time.
 *
 * @module dsh-cross-session/home/pg/remote-read
 */

import type { ReadState } from './pg-reads.js'
import { readAnswer, SURFACE_REQUEST, type AnswerRead, type ReadStore } from './read-answer.js'

export { READ_ANSWER_MAX_BYTES, type ReadStore } from './read-answer.js'

/**
 * How long a reader waits for another machine's answer by default, ms. A process of that machine that runs hears
 * the request within milliseconds (`NOTIFY`) or at worst at its fallback poll (`ANSWER_POLL_MS`, 1.5 s), and reads
 * a surface in well under a second; past 5 s no process of that machine is likely to answer (none runs, or it is
 * cut off), and a model's tool call should not hang on it.
 */
export const REMOTE_READ_WAIT_MS = 5_000

/** How often a waiting reader looks again without a notification, ms. */
export const REMOTE_READ_POLL_MS = 250

/**
 * What a read of another machine's session came to:
 * - `surface`: the session's current surface, checked (a usable header, `events` an array);
 * - `not-found`: that machine has no such session;
 * - `unanswered`: no process of that machine answered within the wait (`waitedMs`, ms); the request is abandoned;
 * - `failed`: the read failed there, or its answer was malformed (`why`: a short reason, one line, no stack);
 * - `too-large`: the surface's JSON is over `READ_ANSWER_MAX_BYTES` (8 MiB);
 * - `cancelled`: the caller's signal aborted; the request is abandoned.
 */
export type RemoteRead =
  | AnswerRead
  | { readonly kind: 'unanswered', readonly waitedMs: number }
  | { readonly kind: 'cancelled' }

/** How {@link askSurface} waits. */
export interface AskOptions {
  /** The caller's signal: once aborted, the request is abandoned and the result is `cancelled`. */
  readonly signal: AbortSignal
  /** Longest wait for an answer, ms (default {@link REMOTE_READ_WAIT_MS}). */
  readonly waitMs?: number
}

const CANCELLED: RemoteRead = { kind: 'cancelled' }

/**
 * Ask `machine` (its id, as the directory gives it) for the surface of `sessionId`, and wait for the answer.
 * Never rejects for anything that machine did: a malformed answer is `failed`. An aborted `signal` returns
 * `cancelled` (it never rejects); the request is abandoned first (a store fault then is ignored: the request is swept
 * a minute later).
 * @param store - this process's store (`PgSync`).
 * @throws a store fault (`home/store-fault.ts`) when this process's store cannot be used to ask or to look.
 */
export async function askSurface(store: ReadStore, machine: string, sessionId: string, options: AskOptions): Promise<RemoteRead> {
  const { signal } = options
  const waitMs = options.waitMs ?? REMOTE_READ_WAIT_MS
  if (signal.aborted) return CANCELLED
  const started = Date.now()
  const wake = new Wake(store, signal)
  try {
    const id = await store.callAsync<string>('askRead', [machine, sessionId, SURFACE_REQUEST])
    for (;;) {
      if (signal.aborted) {
        await store.callAsync('abandonRead', [id]).catch(() => undefined)
        return CANCELLED
      }
      const state = await store.callAsync<ReadState>('readState', [id])
      if (state.state === 'answered') return readAnswer(state.answer)
      // Only the reader abandons; a request gone from under it was swept (a machine clock far ahead of this one).
      if (state.state === 'abandoned' || state.state === 'unknown') return { kind: 'failed', why: 'the request was dropped unanswered' }
      const left = started + waitMs - Date.now()
      if (left <= 0) break
      await wake.next(Math.min(left, REMOTE_READ_POLL_MS))
    }
    const after = await store.callAsync<ReadState>('abandonRead', [id])
    // Answered between the last look and the abandon: the answer stands.
    if (after.state === 'answered') return readAnswer(after.answer)
    return { kind: 'unanswered', waitedMs: Date.now() - started }
  } finally {
    wake.close()
  }
}

/** Settles a wait on the next change the store hears, the signal's abort, or a timeout; a change heard between waits counts. */
class Wake {
  private heard = false
  private settle: (() => void) | undefined
  private readonly unlisten: () => void
  private readonly signal: AbortSignal
  private readonly onAbort = (): void => this.fire()

  constructor(store: ReadStore, signal: AbortSignal) {
    this.signal = signal
    this.unlisten = store.listen(event => {
      if ('changed' in event) this.fire()
    })
    signal.addEventListener('abort', this.onAbort, { once: true })
  }

  /** Wait at most `ms` for a change (at once when one came since the last wait). */
  async next(ms: number): Promise<void> {
    if (this.heard || this.signal.aborted) {
      this.heard = false
      return
    }
    await new Promise<void>(resolve => {
      const timer = setTimeout(() => this.fire(), ms)
      timer.unref()
      this.settle = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  close(): void {
    this.unlisten()
    this.signal.removeEventListener('abort', this.onAbort)
    this.fire()
  }

  private fire(): void {
    const settle = this.settle
    this.settle = undefined
    if (settle === undefined) this.heard = true
    else {
      this.heard = false
      settle()
    }
  }
}
