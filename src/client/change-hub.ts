/**
 * The page's side of the host's pushes (src/home/change-feed.ts), apart from
 * React and the browser so it can be tested with fakes: who listens, which
 * push concerns whom, and what happens when the key socket is lost.
 *
 * - A push `{ changed: 'store' }` runs every listener; `{ changed: 'logs',
 *   sessions? }` runs those whose `logs(sessions)` says it concerns them.
 * - The first listener opens the key socket. While it is open nothing polls.
 * - When it closes (the host restarted or went away), every listener runs
 *   every {@link FALLBACK_MS} (the slow poll), and the hub opens it again
 *   after 1 s, doubling up to {@link MAX_BACKOFF_MS}; once it is open again
 *   the poll stops and every listener runs once, for what it missed.
 * @module dsh-cross-session/client/change-hub
 */

/** How often every listener runs while the key socket is lost, ms. */
export const FALLBACK_MS = 15_000
/** First and longest pause before opening a lost key socket again, ms. */
export const FIRST_BACKOFF_MS = 1000
export const MAX_BACKOFF_MS = 30_000

/** One listening view. */
export interface ChangeListener {
  run(): void
  /** Whether a log push naming `sessions` (`undefined`: any session) concerns it. */
  logs(sessions: readonly string[] | undefined): boolean
}

/** What the hub needs of the page: the key socket (./channel.js) and timers. */
export interface ChangeHubIo {
  /** Hear the key socket: `{ push }` per push, `{ closed: true }` when it closed; returns the removal. */
  onKeySocket(listener: (event: { push?: Record<string, unknown>, closed?: boolean }) => void): () => void
  /** Open the key socket if none is open; resolves once the host sent the key, rejects when it refused. */
  open(): Promise<void>
  /** `setInterval`; returns its stop. */
  every(ms: number, run: () => void): () => void
  /** `setTimeout`. */
  after(ms: number, run: () => void): void
}

/** The hub. */
export interface ChangeHub {
  /** Add a listener (the first one opens the key socket); returns its removal. */
  listen(listener: ChangeListener): () => void
  /** Every listener runs now (after a write this page made). */
  changed(): void
  /** Whether the key socket is open, so that nothing polls. */
  readonly live: boolean
}

export function createChangeHub(io: ChangeHubIo): ChangeHub {
  const listeners = new Set<ChangeListener>()
  let live = false
  let connecting = false
  let stopFallback: (() => void) | undefined

  const notify = (push?: Record<string, unknown>): void => {
    const sessions = Array.isArray(push?.sessions) ? push.sessions.filter((id): id is string => typeof id === 'string') : undefined
    for (const listener of [...listeners]) {
      try {
        if (push?.changed === 'logs' && !listener.logs(sessions)) continue
        listener.run()
      } catch {
        // One view's refresh must not stop the others'.
      }
    }
  }
  const fallback = (on: boolean): void => {
    if (on && stopFallback === undefined && listeners.size > 0) stopFallback = io.every(FALLBACK_MS, () => notify())
    if (!on) {
      stopFallback?.()
      stopFallback = undefined
    }
  }
  const connect = (lost: boolean, pause: number): void => {
    if (connecting || live || listeners.size === 0) return
    connecting = true
    io.open().then(() => {
      connecting = false
      live = true
      fallback(false)
      if (lost) notify()
    }, () => {
      connecting = false
      fallback(true)
      io.after(pause, () => connect(lost, Math.min(MAX_BACKOFF_MS, pause * 2)))
    })
  }
  io.onKeySocket(event => {
    if (event.push !== undefined) {
      notify(event.push)
      return
    }
    live = false
    fallback(true)
    io.after(FIRST_BACKOFF_MS, () => connect(true, FIRST_BACKOFF_MS * 2))
  })
  return {
    listen(listener) {
      listeners.add(listener)
      connect(false, FIRST_BACKOFF_MS)
      return () => {
        listeners.delete(listener)
        if (listeners.size === 0) fallback(false)
      }
    },
    changed: () => notify(),
    get live() { return live },
  }
}
