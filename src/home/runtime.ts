/**
 * One process's side of the home (issue 8 §1, §3, §4): publishes presence for
 * every top-level session live here, watches the mailbox, and claims and
 * delivers the messages addressed to sessions it holds.
 *
 * Delivery of a claimed message is the same as a local send's admission
 * (`followup` for `queue`, `steer` for `steer`, the user message id being the
 * sender's request id), after the sender ran every check of a local send.
 * Per session, claims and admissions run one at a time in posting order, so
 * pending messages reach the session before any newer one. Before admitting,
 * the session's log is searched for the request id: a message re-claimed
 * after a crash, or a retried call, is never delivered twice.
 *
 * @module dsh-cross-session/home/runtime
 */

import { join } from 'node:path'
import type { HostAgent, HostAgents } from '../host.js'
import { isSubagent, readHeader } from '../sessions.js'
import type { Lease } from './lease.js'
import { claim, listMailbox, type MailboxEntry } from './mailbox.js'
import { admitClaimed } from './owner-delivery.js'
import { ensureLayout, layoutOf, unlinkQuietly, type HomeLayout, type ProcessTag } from './paths.js'
import { judgePresence, PresencePublisher, readBoard, type Elsewhere } from './presence.js'
import { isAlive, selfTag } from './process-tag.js'
import { sweep } from './sweep.js'
import { watchDirectory } from './watch.js'

/** Fallback poll of the mailbox when `fs.watch` misses an event, ms. */
const MAILBOX_POLL_MS = 2000

/** What the board says about one session. */
interface BoardView {
  /** Sessions live in another, living process. */
  readonly elsewhere: Map<string, Elsewhere>
  /** Sessions with an entry of a dead process (their writer is known gone). */
  readonly deadHolders: Set<string>
}

/** Pure: the mailbox entries this process should claim now for `sessionId`. */
export function claimable(entries: readonly MailboxEntry[], sessionId: string, alive: (tag: ProcessTag) => boolean): MailboxEntry[] {
  return entries.filter(entry => entry.sessionId === sessionId
    && (entry.state === 'pending' || (entry.claimer !== undefined && !alive(entry.claimer))))
}

/** The home runtime of one process. */
export class HomeRuntime {
  readonly layout: HomeLayout
  readonly self: ProcessTag = selfTag()
  readonly publisher: PresencePublisher
  private readonly leases = new Map<string, Lease>()
  private readonly chains = new Map<string, Promise<void>>()
  private readonly lifetime = new AbortController()
  private stopWatch: (() => void) | undefined
  private readonly agents: HostAgents
  private readonly log: (message: string) => void

  constructor(home: string, agents: HostAgents, log: (message: string) => void) {
    this.agents = agents
    this.log = log
    this.layout = layoutOf(home)
    this.publisher = new PresencePublisher(this.layout.presence, this.self)
  }

  /** Create the layout, sweep old leftovers, publish `initial` agents, start watching the mailbox. */
  start(initial: readonly HostAgent[]): void {
    ensureLayout(this.layout)
    sweep(this.layout, Date.now())
    // A normal exit withdraws presence even if the plugin is never disposed.
    process.once('exit', this.onExit)
    for (const agent of initial) this.track(agent)
    this.stopWatch = watchDirectory(this.layout.mailbox, MAILBOX_POLL_MS, () => this.scan())
    this.scan()
  }

  /** A session went live here: publish it (top-level only) and deliver what waits for it. */
  track(agent: HostAgent): void {
    const header = readHeader(agent.session?.header)
    if (header === undefined || isSubagent(header)) return
    try {
      this.publisher.publish(agent.id)
    } catch (error: unknown) {
      this.log(`publishing presence of ${agent.id} failed: ${String(error)}`)
      return
    }
    this.scan()
  }

  /** A session stopped being live here: withdraw it and release its wake lease. */
  untrack(sessionId: string): void {
    this.publisher.withdraw(sessionId)
    this.leases.get(sessionId)?.release()
    this.leases.delete(sessionId)
  }

  /** Keep `lease` until the session is no longer live here. */
  holdLease(lease: Lease): void {
    this.leases.get(lease.sessionId)?.release()
    this.leases.set(lease.sessionId, lease)
  }

  /** Release a lease without a session (a wake that failed). */
  dropLease(sessionId: string): void {
    this.untrack(sessionId)
  }

  /** One directory read: who holds what elsewhere, and whose holder died. */
  board(): BoardView {
    const { elsewhere, stale } = judgePresence(readBoard(this.layout.presence), this.self, isAlive)
    return { elsewhere, deadHolders: new Set(stale.map(entry => entry.sessionId)) }
  }

  /** Remove dead processes' entries of `sessionId` (after this process took it over). */
  clearStale(sessionId: string): void {
    for (const entry of readBoard(this.layout.presence)) {
      if (entry.sessionId === sessionId && !isAlive(entry.holder)) unlinkQuietly(join(this.layout.presence, entry.name))
    }
  }

  /** Look for messages for sessions held here; deliver them. */
  scan(): void {
    if (this.lifetime.signal.aborted) return
    const entries = listMailbox(this.layout.mailbox)
    const sessions = new Set(entries.map(entry => entry.sessionId))
    for (const sessionId of sessions) {
      if (this.publisher.holds(sessionId) && claimable(entries, sessionId, isAlive).length > 0) void this.drain(sessionId)
    }
  }

  /**
   * Claim and admit, in posting order, every message waiting for `sessionId`
   * (which must be live here). Resolves once all are admitted (not recorded).
   */
  drain(sessionId: string): Promise<void> {
    const previous = this.chains.get(sessionId) ?? Promise.resolve()
    const next = previous.then(() => this.drainNow(sessionId)).catch((error: unknown) => {
      this.log(`delivering mailbox messages to ${sessionId} failed: ${String(error)}`)
    })
    this.chains.set(sessionId, next)
    void next.finally(() => {
      if (this.chains.get(sessionId) === next) this.chains.delete(sessionId)
    })
    return next
  }

  private async drainNow(sessionId: string): Promise<void> {
    if (this.lifetime.signal.aborted) return
    const waiting = claimable(listMailbox(this.layout.mailbox), sessionId, isAlive)
    // Nothing waiting (the usual case after a wake): no registry lookup at all.
    if (waiting.length === 0 || this.agents.get(sessionId) === undefined) return
    for (const entry of waiting) {
      const claimed = claim(this.layout.mailbox, entry, this.self)
      if (claimed !== undefined) admitClaimed({ layout: this.layout, agents: this.agents, log: this.log, signal: this.lifetime.signal }, sessionId, entry, claimed)
    }
  }

  private readonly onExit = (): void => this.stop()

  /** Stop watching, withdraw presence, release leases (plugin disposal). */
  stop(): void {
    process.removeListener('exit', this.onExit)
    this.lifetime.abort()
    this.stopWatch?.()
    this.publisher.withdrawAll()
    for (const lease of this.leases.values()) lease.release()
    this.leases.clear()
  }
}
