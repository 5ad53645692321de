/**
 * One process's side of the home: it holds, in the store, every top-level
 * session live here; claims and delivers the messages addressed to them
 * (`home/owner-delivery.ts`), one session at a time in posting order;
 * records each once the harness has written its log; and, in a long-lived
 * host, adopts sessions with messages waiting and no living holder
 * (`home/adoption.ts`). It reacts to `agent/created` / `agent/disposed` /
 * `session/event` (`home/mount.ts`), to other processes' commits
 * (`home/store-watch.ts`), and reconciles with `agents.list()` every 2 s
 * (a preset-scoped mount is not told about every session).
 *
 * @module dsh-cross-session/home/runtime
 */

import type { HostAgent } from '../harness/host.js'
import { Holdings, type HoldingHost } from './holding.js'
import { Adoption } from './adoption.js'
import { OrphanWatches, type ListEvents } from './orphan-watches.js'
import type { HomeStore, LetGo } from './store.js'
import type { Approval } from './approvals.js'
import type { StoreWatch } from './store-watch.js'
import { PROCESS_CLOCK, type RuntimeClock } from './runtime-clock.js'

/** How long recorded and refused messages stay in the store (their senders have long read them), ms. */
export const RETAIN_MS = 60 * 60_000
/** How often a process sweeps the store, ms (and once at start). */
const SWEEP_EVERY_MS = 10 * 60_000
/** Interval of the reconcile with the registry (sessions a preset-scoped mount is not told about), ms. */
const RECONCILE_MS = 2000

/** What the runtime needs from its process. */
export interface RuntimeHost extends HoldingHost {
  /** Whether this process is a long-lived host (`dsh web`), asked on each tick. */
  readonly longLived: () => boolean
  /** A session's log as persisted (rc.8 `sessionPersistence.readFrom`); absent: watches nobody holds wait for a holder. */
  readonly listEvents?: ListEvents
  /** The reconcile timer and the exit hook; absent: the process's own (`home/runtime-clock.ts`). */
  readonly clock?: RuntimeClock
}

/** The home runtime of one process. */
export class HomeRuntime {
  readonly store: HomeStore
  readonly watch: StoreWatch
  private readonly host: RuntimeHost
  private readonly holdings: Holdings
  private readonly adoption: Adoption
  private readonly orphans: OrphanWatches | undefined
  private longLived = false
  private stopped = false
  private removeListener: (() => void) | undefined
  private stopTimer: (() => void) | undefined
  private removeExitHook: (() => void) | undefined
  private sweepAfter = 0
  /** Wakes a session here for adoption (set by the guard: the guarded wake). */
  adopt: ((sessionId: string) => Promise<boolean>) | undefined
  /** A held message this process expired (set by the mount: the sender's notice). */
  expired: ((approval: Approval) => void) | undefined

  constructor(store: HomeStore, watch: StoreWatch, host: RuntimeHost) {
    this.store = store
    this.watch = watch
    this.host = host
    this.adoption = new Adoption(store, sessionId => host.agents.get(sessionId) !== undefined, host.log)
    this.holdings = new Holdings(store, watch, host)
    this.orphans = host.listEvents === undefined ? undefined : new OrphanWatches(store, host.listEvents, host.log)
  }

  /** Whether this process is a long-lived host (asked now; the store learns it on the next tick). */
  get isLongLived(): boolean {
    return this.host.longLived()
  }

  /** Join the store, sweep, hold the sessions live now, start reacting to changes. */
  start(): void {
    this.longLived = this.host.longLived()
    this.store.join(this.longLived)
    // Rows an earlier runtime of this process left (a plugin reload) for sessions no longer live here.
    for (const sessionId of this.store.heldHere()) if (this.host.agents.get(sessionId) === undefined) this.store.release(sessionId, 'released')
    // Claims an earlier runtime of this process left in flight are delivered again, after the log check.
    this.store.unclaimAll()
    const clock = this.host.clock ?? PROCESS_CLOCK
    this.removeExitHook = clock.atExit(this.onExit)
    this.removeListener = this.watch.listen(() => this.tick())
    this.stopTimer = clock.every(RECONCILE_MS, () => this.tick())
    this.tick()
  }

