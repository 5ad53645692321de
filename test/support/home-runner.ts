/**
 * Child process of test/unit/home-schedule.test.ts: runs the schedules over
 * the shipped home code (test/support/home-schedule.ts) of the seeds it is
 * given, on store files of its own, and prints one JSON line
 * (`HomeSeedsSummary`). It stops between two store files once its parent
 * is gone.
 *
 * Usage: node --import tsx test/support/home-runner.ts <home> <first seed> <count> <steps> [fault] [off-loop]
 * @module test/support/home-runner
 */
import { runHomeSeeds, type StoreFault } from './home-schedule.js'

const [home, from, count, steps, fault, mode] = process.argv.slice(2)
const parent = process.ppid
// Orphaned (the test run was killed): stop instead of filling the disk with schedules nobody reads.
const between = (): void => {
  if (process.ppid !== parent) process.exit(2)
}
const summary = await runHomeSeeds(home!, Number(from), Number(count), { steps: Number(steps), fault: (fault ?? 'none') as StoreFault, between,
  offLoop: mode === 'off-loop' })
process.stdout.write(`${JSON.stringify(summary)}\n`)
