/**
 * One process's side of the home: it holds, in the store, every top-level
 * session live here; claims and delivers the messages addressed to them;
 * settles each from the session's log; and, in a long-lived host, adopts
 * sessions that have messages waiting and no living holder (it wakes them
 * here, so a message handed over by a short-lived process is answered).
 *
 * What it reacts to: `agent/created` / `agent/disposed` and `session/event`
 * (wired in `home/mount.ts`), changes of the store by other processes
 * (`home/store-watch.ts`), and a reconcile with `agents.list()` on each of
 * those ticks, which also covers sessions a preset-scoped mount is not told
 * about. Per session, claims and admissions run one at a time in claim
 * (posting) order.
 *
 * @module dsh-cross-session/home/runtime
 */

import type { HostAgent, HostAgents } from '../host.js'
import { isSubagent, readHeader } from '../sessions.js'
import { admitClaimed, reofferUnanswered, settle, type HeldSession } from './owner-delivery.js'
import type { HomeStore, LetGo } from './store.js'
import type { StoreWatch } from './store-watch.js'

/** How long recorded and refused messages stay in the store (their senders have long read them), ms. */
export const RETAIN_MS = 60 * 60_000
/** Interval of the reconcile with the registry (sessions a preset-scoped mount is not told about), ms. */
const RECONCILE_MS = 2000
/** How long a long-lived host waits before trying again to adopt a session it could not wake, ms. */
const ADOPT_RETRY_MS = 30_000

/** What the runtime needs from its process. */
export interface RuntimeHost {
  readonly agents: HostAgents
  readonly log: (message: string) => void
  /** Whether this process is a long-lived host (`dsh web`), asked on each tick. */
  readonly longLived: () => boolean
}

/** The home runtime of one process. */
export class HomeRuntime {
  readonly store: HomeStore
  readonly watch: StoreWatch
  private readonly host: RuntimeHost
  private readonly held = new Map<string, HeldSession>()
  private readonly chains = new Map<string, Promise<void>>()
  private readonly adoptAfter = new Map<string, number>()
  private longLived = false
  private stopped = false
  private removeListener: (() => void) | undefined
  private timer: ReturnType<typeof setInterval> | undefined
  /** Wakes a session here for adoption (set by the guard: the guarded wake). */
  adopt: ((sessionId: string) => Promise<boolean>) | undefined

  constructor(store: HomeStore, watch: StoreWatch, host: RuntimeHost) {
    this.store = store
    this.watch = watch
    this.host = host
  }

  /** Whether this process is a long-lived host (as of the last tick). */
  get isLongLived(): boolean {
    return this.longLived
  }

  /** Join the store, sweep, hold the sessions live now, start reacting to changes. */
  start(): void {
    this.longLived = this.host.longLived()
    this.store.join(this.longLived)
    this.store.sweep(Date.now(), RETAIN_MS)
    // Rows an earlier runtime of this process left (a plugin reload) for sessions no longer live here.
    for (const sessionId of this.store.heldHere()) if (this.host.agents.get(sessionId) === undefined) this.store.release(sessionId, 'released')
    // Claims an earlier runtime of this process left in flight are delivered again, after the log check.
    this.store.unclaimAll()
    process.once('exit', this.onExit)
    this.removeListener = this.watch.listen(() => this.tick())
    this.timer = setInterval(() => this.tick(), RECONCILE_MS)
    this.timer.unref?.()
    this.tick()
  }

  /** A session went live here: hold it (top-level only) and deliver what waits for it. */
  track(agent: HostAgent): void {
    if (this.stopped || this.held.has(agent.id)) return
    const header = readHeader(agent.session?.header)
    if (header === undefined || isSubagent(header)) return
    const held = this.store.markLive(agent.id)
    if (!held.ok) {
      this.host.log(`session ${agent.id} is live here and also held by dsh process ${held.holder.tag.pid}; the harness opened it here without a wake through this package`)
      return
    }
    this.held.set(agent.id, { awaiting: new Set(), scanned: agent.session.events.length })
    void this.drain(agent.id)
  }

