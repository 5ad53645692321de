/**
 * Sessions this plugin woke: one shared resume per id, claims by the calls
 * that wait on it, and release once nobody needs them.
 *
 * Rules (docs/architecture.md §5, "Who owns a woken session"):
 * - **One resume per id, owned by no caller.** Concurrent wakes of one cold
 *   session share one resume, as the harness's own `agent-lookup` and the
 *   0.1.2-alpha.2 controller's `ApiSessionAgentController.resolve` do. It
 *   runs under the plugin's lifetime signal, never a caller's: a caller that
 *   is cancelled stops waiting, and the others still get the session.
 * - **Claims.** Every call that resolved a woken session holds a claim until
 *   it delivered or gave up. {@link WokenSessions.giveUp} drops one claim;
 *   the session is put back to sleep only when no claim is left and nothing
 *   was delivered to it, so one caller never disposes a session another is
 *   about to deliver to.
 * - **After a failed resume, look again.** rc.8 answers `agent "…" is
 *   already registered` when the web host (or another plugin) resumed the
 *   same id at the same moment; if the session is live now, it is used as a
 *   live session (not woken by this plugin).
 * - **Idle release.** A session this plugin woke and delivered to is
 *   disposed once no call holds a claim, its agent is idle, and it has been
 *   idle for {@link IDLE_RELEASE_MS}; at most {@link MAX_RESIDENT_WOKEN}
 *   idle woken sessions stay resident (the least recently active is
 *   released first). A session running a turn is never cut off.
 *
 * @module dsh-cross-session/adapters/woken
 */

import type { HostAgent } from '../harness/host.js'
import type { ReleaseOutcome } from '../ports.js'
import { raceAbort } from '../model/service-boundary.js'
import { disposeEach, idleToRelease, RELEASE_TURN_WAIT_MS, SWEEP_INTERVAL_MS, type Held, type WakeHandle } from './woken-release.js'

/** Outcome of {@link WokenSessions.wake}. */
type WakeOutcome =
  | { readonly kind: 'woken', readonly agent: HostAgent }
  | { readonly kind: 'live', readonly agent: HostAgent }

/** Registry of sessions this plugin woke (one per plugin instance). */
export class WokenSessions {
  private readonly held = new Map<string, Held>()
  private readonly pending = new Map<string, Promise<WakeHandle>>()
  /** Calls still waiting on each shared resume. */
  private readonly waiting = new Map<string, number>()
  private readonly lifetime: AbortSignal
  private readonly now: () => number
  private timer: ReturnType<typeof setInterval> | undefined

  /**
   * @param lifetime - the plugin's lifetime signal: shared resumes run under it.
   * @param now - clock, ms (tests inject one).
   */
  constructor(lifetime: AbortSignal = new AbortController().signal, now: () => number = Date.now) {
    this.lifetime = lifetime
    this.now = now
  }

  /**
   * Wake `sessionId` (not live now), sharing a resume already in flight. The caller's
   * `signal` only stops this caller's wait; the resume goes on for the
   * others. On success the caller holds a claim (drop it with
   * {@link delivered} or {@link giveUp}).
   * @param resume - starts the resume (given the lifetime signal).
   * @param isLive - non-waking liveness check, used after a failed resume.
   * @throws the resume's error when it failed and the session is not live
   *   now, or the caller's abort reason.
   */
  async wake(sessionId: string, resume: (signal: AbortSignal) => Promise<WakeHandle>, isLive: () => HostAgent | undefined,
    signal: AbortSignal): Promise<WakeOutcome> {
    // Called only for a session that is not live: an entry still held is
    // stale (its agent went away without us), so it is forgotten.
    if (this.pending.get(sessionId) === undefined) this.held.delete(sessionId)
    let shared = this.pending.get(sessionId)
    if (shared === undefined) {
      shared = resume(this.lifetime).then(handle => {
        this.held.set(sessionId, { handle, claims: 0, delivered: false, lastActive: this.now() })
        this.startSweeping()
        return handle
      }).finally(() => this.pending.delete(sessionId))
      this.pending.set(sessionId, shared)
      // Nobody may be waiting any more when it settles: never an unhandled rejection.
      shared.catch(() => undefined)
    }
    this.waiting.set(sessionId, (this.waiting.get(sessionId) ?? 0) + 1)
    try {
      const handle = await raceAbort(shared, signal)
      this.stopWaiting(sessionId)
      const entry = this.held.get(sessionId)
      if (entry !== undefined) entry.claims++
      return { kind: 'woken', agent: handle.agent }
    } catch (error: unknown) {
      this.stopWaiting(sessionId)
      if (signal.aborted) {
        // This caller gave up and leaves the session to the others; if
        // nobody is left to deliver once the resume ends, it goes back to sleep.
        void shared.then(() => this.dropIfUnwanted(sessionId), () => undefined)
        throw error
      }
      const live = isLive()
      if (live !== undefined) return { kind: 'live', agent: live }
      throw error
    }
  }