  /** A session went live here: hold it (top-level only) and deliver what waits for it. */
  track(agent: HostAgent): void {
    this.holdings.track(agent)
  }

  /** A session this package woke here: hold it, offer again what a cut-off turn left unanswered, deliver what waits. */
  async holdWoken(agent: HostAgent): Promise<void> {
    await this.holdings.holdWoken(agent)
  }

  /** A session stopped being live here: let it go. */
  untrack(sessionId: string, how: LetGo = 'released'): void {
    this.holdings.untrack(sessionId, how)
  }

  /** Whether this process holds `sessionId` live. */
  holds(sessionId: string): boolean {
    return this.holdings.holds(sessionId)
  }

  /** Something was appended to a session's log here. */
  onSessionEvent(sessionId: string): void {
    this.holdings.onSessionEvent(sessionId)
  }

  /** Reconcile with the registry, deliver what waits, adopt in a long-lived host. */
  tick(): void {
    if (this.stopped) return
    try {
      this.reconcile()
      const waiting = this.store.waiting()
      for (const sessionId of this.holdings.ids()) {
        if (waiting.has(sessionId)) void this.drain(sessionId)
        else this.onSessionEvent(sessionId)
      }
      if (this.longLived && this.adopt !== undefined) this.adoption.run(this.adopt)
      // Held messages past their expiry are dropped by whichever process looks first (docs/tools.md#inbound-messages).
      for (const approval of this.store.expireApprovals(Date.now())) this.expired?.(approval)
      // A watched turn that ended under a holder that let it go before looking (docs/architecture.md §8, "Notices").
      if (this.longLived) void this.orphans?.run(() => this.watch.poke())
      // A long-lived host sweeps too, not only processes that start.
      if (Date.now() >= this.sweepAfter) {
        this.sweepAfter = Date.now() + SWEEP_EVERY_MS
        this.store.sweep(Date.now(), RETAIN_MS)
      }
    } catch (error: unknown) {
      this.host.log(`the cross-session store could not be read: ${String(error)}`)
    }
  }

  private reconcile(): void {
    const longLived = this.host.longLived()
    if (longLived !== this.longLived) {
      this.longLived = longLived
      this.store.join(longLived)
    }
    const live = this.host.agents.list?.() ?? []
    for (const agent of live) if (!this.holdings.holds(agent.id)) this.track(agent)
    for (const sessionId of this.holdings.ids()) if (this.host.agents.get(sessionId) === undefined) this.untrack(sessionId)
  }

  /** Post now the notices of watched turns of `sessionId` (held here) that ended, once its log is on disk. */
  async lookAtWatches(sessionId: string): Promise<void> {
    await this.holdings.lookAtWatches(sessionId)
  }

  /** Claim and admit, in posting order, every message waiting for `sessionId` (live here). */
  drain(sessionId: string): Promise<void> {
    return this.holdings.drain(sessionId)
  }

  private readonly onExit = (): void => {
    try {
      this.store.leave('exited')
    } catch {
      // The store is gone with the process; its rows are judged by pid + start time.
    }
  }

  /**
   * Stop (plugin disposal). Sessions no longer live here are let go; any
   * still live stay held by this process (their rows are judged by its pid
   * and start time) until it exits or a new runtime reconciles them.
   */
  stop(): void {
    if (this.stopped) return
    for (const sessionId of this.holdings.ids()) if (this.host.agents.get(sessionId) === undefined) this.untrack(sessionId)
    this.stopped = true
    this.holdings.stopped = true
    this.removeListener?.()
    this.stopTimer?.()
    this.watch.stop()
    if (this.holdings.ids().length > 0) return // the exit listener lets them go when the process ends
    this.removeExitHook?.()
    this.store.leave('released')
    this.store.close()
  }
}