  /**
   * A session this package woke here (through a send or an adoption): hold
   * it, offer again what its last turn was cut off before answering, then
   * deliver what waits for it before anything newer.
   */
  async holdWoken(agent: HostAgent): Promise<void> {
    this.track(agent)
    if (this.held.has(agent.id)) reofferUnanswered(this.store, agent)
    await this.drain(agent.id)
  }

  /** A session stopped being live here: let it go; what it had claimed and not recorded returns to pending. */
  untrack(sessionId: string, how: LetGo = 'released'): void {
    const held = this.held.get(sessionId)
    const agent = this.host.agents.get(sessionId)
    if (held !== undefined && agent !== undefined) settle(this.store, agent, held)
    this.held.delete(sessionId)
    this.store.release(sessionId, how)
    this.watch.poke()
  }

  /** Whether this process holds `sessionId` live. */
  holds(sessionId: string): boolean {
    return this.held.has(sessionId)
  }

  /** Something was appended to a session's log here. */
  onSessionEvent(sessionId: string): void {
    const held = this.held.get(sessionId)
    const agent = held === undefined ? undefined : this.host.agents.get(sessionId)
    if (held !== undefined && agent !== undefined && settle(this.store, agent, held)) this.watch.poke()
  }

  /** Reconcile with the registry, deliver what waits, adopt in a long-lived host. */
  tick(): void {
    if (this.stopped) return
    try {
      this.reconcile()
      const waiting = this.store.waiting()
      for (const sessionId of this.held.keys()) {
        if (waiting.has(sessionId)) void this.drain(sessionId)
        else this.onSessionEvent(sessionId)
      }
      if (this.longLived && this.adopt !== undefined) this.adoptWaiting()
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
    for (const agent of live) if (!this.held.has(agent.id)) this.track(agent)
    for (const sessionId of [...this.held.keys()]) if (this.host.agents.get(sessionId) === undefined) this.untrack(sessionId)
  }

  private adoptWaiting(): void {
    const now = Date.now()
    for (const sessionId of this.store.adoptable()) {
      if ((this.adoptAfter.get(sessionId) ?? 0) > now || this.host.agents.get(sessionId) !== undefined) continue
      this.adoptAfter.set(sessionId, now + ADOPT_RETRY_MS)
      void this.adopt!(sessionId).then(woke => {
        if (woke) this.adoptAfter.delete(sessionId)
      }, (error: unknown) => this.host.log(`waking ${sessionId} for its waiting messages failed: ${String(error)}`))
    }
  }

  /**
   * Claim and admit, in posting order, every message waiting for `sessionId`
   * (which must be live here and held). Resolves once all are admitted.
   */
  drain(sessionId: string): Promise<void> {
    const previous = this.chains.get(sessionId) ?? Promise.resolve()
    const next = previous.then(() => this.drainNow(sessionId)).catch((error: unknown) => {
      this.host.log(`delivering stored messages to ${sessionId} failed: ${String(error)}`)
    })
    this.chains.set(sessionId, next)
    void next.finally(() => {
      if (this.chains.get(sessionId) === next) this.chains.delete(sessionId)
    })
    return next
  }

  private drainNow(sessionId: string): void {
    const held = this.held.get(sessionId)
    const agent = this.host.agents.get(sessionId)
    if (this.stopped || held === undefined || agent === undefined) return
    const claimed = this.store.claim(sessionId)
    if (claimed.length === 0) return
    for (const messageId of admitClaimed(this.store, agent, claimed, this.host.log)) held.awaiting.add(messageId)
    settle(this.store, agent, held)
    this.watch.poke()
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
    for (const sessionId of [...this.held.keys()]) if (this.host.agents.get(sessionId) === undefined) this.untrack(sessionId)
    this.stopped = true
    this.removeListener?.()
    if (this.timer !== undefined) clearInterval(this.timer)
    this.watch.stop()
    if (this.held.size > 0) return // the exit listener lets them go when the process ends
    process.removeListener('exit', this.onExit)
    this.store.leave('released')
    this.store.close()
  }
}
