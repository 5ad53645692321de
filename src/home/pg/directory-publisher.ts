/**
 * Publishes this machine's sessions to the shared store's directory
 * (docs/architecture.md §8 "Several machines"), for the other machines'
 * `sessions_list`: each row is a session's header fields, its title and
 * whether it is live on this machine (`home/pg/directory-rows.ts`).
 *
 * - **When**: once at start, soon after this process saw a session change
 *   ({@link DirectoryPublisher.poke}: a session made, ended, or its log
 *   written; at most one publication per {@link PUBLISH_SOON_MS}), and every
 *   {@link PUBLISH_EVERY_MS} for what another process changed unseen.
 * - **What**: a publication writes only what changed since the last one,
 *   and this machine's `inbound` setting (one transaction,
 *   `home/pg/pg-directory.ts` `publish`): a sender on another machine
 *   applies it to this machine's sessions, as a sender here does. What was
 *   published is read from the store at the first publication, after a
 *   failed one and every {@link REREAD_EVERY} publications; between them it
 *   is kept here. Every process of a machine publishes the same sessions,
 *   from the same logs and holders, so they agree.
 * - **Titles** are folded from the logs within {@link TITLE_BUDGET_MS} per
 *   publication, newest first; a session whose title was not reached keeps
 *   the title published before.
 * - A publication that failed (the store out of reach) is said once and
 *   tried again at the next.
 *
 * @module dsh-cross-session/home/pg/directory-publisher
 */

import type { SessionQueryPort } from '../../ports.js'
import { directoryChange, type DirectoryChange, type DirectoryRow } from './directory-rows.js'
import type { InboundMode } from '../../settings/resolve.js'

/** Delay from a change seen to its publication, ms (changes in between go in the same one). */
export const PUBLISH_SOON_MS = 1_000
/** Interval of a publication with no change seen, ms. */
export const PUBLISH_EVERY_MS = 30_000
/** Time to fold titles per publication, ms (`SessionQueryPort.readTitles` `budgetMs`). */
export const TITLE_BUDGET_MS = 250
/** Publications between two reads of what the store holds for this machine. */
export const REREAD_EVERY = 20

/** The store's side of a publication (`home/pg/pg-directory.ts`, off the event loop). */
export interface DirectoryStore {
  published(): Promise<Map<string, DirectoryRow>>
  /** Write `change` and this machine's `inbound` setting, in one transaction. */
  publish(change: DirectoryChange, inbound: InboundMode): Promise<void>
}

/** Publishes this machine's sessions. */
export class DirectoryPublisher {
  private readonly sessions: SessionQueryPort
  private readonly store: DirectoryStore
  private readonly log: (message: string) => void
  private readonly inbound: () => InboundMode
  private readonly stopping = new AbortController()
  private published: Map<string, DirectoryRow> | undefined
  private count = 0
  private soon: ReturnType<typeof setTimeout> | undefined
  private every: ReturnType<typeof setInterval> | undefined
  private running: Promise<void> | undefined
  private again = false
  private failing = false

  /**
   * @param sessions - this machine's sessions (the local port, with presence: `home/query.ts`).
   * @param inbound - this machine's `inbound` setting now (other machines' senders apply it to its sessions).
   */
  constructor(sessions: SessionQueryPort, store: DirectoryStore, log: (message: string) => void, inbound: () => InboundMode) {
    this.sessions = sessions
    this.store = store
    this.log = log
    this.inbound = inbound
  }

  /** Publish now and from then on. */
  start(): void {
    this.every = setInterval(() => void this.publish(), PUBLISH_EVERY_MS)
    this.every.unref?.()
    void this.publish()
  }

  /** A session changed here: publish within {@link PUBLISH_SOON_MS}. */
  poke(): void {
    if (this.soon !== undefined || this.stopping.signal.aborted) return
    this.soon = setTimeout(() => {
      this.soon = undefined
      void this.publish()
    }, PUBLISH_SOON_MS)
    this.soon.unref?.()
  }

  /** Publish no more (what was published stays, listed as not reachable once no process of this machine is). */
  stop(): void {
    this.stopping.abort()
    clearTimeout(this.soon)
    clearInterval(this.every)
  }

  /** One publication; one at a time (a call while one runs makes one more after it). @returns when it is done. */
  async publish(): Promise<void> {
    if (this.stopping.signal.aborted) return
    if (this.running !== undefined) {
      this.again = true
      return await this.running
    }
    this.running = this.once().finally(() => {
      this.running = undefined
      if (this.again) {
        this.again = false
        void this.publish()
      }
    })
    return await this.running
  }

  private async once(): Promise<void> {
    const signal = this.stopping.signal
    try {
      if (this.published === undefined || this.count % REREAD_EVERY === 0) this.published = await this.store.published()
      const before = this.published
      const rows = await this.sessions.listSessions(signal)
      const ids = rows.map(row => row.header.id)
      const titles = await this.sessions.readTitles(ids, signal, { budgetMs: TITLE_BUDGET_MS })
      const next: DirectoryRow[] = rows.map(row => {
        const title = titles.has(row.header.id) ? titles.get(row.header.id) : before.get(row.header.id)?.title
        return { header: row.header, live: row.live, ...(title === undefined ? {} : { title }) }
      })
      const change = directoryChange(before, next)
      await this.store.publish(change, this.inbound())
      this.published = new Map(next.map(row => [row.header.id, row]))
      this.count++
      if (this.failing) this.log('this machine\'s sessions are published again on the shared store')
      this.failing = false
    } catch (error: unknown) {
      this.published = undefined
      if (signal.aborted) return
      if (!this.failing) this.log(`publishing this machine's sessions on the shared store failed: ${String(error)}; tried again later`)
      this.failing = true
    }
  }
}
