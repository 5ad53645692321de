/**
 * The owning side of the cross-process bench: a separate OS process that
 * holds one live session (an in-memory agent that records a delivered
 * message at once, shaped like rc.8's) through this package's real
 * `HomeRuntime` on the given home: presence published, mailbox watched.
 *
 * Protocol on stdout/stdin, one JSON line each: prints `{ready}` once
 * listening; on `mark` restarts its CPU clock, on `cpu` prints its CPU time since then; on `exit` exits.
 *
 * @module bench/home/owner
 */

import { createInterface } from 'node:readline'
import { HomeRuntime } from '../../src/home/runtime.js'
import type { HostAgents } from '../../src/host.js'
import { fakeAgent } from '../../test/support/fake-host.js'

const [home, sessionId, extra] = process.argv.slice(2) as [string, string, string | undefined]
const agent = fakeAgent({ id: sessionId, createdAt: 1 })
const agents: HostAgents = { get: id => (id === sessionId ? agent : undefined), resume: async () => { throw new Error('bench owner never wakes') }, list: () => [agent] }
const runtime = new HomeRuntime(home, agents, message => process.stderr.write(`${message}\n`))
runtime.start([agent])
// More idle sessions published, as a busy web host would have.
for (let index = 0; index < Number(extra ?? 0); index++) runtime.publisher.publish(`session-idle-${index}`)
let since = process.cpuUsage()
let started = Date.now()
process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`)
createInterface({ input: process.stdin }).on('line', line => {
  if (line === 'mark') {
    since = process.cpuUsage()
    started = Date.now()
  } else if (line === 'cpu') {
    const used = process.cpuUsage(since)
    process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000, wallMs: Date.now() - started, delivered: agent.received.length })}\n`)
  } else if (line === 'exit') {
    runtime.stop()
    process.exit(0)
  }
})
