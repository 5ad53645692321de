/**
 * The scheduling floor of the load bench (./load.ts): a process that does
 * nothing but measure its own event-loop delay
 * (`perf_hooks.monitorEventLoopDelay`, the posters' resolution) while the
 * others post. When more processes want a core than the machine has, each
 * of them waits for one now and then, and that wait is part of every
 * process's stall; the bystander measures that wait alone. What a poster or
 * the holder stalls beyond it is its own work: a wait for another
 * process's write lock, a commit's disk sync, its JavaScript.
 *
 * Usage: `bystander.ts`. One JSON line each on stdout: `{ready}`; on `mark`
 * (stdin) it starts over and says `{marked}`; on `report`, `{max, p99}` in
 * ms since the mark; on `exit` it exits.
 *
 * @module bench/home/bystander
 */

import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { LOOP_RESOLUTION_MS } from './load.js'

const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS })
loop.enable()
process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`)
createInterface({ input: process.stdin }).on('line', line => {
  if (line === 'mark') {
    loop.reset()
    process.stdout.write(`${JSON.stringify({ marked: true })}\n`)
  } else if (line === 'report') {
    process.stdout.write(`${JSON.stringify({ max: loop.max / 1e6, p99: loop.percentile(99) / 1e6 })}\n`)
  } else if (line === 'exit') {
    process.exit(0)
  }
})
