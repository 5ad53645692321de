/**
 * Child process of test/unit/home-crash.test.ts: runs the crash schedules
 * of the seeds it is given on a store file of its own and prints one JSON
 * line (`SeedsSummary`), so the schedules use every core of the machine. It
 * stops between two store files once its parent is gone.
 *
 * Usage: node --import tsx test/support/crash-runner.ts <home> <first seed> <count> <steps>
 * @module test/support/crash-runner
 */
import { runSeeds } from './crash-schedule.js'

const [home, from, count, steps] = process.argv.slice(2)
const parent = process.ppid
// Orphaned (the test run was killed): stop instead of filling the disk with schedules nobody reads.
const between = (): void => {
  if (process.ppid !== parent) process.exit(2)
}
process.stdout.write(`${JSON.stringify(runSeeds(home!, Number(from), Number(count), { steps: Number(steps), between }))}\n`)
