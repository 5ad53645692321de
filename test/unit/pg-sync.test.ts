/**
 * The PostgreSQL store behind a synchronous call (`home/pg/pg-sync.ts`): a
 * worker thread holds the connections and runs the store's transitions;
 * the caller blocks until the answer is there, or awaits it. Against a real
 * throwaway PostgreSQL server (`test/support/pg-cluster.ts`).
 *
 * @module test/unit/pg-sync
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { selfTag, storeFaultWhy } from '../../src/testing.js'
import { PgSync } from '../../src/home/pg/pg-sync.js'
import { pgUrl, testSchema } from '../support/pg-target.ts'

const url = pgUrl()
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A schema of this test's own (its tables made by the first store that opens it), dropped after the test. */
async function freshSchema(): Promise<string> {
  const { schema, drop } = await testSchema(url!, 'xs_sync', false)
  cleanups.push(drop)
  return schema
}

function open(schema: string, machine: string, pid = selfTag().pid, start = selfTag().start, at = url!): PgSync {
  const sync = new PgSync({ url: at, schema, self: { machine, pid, start }, machineName: `name-of-${machine}` })
  cleanups.push(() => sync.close())
  return sync
}

describe.skipIf(url === undefined)('the PostgreSQL store behind a synchronous call', () => {
  it('blocking calls run the store\'s transitions in order and bring back their values (maps and sets included)', async () => {
    const schema = await freshSchema()
    const a = open(schema, 'machine-a')
    const b = open(schema, 'machine-b', 4242, 7)
    a.call('prepare', [])
    a.call('join', [true])
    b.call('join', [false])
    expect(a.call('markLive', ['s'])).toEqual({ ok: true, already: false })
    const posted = b.call<{ ok: boolean, message: { messageId: string, state: string } }>('post',
      [{ messageId: 'sync-1', target: 's', sender: 'x', hop: 1, mode: 'queue', text: 'hi', mayWake: true }])
    expect(posted).toMatchObject({ ok: true, message: { messageId: 'sync-1', state: 'pending' } })
    expect(b.call('waiting', [])).toEqual(new Set(['s']))
    const board = b.call<{ elsewhere: Map<string, unknown> }>('board', [])
    expect([...board.elsewhere.keys()]).toEqual(['s'])
    expect(a.call('claim', ['s'])).toMatchObject([{ messageId: 'sync-1', state: 'claimed', claimer: { machine: 'machine-a' } }])
    expect(a.call('record', ['sync-1', 5, false])).toBe(true)
    expect(b.call('message', ['sync-1'])).toMatchObject({ state: 'recorded', seq: 5 })
  })

  it('a blocking call holds the event loop; an awaited one does not, and several may be in flight', async () => {
    const schema = await freshSchema()
    const a = open(schema, 'machine-a')
    await a.callAsync('prepare', [])
    await a.callAsync('join', [false])
    let turned = false
    setImmediate(() => turned = true)
    expect(a.call('markLive', ['s0'])).toEqual({ ok: true, already: false })
    expect(turned).toBe(false)
    const outcomes = await Promise.all(['s1', 's2', 's3'].map(id => a.callAsync('markLive', [id])))
    expect(turned).toBe(true)
    expect(outcomes).toEqual([{ ok: true, already: false }, { ok: true, already: false }, { ok: true, already: false }])
    expect((a.call<string[]>('heldHere', [])).sort()).toEqual(['s0', 's1', 's2', 's3'])
  })

  it('a fault of the server crosses as the same store fault, blocking or not', async () => {
    const closed = new URL(url!)
    closed.port = '1'
    const a = open(await freshSchema(), 'machine-a', undefined, undefined, closed.href)
    const blocked = (() => {
      try {
        a.call('prepare', [])
        return 'prepared'
      } catch (error: unknown) {
        return storeFaultWhy(error)
      }
    })()
    expect(blocked).toBe('the PostgreSQL server cannot be reached (ECONNREFUSED)')
    expect(await a.callAsync('join', [false]).then(() => 'joined', (error: unknown) => storeFaultWhy(error)))
      .toBe('the PostgreSQL server cannot be reached (ECONNREFUSED)')
  })

  it('a call that stops waiting is a store fault, and its late answer never answers the next call', async () => {
    const schema = await freshSchema()
    const a = open(schema, 'machine-a')
    a.call('prepare', [])
    a.call('join', [false])
    const late = (() => {
      try {
        // No wait at all: the answer is never there yet.
        a.call('markLive', ['late'], 0)
        return 'answered'
      } catch (error: unknown) {
        return storeFaultWhy(error)
      }
    })()
    expect(late).toBe('the PostgreSQL store did not answer in time')
    expect(a.call('view', ['nobody'])).toEqual({})
    // The late call still ran (a store call that stopped waiting may have committed: its caller was told it failed).
    expect(a.call('view', ['late'])).toMatchObject({ holder: { state: 'live' } })
  })

  it('a worker that stopped (killed, crashed) refuses what was in flight and every later call as a store fault, at once', async () => {
    const a = open(await freshSchema(), 'machine-a')
    a.call('prepare', [])
    a.call('join', [false])
    const inFlight = a.callAsync('markLive', ['s']).then(() => 'answered', (error: unknown) => storeFaultWhy(error))
    await (a as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate()
    expect(['answered', 'the PostgreSQL store worker stopped']).toContain(await inFlight)
    expect(() => a.call('view', ['s'])).toThrow('the PostgreSQL store worker stopped')
    expect(await a.callAsync('view', ['s']).then(() => 'answered', (error: unknown) => storeFaultWhy(error)))
      .toBe('the PostgreSQL store worker stopped')
  })

  it('renews its lease from the worker; a lease that ran out (its row swept by another machine) is taken again and said', async () => {
    const schema = await freshSchema()
    const a = open(schema, 'machine-a')
    a.call('prepare', [])
    a.call('join', [true])
    const events: string[] = []
    a.listen(event => events.push(Object.keys(event)[0]!))
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      // Another machine's sweep judged it dead (its lease had lapsed) and dropped its row.
      await admin.query(`DELETE FROM ${schema}.processes WHERE machine = 'machine-a'`)
      const end = Date.now() + 20_000
      while (!events.includes('leaseLost') && Date.now() < end) await new Promise(resolve => setTimeout(resolve, 50))
      expect(events).toContain('leaseLost')
      const rows = await admin.query(`SELECT long_lived, lease_until > clock_timestamp() AS leased FROM ${schema}.processes
        WHERE machine = 'machine-a'`)
      expect(rows.rows).toEqual([{ long_lived: true, leased: true }])
      expect(a.call('markLive', ['s'])).toEqual({ ok: true, already: false })
    } finally {
      await admin.end()
    }
  }, 30_000)

  it('a closed store refuses every call as a store fault', async () => {
    const a = open(await freshSchema(), 'machine-a')
    a.close()
    expect(() => a.call('view', ['s'])).toThrow('the PostgreSQL store is closed')
    expect(await a.callAsync('view', ['s']).then(() => 'answered', (error: unknown) => storeFaultWhy(error))).toBe('the PostgreSQL store is closed')
  })
})