  private stopWaiting(sessionId: string): void {
    const left = (this.waiting.get(sessionId) ?? 1) - 1
    if (left > 0) this.waiting.set(sessionId, left)
    else this.waiting.delete(sessionId)
  }

  /** Dispose a woken session nobody waits on, claims or delivered to. */
  private async dropIfUnwanted(sessionId: string): Promise<void> {
    const entry = this.held.get(sessionId)
    if (entry === undefined || entry.claims > 0 || entry.delivered || this.waiting.has(sessionId)) return
    this.held.delete(sessionId)
    try {
      await entry.handle.dispose()
    } catch {
      // Best effort: the host disposes it at the latest when it stops.
    }
  }

  /** A claim's call delivered its message: the session stays for its turn. */
  delivered(sessionId: string): void {
    const entry = this.held.get(sessionId)
    if (entry === undefined) return
    entry.claims = Math.max(0, entry.claims - 1)
    entry.delivered = true
    entry.lastActive = this.now()
  }

  /**
   * A claim's call gave up before delivering. The session is disposed only
   * when no claim is left and nothing was delivered to it.
   * @returns what happened to it.
   */
  async giveUp(sessionId: string): Promise<ReleaseOutcome> {
    const entry = this.held.get(sessionId)
    if (entry === undefined) return 'not-held'
    entry.claims = Math.max(0, entry.claims - 1)
    if (entry.claims > 0) return 'claimed-by-another'
    if (entry.delivered) return 'delivered-by-another'
    this.held.delete(sessionId)
    if (entry.handle.external === true) {
      return 'kept-by-controller'
    }
    await entry.handle.dispose()
    return 'put-back-to-sleep'
  }

  /** A send reached a session this plugin holds: it is active now. */
  touch(sessionId: string): void {
    const entry = this.held.get(sessionId)
    if (entry !== undefined) entry.lastActive = this.now()
  }

  /**
   * Release idle woken sessions: unclaimed, agent idle, idle for at least
   * {@link IDLE_RELEASE_MS}; then, over {@link MAX_RESIDENT_WOKEN}, the least
   * recently active unclaimed idle ones. Called by the interval timer; tests
   * call it directly.
   * @returns the ids released.
   */
  async sweep(report: (message: string) => void = () => undefined): Promise<string[]> {
    const release = idleToRelease(this.held, this.now())
    for (const [sessionId] of release) this.held.delete(sessionId)
    await disposeEach(release, report, 'idle woken session')
    if (this.held.size === 0) this.stopSweeping()
    return release.map(([sessionId]) => sessionId)
  }

  /** Dispose every handle (plugin disposal), each once its running turn ended (bounded). Failures are reported, not thrown. */
  async releaseAll(report: (message: string) => void): Promise<void> {
    this.stopSweeping()
    const held = [...this.held.entries()]
    this.held.clear()
    await disposeEach(held, report, 'woken session', RELEASE_TURN_WAIT_MS)
  }

  /** Number of sessions currently held awake by this plugin. */
  get size(): number {
    return this.held.size
  }

  /** Whether this plugin holds `sessionId` awake. */
  holds(sessionId: string): boolean {
    return this.held.has(sessionId)
  }

  private startSweeping(): void {
    if (this.timer !== undefined || this.lifetime.aborted) return
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS)
    this.timer.unref?.()
  }

  private stopSweeping(): void {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
  }
}
