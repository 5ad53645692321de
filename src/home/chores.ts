/**
 * The chores of a runtime's tick that do not deliver anything: held
 * messages past their expiry dropped (by whichever process looks first,
 * docs/tools.md#inbound-messages), watched turns that ended under a holder
 * that let go before looking (a long-lived host only, docs/architecture.md
 * §8 "Notices"), and the store's sweep every `SWEEP_EVERY_MS` (a long-lived
 * host sweeps too, not only processes that start).
 *
 * @module dsh-cross-session/home/chores
 */

import type { Approval } from '../ports.js'
import type { OrphanWatches } from './orphan-watches.js'
import { RETAIN_MS, SWEEP_EVERY_MS } from './runtime-clock.js'
import type { HomeStore } from './store.js'

/** The chores of one runtime. */
export class Chores {
  private readonly store: HomeStore
  private readonly orphans: OrphanWatches | undefined
  private sweepAfter = 0

  constructor(store: HomeStore, orphans: OrphanWatches | undefined) {
    this.store = store
    this.orphans = orphans
  }

  /**
   * Run them once. `expired`: told of each held message this process expired; `poke`: after an orphan watch's notice.
   * @throws what the store throws (the tick catches it; the next tick tries again).
   */
  run(longLived: boolean, expired: ((approval: Approval) => void) | undefined, poke: () => void): void {
    for (const approval of this.store.expireApprovals(Date.now())) expired?.(approval)
    if (longLived) void this.orphans?.run(poke)
    if (Date.now() >= this.sweepAfter) {
      this.sweepAfter = Date.now() + SWEEP_EVERY_MS
      this.store.sweep(Date.now(), RETAIN_MS)
    }
  }
}
