/**
 * The sessions this process holds live, and the delivery to each: hold a
 * session in the store when it goes live here, claim and admit what waits for
 * it one session at a time in posting order (`home/owner-delivery.ts`), settle
 * each from its log, and record it once the harness has written that log to disk.
 *
 * @module dsh-cross-session/home/holding
 */

import type { HostAgent } from '../harness/host.js'
import type { HoldingHost } from './holding-host.js'
import { isSubagent, readHeader } from '../model/sessions.js'
import { hasFound, settle, type HeldSession } from './owner-delivery.js'
import { persistFound, type FoundRecorder } from './persist-found.js'
import { drainOnce } from './drain-once.js'
import { reofferUnanswered } from './reoffer.js'
import { fireEndedWatches } from './notices.js'
import { PerSession } from './per-session.js'
import type { HoldOutcome, HomeStore, LetGo, StoredMessage } from './store.js'
import { isBusy, StoreUnavailableError } from './store-fault.js'
import { HOLDER_PACE, NO_ABORT, retryStore, STORE_RETRY_MS } from './store-retry.js'
import type { StoreWatch } from './store-watch.js'

export type { HoldingHost } from './holding-host.js'

/** The sessions held live here. */
export class Holdings {
  private readonly store: HomeStore
  private readonly watch: StoreWatch
  private readonly host: HoldingHost
  private readonly held = new Map<string, HeldSession>()
  /** The agent of each session held here, as the registry gave it (kept with {@link held}: no lookup per log append). */
  private readonly agents = new Map<string, HostAgent>()
  /** Claimed here, not yet through {@link admitClaimed}: a store fault among the admissions left them to admit again. */
  private readonly unadmitted = new Map<string, StoredMessage[]>()
  /** Set once the runtime stops: nothing new is held or delivered. */
  stopped = false
  private readonly work = new PerSession((sessionId, error) =>
    this.host.log(`delivering stored messages to ${sessionId} failed: ${String(error)}`))

  private readonly recorder: FoundRecorder

  constructor(store: HomeStore, watch: StoreWatch, host: HoldingHost) {
    this.store = store
    this.watch = watch
    this.host = host
    this.recorder = { store, flush: host.flush, poke: () => watch.poke(), fireWatches: (agent, onDisk) => this.fireWatches(agent, onDisk) }
  }

  /** The ids held live here. */
  ids(): string[] {
    return [...this.held.keys()]
  }

  /** A session went live here: hold it (top-level only) and deliver what waits for it. */
  track(agent: HostAgent): void {
    if (this.held.has(agent.id)) return this.liveAgain(agent)
    if (this.stopped) return
    const header = readHeader(agent.session?.header)
    if (header === undefined || isSubagent(header)) return
    let held: HoldOutcome
    try {
      held = this.store.markLive(agent.id)
    } catch (error: unknown) {
      // Not held until the store takes it: the reconcile tries again (`home/runtime.ts`); an unusable store is said once.
      if (!(error instanceof StoreUnavailableError) && !isBusy(error))
        this.host.log(`holding ${agent.id} in the cross-session store failed (tried again shortly): ${String(error)}`)
      return
    }
    if (!held.ok) {
      this.host.log(`session ${agent.id} is live here and also held by dsh process ${held.holder.tag.pid}; the harness opened it here `
        + `without a wake through this package`)
      return
    }
    // A watched turn may have ended under an earlier holder: look once its log is on disk.
    this.held.set(agent.id,
      { target: agent.id, awaiting: new Set(), found: new Map(), scanned: agent.session.events.length, watchLook: true })
    this.agents.set(agent.id, agent)
    void this.drain(agent.id)
    this.onSessionEvent(agent.id, agent)
  }

  /**
   * A session still held here (its release had failed: the store names this process) is live again in a new agent:
   * what the old one had admitted is read again from the new agent's log, whole, so a message a cut-off turn took and
   * never ran returns to pending; then what waits is delivered before anything newer (per sender→target order).
   */
  private liveAgain(agent: HostAgent): void {
    const previous = this.agents.get(agent.id)
    this.agents.set(agent.id, agent)
    if (previous === undefined || previous === agent) return
    const held = this.held.get(agent.id)!
    held.scanned = 0
    if (settle(this.store, agent, held)) this.watch.poke()
    void this.drain(agent.id)
  }

  /**
   * A session this package woke here (through a send or an adoption): hold
   * it, deliver what waits for it before anything newer, then offer again
   * what its last turn was cut off before answering. The offer's steered
   * notice starts a turn: after the drain (whose claim answers off the event
   * loop, `home/off-loop.ts`), so no turn takes a restored message before an
   * earlier one waiting in the store is admitted in front of it.
   */
  async holdWoken(agent: HostAgent): Promise<void> {
    this.track(agent)
    await this.drain(agent.id)
    if (this.held.has(agent.id)) reofferUnanswered(this.store, agent)
  }

