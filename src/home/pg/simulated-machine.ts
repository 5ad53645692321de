/**
 * A simulated machine for the PostgreSQL store's worker thread, for tests
 * only (the crash schedules, `test/support/home-schedule.ts`): a process
 * of this machine is judged by its pid + start time with the real `/proc`
 * probe (docs/architecture.md §8 "Several machines", `home/pg/lease.ts`),
 * and a schedule's processes are simulated, with pids the OS never gave
 * out, inside one test process; their clock is the schedule's own.
 *
 * One `SharedArrayBuffer` the test writes and the worker reads
 * (`home/pg/pg-sync-protocol.ts` `PgWorkerData.simulated`): slot 0 is the
 * machine's clock in ms; slot `p` (`1 ≤ p <` {@link SIMULATED_PIDS}) the
 * start time of the living process with pid `p`, `0` when none lives. A
 * pid past the end is dead. The test judges its processes with the real
 * `judgeAlive` (`harness/process-tag.ts`) and writes the verdict here.
 *
 * A process started without one (every process but a test's) uses the
 * real probe and clock: nothing here runs in production.
 *
 * @module dsh-cross-session/home/pg/simulated-machine
 */

import type { ProcessTag } from '../../harness/dsh-home.js'

/** Slots for pids (slot 0 is the clock). */
export const SIMULATED_PIDS = 1 << 17

/** A machine with no process living and its clock at 0. */
export function simulatedMachine(): SharedArrayBuffer {
  return new SharedArrayBuffer(SIMULATED_PIDS * BigInt64Array.BYTES_PER_ELEMENT)
}

/** Set the machine's clock (ms). */
export function setSimulatedClock(machine: SharedArrayBuffer, ms: number): void {
  Atomics.store(new BigInt64Array(machine), 0, BigInt(ms))
}

/** Say whether the process `tag` lives (its start time in its pid's slot) or not (`0`). @throws RangeError for a pid without a slot. */
export function setSimulatedProcess(machine: SharedArrayBuffer, tag: ProcessTag, alive: boolean): void {
  if (!Number.isSafeInteger(tag.pid) || tag.pid < 1 || tag.pid >= SIMULATED_PIDS) throw new RangeError(`no slot for pid ${tag.pid}`)
  Atomics.store(new BigInt64Array(machine), tag.pid, alive ? BigInt(tag.start) : 0n)
}

/**
 * The liveness probe of the machine's processes: alive while its pid's slot holds its start time (any start time
 * when the tag's is unknown, `0`, as `judgeAlive` reads one).
 */
export function simulatedAlive(machine: SharedArrayBuffer): (tag: ProcessTag) => boolean {
  const slots = new BigInt64Array(machine)
  return tag => {
    if (!Number.isSafeInteger(tag.pid) || tag.pid < 1 || tag.pid >= SIMULATED_PIDS) return false
    const start = Atomics.load(slots, tag.pid)
    return start !== 0n && (tag.start === 0 || start === BigInt(tag.start))
  }
}

/** The machine's clock, ms. */
export function simulatedNow(machine: SharedArrayBuffer): () => number {
  const slots = new BigInt64Array(machine)
  return () => Number(Atomics.load(slots, 0))
}
