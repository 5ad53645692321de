/**
 * A racer process for test/unit/home-race.test.ts: waits until the start
 * time given on its command line, then tries once to take the wake lease,
 * or to claim every mailbox entry the runtime would claim (`claimable`:
 * pending, or left by a dead claimer), prints what it won as JSON, and stays
 * alive until its stdin closes (so what it holds is held by a living process).
 * @module test/support/home-racer
 */
import { acquireLease, claim, claimable, isAlive, layoutOf, listMailbox, selfTag } from '../../src/testing.js'

const [what, home, startAt] = process.argv.slice(2) as ['lease' | 'claim', string, string]
const layout = layoutOf(home)
while (Date.now() < Number(startAt)) { /* spin to the common start */ }
if (what === 'lease') {
  process.stdout.write(`${JSON.stringify({ won: acquireLease(layout.leases, 'session-raced', selfTag(), isAlive).ok ? 1 : 0 })}\n`)
} else {
  const entries = claimable(listMailbox(layout.mailbox), 'session-raced', isAlive)
  process.stdout.write(`${JSON.stringify({ won: entries.filter(entry => claim(layout.mailbox, entry, selfTag()) !== undefined).map(entry => entry.messageId) })}\n`)
}
process.stdin.resume()
process.stdin.on('end', () => process.exit(0))
