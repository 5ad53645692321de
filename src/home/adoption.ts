/**
 * A long-lived host adopts sessions that have messages waiting and no living
 * holder: it wakes them here (through the guarded wake), so a message handed
 * over by a short-lived process, or left by a holder that died, is
 * delivered and answered. A session it could not wake is tried again after
 * {@link ADOPT_RETRY_MS}. A subagent is never woken for what waits for it
 * (no process holds one: rc.8's `subagent` tool runs it inside its owner's
 * turn); what waits for it is refused as misaddressed.
 *
 * @module dsh-cross-session/home/adoption
 */

import type { HomeStore } from './store.js'
import type { SessionQueryPort } from '../ports.js'
import { isSubagent } from '../model/sessions.js'

/** How long a long-lived host waits before trying again to adopt a session it could not wake, ms. */
export const ADOPT_RETRY_MS = 30_000

/** The adoptions of one process. */
export class Adoption {
  private readonly after = new Map<string, number>()
  private readonly store: HomeStore
  private readonly isLive: (sessionId: string) => boolean
  private readonly log: (message: string) => void

  constructor(store: HomeStore, isLive: (sessionId: string) => boolean, log: (message: string) => void) {
    this.store = store
    this.isLive = isLive
    this.log = log
  }

  /** Wake, with `wake`, each adoptable session not live here and not waiting for a retry. */
  run(wake: (sessionId: string) => Promise<boolean>, now: number = Date.now()): void {
    for (const sessionId of this.store.adoptable()) {
      if ((this.after.get(sessionId) ?? 0) > now || this.isLive(sessionId)) continue
      this.after.set(sessionId, now + ADOPT_RETRY_MS)
      void wake(sessionId).then(woke => {
        if (woke) this.after.delete(sessionId)
      }, (error: unknown) => this.log(`waking ${sessionId} for its waiting messages failed: ${String(error)}`))
    }
  }
}

/**
 * Wrap the adoption's wake so a subagent is never woken: what waits for one
 * (a notice to a subagent that sent with `notify` before that was refused)
 * is refused `misaddressed` instead.
 */
export function topLevelOnly(wake: (sessionId: string) => Promise<boolean>, sessions: Pick<SessionQueryPort, 'lookup'>,
  store: Pick<HomeStore, 'refuseWaiting'>): (sessionId: string) => Promise<boolean> {
  return async sessionId => {
    const record = await sessions.lookup(sessionId, new AbortController().signal)
    if (record === undefined || !isSubagent(record.header)) return await wake(sessionId)
    store.refuseWaiting(sessionId, 'misaddressed')
    return false
  }
}
