/**
 * The gate of a headless run's own session (./run-task.ts): a session held
 * here that this package did not wake (the store's holder row says who woke
 * it) takes no stored messages while the run lives; each message kept out
 * is told once on stderr.
 *
 * @module dsh-cross-session/home/run-hold
 */

import { keptLine, takesStored } from './run-task.js'
import type { HomeStore } from './store.js'

/** The sessions held here that take no stored messages while this run lives. */
export class RunTaskGate {
  private readonly told = new Set<string>()
  private readonly store: Pick<HomeStore, 'pendingFor' | 'view' | 'self'>
  private readonly headlessRun: () => boolean
  private readonly say: (line: string) => void

  /**
   * @param headlessRun - whether this process is an rc.8 one-shot run, asked per use.
   * @param say - writes one line for the terminal (stderr), apart from the run's answer.
   */
  constructor(store: Pick<HomeStore, 'pendingFor' | 'view' | 'self'>, headlessRun: () => boolean, say: (line: string) => void) {
    this.store = store
    this.headlessRun = headlessRun
    this.say = say
  }

  /** Whether `sessionId` is held here as the run's own task session (it takes nothing from the store now). */
  keeps(sessionId: string): boolean {
    if (!this.headlessRun()) return false
    const holder = this.store.view(sessionId).holder
    if (holder?.tag.pid !== this.store.self.pid || holder.tag.start !== this.store.self.start) return false
    return !takesStored({ headlessRun: true, wokenHere: holder.woke })
  }

  /** Whether `sessionId` takes stored messages now; when not, each pending one is told once and stays pending. */
  admits(sessionId: string): boolean {
    if (!this.keeps(sessionId)) return true
    for (const message of this.store.pendingFor(sessionId)) {
      if (this.told.has(message.messageId)) continue
      this.told.add(message.messageId)
      this.say(keptLine(sessionId, message))
    }
    return false
  }
}
