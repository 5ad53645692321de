/**
 * Liveness across machines (docs/architecture.md §8 "Several machines"):
 * a pid means nothing on another machine, so each process of this package
 * holds a lease on the PostgreSQL store, renewed by heartbeat and judged by
 * the database's clock (`clock_timestamp()`), never a machine's own. A
 * process of another machine is alive while its lease is. A process of
 * this machine is judged as on one machine, by its pid + start time
 * (`harness/process-tag.ts`): dead at once when it is gone, and never taken
 * for dead while it runs (a process that cannot reach the server to renew
 * still holds its sessions open here; only its own machine can hold them).
 *
 * Pure.
 *
 * @module dsh-cross-session/home/pg/lease
 */

import type { ProcessTag } from '../../harness/dsh-home.js'

/** How long a lease lasts from its last renewal, ms: a vanished machine's holds and claims are free after this. */
export const LEASE_MS = 15_000

/** How often a living process renews its lease, ms: three renewals may fail before it lapses. */
export const RENEW_MS = 5_000

/** A process of some machine: the machine's id and the process's pid + start time there. */
export interface MachineTag extends ProcessTag {
  readonly machine: string
}

/** A process as a holder row names it, with whether its lease was unexpired by the database's clock when read. */
export interface NamedProcess {
  readonly tag: MachineTag
  readonly leased: boolean
}

/**
 * Whether a process a row names is alive, as `self` judges it: of `self`'s
 * machine, when `aliveHere` (the pid + start probe) says it runs; of another
 * machine, while its lease is unexpired.
 */
export function isAlive(named: NamedProcess, self: MachineTag, aliveHere: (tag: ProcessTag) => boolean): boolean {
  return named.tag.machine === self.machine ? aliveHere(named.tag) : named.leased
}

/** Whether two tags name the same process of the same machine. */
export function sameProcess(a: MachineTag | undefined, b: MachineTag | undefined): boolean {
  return a !== undefined && b !== undefined && a.machine === b.machine && a.pid === b.pid && a.start === b.start
}