  /** A session stopped being live here: let it go; what it had claimed and not recorded returns to pending. */
  untrack(sessionId: string, how: LetGo = 'released'): void {
    const held = this.held.get(sessionId)
    const agent = this.host.agents.get(sessionId)
    if (held !== undefined && agent !== undefined) settle(this.store, agent, held)
    // Nothing found is recorded here: rc.8 writes a disposed session's log only after `agent/disposed` (`@deepseek-ai/
    // dsh-agent-loop@0.1.0-rc.8` lib/index.js `detachSession`), so it returns to pending and the next holder finds it on disk.
    // The store first: a failed release leaves the session held here, for the reconcile (`home/runtime.ts`) to try again.
    try {
      this.store.release(sessionId, how)
    } catch (error: unknown) {
      this.host.log(`letting go of ${sessionId} in the cross-session store failed (tried again shortly): ${String(error)}`)
      return
    }
    this.held.delete(sessionId)
    this.agents.delete(sessionId)
    this.unadmitted.delete(sessionId)
    this.watch.poke()
  }

  /** Whether this process holds `sessionId` live. */
  holds(sessionId: string): boolean {
    return this.held.has(sessionId)
  }

  /** What `sessionId`'s log is to record (a local send adds the message it admits), or `undefined` when not held here (or stopped). */
  awaited(sessionId: string): Set<string> | undefined {
    return this.stopped ? undefined : this.held.get(sessionId)?.awaiting
  }

  /** Something was appended to a session's log here; `live`: its agent, when the caller has it (a tick's listing). */
  onSessionEvent(sessionId: string, live?: HostAgent): void {
    const held = this.held.get(sessionId)
    const agent = held === undefined ? undefined : live ?? this.agents.get(sessionId) ?? this.host.agents.get(sessionId)
    if (held === undefined || agent === undefined) return
    if (settle(this.store, agent, held)) this.watch.poke()
    if (hasFound(held)) this.persistFound(sessionId)
  }

  /**
   * Claim and admit, in posting order, every message waiting for `sessionId`
   * (which must be live here and held). Resolves once all are admitted.
   */
  drain(sessionId: string): Promise<void> {
    // A store locked by another process is tried again with the event loop free (docs/architecture.md §8, "When the store fails").
    return this.work.queue(sessionId, () => retryStore(() => this.drainNow(sessionId), NO_ABORT, STORE_RETRY_MS, HOLDER_PACE))
  }

  private async drainNow(sessionId: string): Promise<void> {
    const heldNow = (id: string): HeldSession | undefined => this.stopped ? undefined : this.held.get(id)
    if (heldNow(sessionId) === undefined || !await drainOnce(this.store, this.host, sessionId, heldNow, this.unadmitted)) return
    const held = this.held.get(sessionId)
    if (held === undefined) return
    if (hasFound(held)) this.persistFound(sessionId)
    this.watch.poke()
  }

  /** Flush `sessionId`'s log and post the notices of its watched turns that ended (a process about to end). */
  async lookAtWatches(sessionId: string): Promise<void> {
    // The store first: most sessions have no watch, and then no registry lookup is made.
    if (!this.held.has(sessionId) || !this.store.watchedTargets().has(sessionId)) return
    const agent = this.host.agents.get(sessionId)
    if (agent === undefined) return
    const onDisk = agent.session.events.length
    await this.host.flush?.(agent)
    this.fireWatches(agent, onDisk)
  }

  /** Post the notices of watches on `agent` whose turn ended in its first `onDisk` events; deliver at once to a sender held here. */
  private fireWatches(agent: HostAgent, onDisk: number): void {
    const senders = fireEndedWatches(this.store, agent, onDisk)
    if (senders.length === 0) return
    this.watch.poke()
    for (const sender of senders) if (this.held.has(sender)) void this.drain(sender)
  }

  /**
   * Record what was found in `sessionId`'s log once the harness has written
   * it to disk (./persist-found.ts); one flush at a time per session. A failed
   * flush is reported and left for the next tick.
   */
  private persistFound(sessionId: string): void {
    this.work.coalesce(sessionId, async () => {
      const held = this.held.get(sessionId)
      const agent = this.agents.get(sessionId) ?? this.host.agents.get(sessionId)
      if (held !== undefined && agent !== undefined && hasFound(held)) await persistFound(this.recorder, held, agent)
    })
  }
}
