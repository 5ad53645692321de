/**
 * Watches on sessions nobody holds (docs/architecture.md §8, "Notices"): a
 * holder that let the target go (it exited, or was SIGKILLed) after the
 * watched turn ended but before it looked at the watches leaves them
 * `watching`, and the holder that would look next may never come (nothing
 * wakes a session for a watch). A long-lived host therefore reads the log
 * on disk of each watched session without a living holder, at most once per
 * {@link ORPHAN_LOOK_MS} (backing off to {@link ORPHAN_LOOK_MAX_MS}), and fires the watches whose turn ended there
 * (`home/notices.ts` `fireEndedWatches`: one transaction per watch, so a
 * second look, or a holder looking at the same time, posts nothing more).
 * Nothing is woken; the log is read as rc.8 persisted it
 * (`sessionPersistence.readFrom`).
 *
 * @module dsh-cross-session/home/orphan-watches
 */

import type { HostAgent } from '../harness/host.js'
import { fireEndedWatches } from './notices.js'
import type { HomeStore } from './store.js'

/**
 * How soon one watched session without a living holder has its log read again, ms; doubled after each look that posts
 * nothing, up to {@link ORPHAN_LOOK_MAX_MS}.
 */
export const ORPHAN_LOOK_MS = 30_000
/** The longest wait between two looks at one session (a watch whose message never arrived waits out its expiry), ms. */
export const ORPHAN_LOOK_MAX_MS = 10 * 60_000

/** The log of one session as persisted (`sessionPersistence.readFrom(id, 0)`). */
export type ListEvents = (sessionId: string) => Promise<readonly unknown[]>

/** The looks of one long-lived process. */
export class OrphanWatches {
  private readonly after = new Map<string, { at: number, every: number }>()
  /** Sessions whose log could not be read, logged once each. */
  private readonly unreadable = new Set<string>()
  private readonly store: HomeStore
  private readonly listEvents: ListEvents
  private readonly log: (message: string) => void

  constructor(store: HomeStore, listEvents: ListEvents, log: (message: string) => void) {
    this.store = store
    this.listEvents = listEvents
    this.log = log
  }

  /**
   * Look at each watched session that nobody living holds and that was not
   * looked at in the last {@link ORPHAN_LOOK_MS}.
   * @param posted - called when notices were posted (to wake their deliverers).
   * @returns resolves when every look started here has finished.
   */
  run(posted: () => void, now: number = Date.now()): Promise<void> {
    const looks: Array<Promise<void>> = []
    const targets = this.store.watchedTargets()
    for (const target of this.after.keys()) if (!targets.has(target)) this.after.delete(target)
    for (const target of targets) {
      const last = this.after.get(target)
      if ((last?.at ?? 0) > now || this.store.view(target).holder !== undefined) continue
      const every = last === undefined ? ORPHAN_LOOK_MS : Math.min(last.every * 2, ORPHAN_LOOK_MAX_MS)
      this.after.set(target, { at: now + every, every })
      looks.push(this.listEvents(target).then(events => {
        // Nobody holds it: its log on disk is all there is.
        if (this.store.view(target).holder !== undefined) return
        const agent = { id: target, session: { events } } as unknown as HostAgent
        if (fireEndedWatches(this.store, agent).length > 0) posted()
      }).catch((error: unknown) => {
        // A deleted session stays unreadable until its watches expire: say so once, not every look.
        if (this.unreadable.has(target)) return
        this.unreadable.add(target)
        this.log(`reading the log of ${target} for its notices failed: ${String(error)}`)
      }))
    }
    return Promise.all(looks).then(() => undefined)
  }
}
