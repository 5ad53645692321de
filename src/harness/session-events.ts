/**
 * "Something was appended to this session's log": rc.8 emits `session/event`
 * on the Cordis context for every event a live session appends, with the
 * session as its first argument (`@deepseek-ai/dsh-session@0.1.0-rc.8`
 * lib/index.js `Session.append`: the log is pushed, then observers run
 * synchronously). A wait for a delivered message to be recorded
 * (`harness/recorded.ts`) sleeps on this instead of on a timer, so it looks
 * at the log once per append and returns at the append that records it.
 *
 * @module dsh-cross-session/harness/session-events
 */

/** Wakes waiters by session id. */
export class SessionEvents {
  private readonly waiters = new Map<string, Set<() => void>>()
  /** Whether the host delivers `session/event` at all (else waits fall back to polling). */
  available = false

  /** A `session/event` for `sessionId` arrived. */
  notify(sessionId: string): void {
    const waiting = this.waiters.get(sessionId)
    if (waiting === undefined) return
    this.waiters.delete(sessionId)
    for (const wake of waiting) wake()
  }

  /**
   * Resolve at the next event of `sessionId`, or after `timeoutMs`, or on
   * abort, whichever comes first (`true` for an event). Subscribes before it
   * returns, so an append after the caller's last look is never missed. The
   * timer is unref'd: a pending wait never keeps a host process alive.
   */
  next(sessionId: string, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    return new Promise(resolve => {
      let waiting = this.waiters.get(sessionId)
      if (waiting === undefined) this.waiters.set(sessionId, waiting = new Set())
      const done = (event: boolean): void => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        const set = this.waiters.get(sessionId)
        set?.delete(wake)
        if (set?.size === 0) this.waiters.delete(sessionId)
        resolve(event)
      }
      const wake = (): void => done(true)
      const onAbort = (): void => done(false)
      const timer = setTimeout(() => done(false), timeoutMs)
      timer.unref?.()
      waiting.add(wake)
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    })
  }
}

/**
 * Listen to `session/event` on `ctx`. `global`: rc.8 `dsh-scope` filters a
 * preset-scoped listener to that preset's agents
 * (`@deepseek-ai/dsh-scope@0.1.0-rc.8` lib/index.js); a send may target any
 * session of the process. A context without `on` gets waits that poll.
 */
export function listenSessionEvents(ctx: { on?(event: string, listener: (...args: unknown[]) => void,
  options?: { global?: boolean }): unknown }): SessionEvents {
  const events = new SessionEvents()
  if (typeof ctx.on !== 'function') return events
  ctx.on('session/event', (session: unknown) => {
    const id = (session as { id?: unknown } | null | undefined)?.id
    if (typeof id === 'string') events.notify(id)
  }, { global: true })
  events.available = true
  return events
}
