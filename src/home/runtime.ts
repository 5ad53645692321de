/**
 * One process's side of the home: it holds, in the store, every top-level session
 * live here; claims and delivers the messages addressed to them
 * (`home/owner-delivery.ts`), one session at a time in posting order; records
 * each once the harness has written its log; and, in a long-lived host, adopts
 * sessions with messages waiting and no living holder (`home/adoption.ts`). It
 * reacts to `agent/created` / `agent/disposed` / `session/event`
 * (`home/mount.ts`), to other processes' commits (`home/store-watch.ts`), and
 * reconciles with `agents.list()` every 2 s (a preset-scoped mount is not told about every session).
 *
 * @module dsh-cross-session/home/runtime
 */

import type { HostAgent } from '../harness/host.js'
import { Holdings, type HoldingHost } from './holding.js'
import { Adoption } from './adoption.js'
import { OrphanWatches, type ListEvents } from './orphan-watches.js'
import type { HomeStore, LetGo } from './store.js'
import type { Approval } from '../ports.js'
import type { StoreWatch } from './store-watch.js'
import { isBusy, storeFaultWhy } from './store-fault.js'
import { retryInBackground } from './store-retry.js'
import { holdAgain, joinStore, leaveStore } from './join.js'
import { PROCESS_CLOCK, RECONCILE_MS, type RuntimeClock } from './runtime-clock.js'
import { Chores } from './chores.js'
import { TickFaults } from './tick-faults.js'
import { withoutLockWait } from './lock-patience.js'
import { reconcileLive } from './reconcile.js'

export { RETAIN_MS } from './runtime-clock.js'

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
  private readonly chores: Chores
  private readonly tickFaults: TickFaults
  private longLived = false
  private stopped = false
  private removeListener: (() => void) | undefined
  private stopTimer: (() => void) | undefined
  private removeExitHook: (() => void) | undefined
  /** Joined the store since {@link start}: until then its claims of an earlier runtime of this process are not returned. */
  private joined = false
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
    this.tickFaults = new TickFaults(host.log)
    this.chores = new Chores(store, host.listEvents === undefined ? undefined : new OrphanWatches(store, host.listEvents, host.log))
  }

  /** Whether this process is a long-lived host (asked now; the store learns it on the next tick). */
  get isLongLived(): boolean {
    return this.host.longLived()
  }

  /** Join the store (one unusable now is joined once it can be: {@link rejoin}), hold what is live, start reacting. */
  start(): void {
    this.longLived = this.host.longLived()
    try {
      withoutLockWait(() => this.join()) // a lock is waited out in the background, not on the event loop
    } catch (error: unknown) {
      if (storeFaultWhy(error) === undefined) throw error
      // Locked by another process now: joined once it lets go, unless `rejoin` did first (an unusable store: on `opened`).
      // Any other fault (a full disk): each tick tries again, so the claims an earlier runtime left never stay stuck.
      if (isBusy(error)) retryInBackground(() => this.join(), () => !this.stopped && !this.joined, this.host.log)
    }
    const clock = this.host.clock ?? PROCESS_CLOCK
    this.removeExitHook = clock.atExit(this.onExit)
    this.removeListener = this.watch.listen(() => this.tick())
    this.stopTimer = clock.every(RECONCILE_MS, () => this.tick())
    this.tick()
  }

  /** The store can be used again, or its file was replaced: join it, hold again what is held here, deliver what waits. */
  rejoin(): void {
    if (this.stopped) return
    try {
      this.join()
      holdAgain(this.store, this.holdings.ids(), this.host.log)
    } catch (error: unknown) {
      this.host.log(`joining the cross-session store failed: ${String(error)}`)
    }
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

  /** What `sessionId`'s log is to record, when it is held here (a local send adds the message it admits). */
  awaited(sessionId: string): Set<string> | undefined {
    return this.holdings.awaited(sessionId)
  }

  /** Something was appended to a session's log here. */
  onSessionEvent(sessionId: string): void {
    this.holdings.onSessionEvent(sessionId)
  }

  /** Reconcile with the registry, deliver what waits, adopt in a long-lived host. */
  tick(): void {
    if (this.stopped) return
    // A fault (a locked store among them: no lock is waited for here, ./lock-patience.ts) is caught, said once, tried again.
    this.tickFaults.run(() => withoutLockWait(() => {
      if (!this.joined) this.join()
      const live = this.reconcile()
      const waiting = this.store.waiting()
      for (const sessionId of this.holdings.ids()) {
        if (waiting.has(sessionId)) void this.drain(sessionId)
        else this.holdings.onSessionEvent(sessionId, live?.get(sessionId))
      }
      if (this.longLived && this.adopt !== undefined) this.adoption.run(this.adopt)
      this.chores.run(this.longLived, this.expired, () => this.watch.poke())
    }))
  }

  /** Join the store: what this process held and claimed before (an earlier runtime of it) is let go (./join.ts). */
  private join(): void {
    joinStore(this.store, this.longLived, sessionId => this.host.agents.get(sessionId) !== undefined)
    this.joined = true
  }

  /** Learn whether this process is long-lived now; then the registry diff (./reconcile.ts). */
  private reconcile(): Map<string, HostAgent> | undefined {
    const longLived = this.host.longLived()
    if (longLived !== this.longLived) {
      this.longLived = longLived
      this.store.join(longLived)
    }
    return reconcileLive(this.holdings, this.host.agents)
  }

  /** Post now the notices of watched turns of `sessionId` (held here) that ended, once its log is on disk. */
  async lookAtWatches(sessionId: string): Promise<void> {
    await this.holdings.lookAtWatches(sessionId)
  }

  /** Claim and admit, in posting order, every message waiting for `sessionId` (live here). */
  drain(sessionId: string): Promise<void> {
    return this.holdings.drain(sessionId)
  }

  // A store gone with the process is left as it is: its rows are judged by pid + start time.
  private readonly onExit = (): void => void leaveStore(this.store, 'exited')

  /** Stop (plugin disposal): let go of sessions no longer live here; live ones stay held (pid + start) until exit or a reconcile. */
  stop(): void {
    if (this.stopped) return
    for (const sessionId of this.holdings.ids()) if (this.host.agents.get(sessionId) === undefined) this.untrack(sessionId)
    this.stopped = true
    this.holdings.stopped = true
    this.removeListener?.()
    this.stopTimer?.()
    this.watch.stop()
    if (this.holdings.ids().length > 0) return // the exit listener lets them go when the process ends
    // A store that cannot be written now: the exit listener tries again when the process ends.
    const failed = leaveStore(this.store, 'released')
    if (failed !== undefined) return this.host.log(`letting go of the cross-session store failed: ${String(failed)}`)
    this.removeExitHook?.()
    this.store.close()
  }
}
