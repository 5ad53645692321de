/**
 * The PostgreSQL server failing under the store (docs/architecture.md §8
 * "Several machines"), on a throwaway server of this file's own
 * (`test/support/pg-cluster.ts`) that the test crashes (`pg_ctl stop -m
 * immediate`, as a server killed would) and starts again, with the store on
 * its worker threads (`home/pg/pg-sync.ts`) as a process runs it: every call
 * while it is down is a store fault saying why, never an uncoordinated
 * answer; posts that were in flight when it died are posted again by id
 * (a repeat returns the stored one), and then every message is claimed
 * exactly once, in posting order; the process hears other processes'
 * changes again once the server is back.
 *
 * @module test/unit/pg-faults
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { selfTag, storeFaultWhy, type StoredMessage } from '../../src/testing.js'
import type { PostOutcome } from '../../src/home/store.js'
import { PgSync } from '../../src/home/pg/pg-sync.js'
import { pgBin, startCluster, type PgCluster } from '../support/pg-cluster.ts'
import { pgUrl } from '../support/pg-target.ts'

// The shared server's presence decides whether these run (and, under CI, fails them when none can be had).
const runs = pgUrl() !== undefined
let cluster: PgCluster | undefined
beforeAll(async () => {
  const bin = pgBin()
  if (runs && 'dir' in bin) cluster = await startCluster(bin.dir)
}, 120_000)
afterAll(() => cluster?.stop())

/** Wait (polling the event loop, at most `ms`) until `probe` holds. */
async function until(probe: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!probe()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

/** What a call gave: its value, or the store fault's reason (anything else is rethrown). */
function outcome<T>(call: () => T): T | { fault: string } {
  try {
    return call()
  } catch (error: unknown) {
    const why = storeFaultWhy(error)
    if (why === undefined) throw error
    return { fault: why }
  }
}

describe.skipIf(!runs)('the PostgreSQL server crashes and comes back', () => {
  it('refuses readably while down, loses and doubles nothing in flight, and hears changes again once back', async () => {
    const schema = 'xs_faults'
    const a = new PgSync({ url: cluster!.url, schema, self: { machine: 'machine-a', ...selfTag() }, machineName: 'a' })
    const b = new PgSync({ url: cluster!.url, schema, self: { machine: 'machine-b', ...selfTag() }, machineName: 'b' })
    try {
      a.call('prepare', [])
      b.call('prepare', [])
      a.call('join', [false])
      b.call('join', [false])
      expect(b.call('markLive', ['s'])).toEqual({ ok: true, already: false })
      const ids = Array.from({ length: 60 }, (_, n) => `m${String(n).padStart(2, '0')}`)
      const post = (id: string): Promise<PostOutcome> => a.callAsync('post', [{ messageId: id, target: 's', sender: 'on-a', hop: 1,
        mode: 'queue', text: id, mayWake: true }])

      // Posts one after another; the server dies under them.
      const results = new Map<string, PostOutcome | { fault: string }>()
      const posting = (async () => {
        for (const id of ids) results.set(id, await post(id).catch((error: unknown) => ({ fault: storeFaultWhy(error) ?? String(error) })))
      })()
      await until(() => results.size >= 20)
      cluster!.crash()
      await posting
      const failed = ids.filter(id => 'fault' in results.get(id)!)
      expect(failed.length).toBeGreaterThan(0)
      // Every failure is a store fault that says why; nothing else was thrown.
      for (const id of failed) expect((results.get(id) as { fault: string }).fault).toMatch(/PostgreSQL/)

      // Down: every call is refused with the reason, blocking or not.
      expect(outcome(() => b.call('claim', ['s']))).toEqual({ fault: expect.stringMatching(/^the PostgreSQL (server cannot be reached|connection)/) })
      expect(outcome(() => a.call('view', ['s']))).toMatchObject({ fault: expect.stringMatching(/PostgreSQL/) })

      b.changed() // the lost listening connection counted as a change; consumed here
      cluster!.start()
      // Listening again counts as a change too (what was committed while nobody listened is not told again): B hears it
      // with nothing posted.
      await until(() => b.changed())
      // Back: the failed posts are posted again by id; one whose commit landed before the crash answers as a repeat.
      for (const id of failed) {
        const again = await post(id)
        expect(again.ok).toBe(true)
      }
      b.changed()
      a.call('post', [{ messageId: 'after', target: 's', sender: 'on-a', hop: 1, mode: 'queue', text: 'after', mayWake: true }])
      await until(() => b.changed())

      // Posted one after another, the failed ones (those after the crash) again in order: claimed once each, first in, first out.
      const claimed: StoredMessage[] = b.call('claim', ['s'])
      expect(failed).toEqual(ids.slice(ids.length - failed.length))
      expect(claimed.map(message => message.messageId)).toEqual([...ids, 'after'])
      const orders = claimed.map(message => message.order)
      expect(orders).toEqual([...orders].sort((x, y) => x - y))
    } finally {
      a.close()
      b.close()
    }
  }, 120_000)
})
