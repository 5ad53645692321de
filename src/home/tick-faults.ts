/**
 * The faults of a step the runtime repeats on a timer (its tick, every 2 s
 * and after each commit of another process), said once: a fault is logged
 * when its text is new, and once more when a later run succeeds. A full
 * disk would otherwise write the same line to the log every tick. A store
 * that cannot be used at all is said by the supervisor
 * (`home/store-supervisor.ts`), and another process's lock is no fault to
 * tell: neither is logged here (docs/architecture.md §8, "When the store
 * fails").
 *
 * @module dsh-cross-session/home/tick-faults
 */

import { isBusy, StoreUnavailableError } from './store-fault.js'

/** Runs a repeated step and logs its faults once each. */
export class TickFaults {
  private said: string | undefined
  private readonly log: (line: string) => void

  constructor(log: (line: string) => void) {
    this.log = log
  }

  /** Run `step`; what it throws is caught (the next run tries again) and logged when it is news. Never throws. */
  run(step: () => void): void {
    try {
      step()
    } catch (error: unknown) {
      if (error instanceof StoreUnavailableError || isBusy(error)) return
      const text = String(error)
      if (text === this.said) return
      this.said = text
      this.log(`the cross-session store could not be read: ${text} (said once; every tick tries again)`)
      return
    }
    if (this.said === undefined) return
    this.said = undefined
    this.log('the cross-session store can be read again')
  }
}
