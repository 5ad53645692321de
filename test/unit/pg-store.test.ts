/**
 * What the PostgreSQL store (`home/pg/pg-store.ts`) adds to the contract
 * both stores keep (test/unit/store-contract.test.ts), against
 * a real throwaway PostgreSQL server (`test/support/pg-cluster.ts`):
 * processes of two machines, leases judged by the database's clock (a lease
 * is made to run out by moving its end into the past, as the clock passing
 * it would), the fence of a process whose lease ran out, posting order
 * under concurrent posts and claims, the server's faults
 * as store faults with no password in them, and a schema of another release.
 *
 * @module test/unit/pg-store
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { storeFaultWhy } from '../../src/testing.js'
import { PgStore } from '../../src/home/pg/pg-store.js'
import { preparePgStore } from '../../src/home/pg/pg-schema.js'
import { pgUrl, testSchema } from '../support/pg-target.ts'

const url = pgUrl()
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function world() {
  const { schema, admin, drop } = await testSchema(url!, 'xs_pgs')
  cleanups.push(drop)
  /** A process of `machine`; nothing of another machine is ever judged by this probe. */
  const processOf = async (machine: string, pid: number, probe: (tag: { pid: number }) => boolean = () => true): Promise<PgStore> => {
    const pool = new pg.Pool({ connectionString: url, max: 2 })
    cleanups.push(() => pool.end())
    const store = new PgStore({ pool, schema, self: { machine, pid, start: 7 }, machineName: `name-of-${machine}`, aliveHere: probe })
    await store.join(false)
    return store
  }
  /** The database's clock passes `store`'s lease end (nothing else changes). */
  const lapse = async (store: PgStore): Promise<void> => {
    await admin.query(`UPDATE ${schema}.processes SET lease_until = clock_timestamp() - interval '1 second'
      WHERE machine = $1 AND pid = $2`, [store.self.machine, store.self.pid])
  }
  return { schema, admin, processOf, lapse }
}

describe.skipIf(url === undefined)('the PostgreSQL store\'s holder half across machines', () => {
  it('a pid is judged by its own machine only: a process of another machine lives by its lease', async () => {
    const { processOf } = await world()
    // Machine A's probe says every pid of A but its own is dead; it is never asked about B's.
    const a = await processOf('machine-a', 100, tag => tag.pid === 100)
    const b = await processOf('machine-b', 200)
    expect(await b.markLive('on-b')).toEqual({ ok: true, already: false })
    expect(await a.acquire('on-b')).toEqual({ ok: false, holder: { tag: b.self, state: 'live', woke: false } })
    expect((await a.board()).elsewhere.get('on-b')).toEqual({ tag: b.self, state: 'live', woke: false })
  })

  it('a machine that vanishes loses its holds when its lease runs out, and the next holder hears it died', async () => {
    const { processOf, lapse } = await world()
    const a = await processOf('machine-a', 100)
    const b = await processOf('machine-b', 200)
    await b.markLive('on-b')
    await lapse(b)
    expect((await a.board()).elsewhere.size).toBe(0)
    expect(await a.view('on-b')).toEqual({ lastLetGo: { how: 'died', pid: 200, at: undefined } })
    expect(await a.acquire('on-b')).toEqual({ ok: true, already: false, previous: { how: 'died', pid: 200, at: undefined } })
  })

  it('a process whose lease ran out takes nothing (its lease is its fence) and cannot renew; joining again gives a new lease', async () => {
    const { processOf, lapse } = await world()
    const b = await processOf('machine-b', 200)
    await lapse(b)
    const refused = await b.acquire('s').then(() => 'taken', (error: unknown) => storeFaultWhy(error))
    expect(refused).toBe('this process\'s lease on the store ran out')
    expect(await b.renew()).toBe(false)
    await b.leave('died')
    await b.join(false)
    expect(await b.renew()).toBe(true)
    expect(await b.acquire('s')).toEqual({ ok: true, already: false })
  })

  it('a renewal wakes nobody (no NOTIFY); a hold does', async () => {
    const { processOf, schema } = await world()
    const b = await processOf('machine-b', 200)
    const listener = new pg.Client({ connectionString: url })
    await listener.connect()
    cleanups.push(() => listener.end())
    const heard: string[] = []
    listener.on('notification', notification => heard.push(notification.payload ?? ''))
    await listener.query(`LISTEN ${schema}_changed`)
    expect(await b.renew()).toBe(true)
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(heard).toEqual([])
    await b.markLive('s')
    const end = Date.now() + 5_000
    while (heard.length === 0 && Date.now() < end) await new Promise(resolve => setTimeout(resolve, 20))
    expect(heard).toEqual(['machine-b:200:7'])
  })

  it('a store names its schema in every statement: one that is not a plain identifier is refused at once', () => {
    for (const schema of ['x; DROP TABLE y', 'Public', 'a'.repeat(56)]) {
      expect(() => new PgStore({ pool: new pg.Pool({ connectionString: url }), schema, self: { machine: 'm', pid: 1, start: 1 },
        machineName: 'm', aliveHere: () => true })).toThrow('not a schema name this store accepts')
    }
  })

  it('a renewal keeps the lease: holds stay while the clock would otherwise pass them', async () => {
    const { admin, schema, processOf } = await world()
    const b = await processOf('machine-b', 200)
    const before = await admin.query(`SELECT lease_until FROM ${schema}.processes WHERE pid = 200`)
    await new Promise(resolve => setTimeout(resolve, 20))
    expect(await b.renew()).toBe(true)
    const after = await admin.query(`SELECT lease_until FROM ${schema}.processes WHERE pid = 200`)
    expect((after.rows[0] as { lease_until: Date }).lease_until.getTime()).toBeGreaterThan((before.rows[0] as { lease_until: Date }).lease_until.getTime())
    const machine = await admin.query(`SELECT name FROM ${schema}.machines WHERE id = 'machine-b'`)
    expect(machine.rows).toEqual([{ name: 'name-of-machine-b' }])
  })

  it('the long-lived host is of this machine: a host on another machine does not wake this machine\'s sessions', async () => {
    const { processOf } = await world()
    const a = await processOf('machine-a', 100)
    const hostOnB = await processOf('machine-b', 200)
    await hostOnB.join(true)
    expect(await a.longLivedHost()).toBeUndefined()
    const hostOnA = await processOf('machine-a', 101)
    await hostOnA.join(true)
    expect(await a.longLivedHost()).toEqual(hostOnA.self)
    expect(await a.isLongLived(hostOnA.self)).toBe(true)
    expect(await a.isLongLived({ pid: 999, start: 7 })).toBeUndefined()
  })
})

describe.skipIf(url === undefined)('the PostgreSQL store under concurrent processes', () => {
  it('posts from several processes racing a claiming holder: claims come out in posting order, each message once', async () => {
    const { processOf } = await world()
    const holder = await processOf('machine-a', 100)
    const posters = await Promise.all([101, 102, 103, 104].map(pid => processOf('machine-a', pid)))
    await holder.markLive('s')
    const claimed: Array<{ id: string, order: number, sender: string }> = []
    let posting = true
    const claiming = (async () => {
      while (posting) {
        for (const each of await holder.claim('s')) claimed.push({ id: each.messageId, order: each.order, sender: each.sender })
        for (const each of claimed.slice(-8)) await holder.record(each.id, each.order, false)
      }
    })()
    await Promise.all(posters.map(async (poster, index) => {
      for (let n = 0; n < 40; n++) {
        const posted = await poster.post({ messageId: `p${index}-${n}`, target: 's', sender: `sender-${index}`, hop: 1, mode: 'queue',
          text: String(n), mayWake: true })
        expect(posted.ok).toBe(true)
      }
    }))
    posting = false
    await claiming
    for (const each of await holder.claim('s')) claimed.push({ id: each.messageId, order: each.order, sender: each.sender })
    expect(claimed).toHaveLength(160)
    expect(new Set(claimed.map(each => each.id)).size).toBe(160)
    const orders = claimed.map(each => each.order)
    expect(orders).toEqual([...orders].sort((x, y) => x - y))
    for (let index = 0; index < 4; index++) {
      expect(claimed.filter(each => each.sender === `sender-${index}`).map(each => each.id))
        .toEqual(Array.from({ length: 40 }, (_, n) => `p${index}-${n}`))
    }
  })
})

describe.skipIf(url === undefined)('decisions that waited for a lock read what the lock\'s holder left', () => {
  it('a holder of another machine that took the row while this process waited is alive, not "died"', async () => {
    const { processOf, schema } = await world()
    const a = await processOf('machine-a', 100)
    const b = await processOf('machine-b', 200)
    for (const [name, act] of [
      ['acquire', (session: string) => a.acquire(session)],
      ['refuseWaiting', (session: string) => a.refuseWaiting(session, 'target-gone')],
    ] as const) {
      const session = `s-${name}`
      await a.post({ messageId: `m-${name}`, target: session, sender: 'x', hop: 1, mode: 'queue', text: 't', mayWake: true })
      // B's hold, step by step: its row locked, then (after A started waiting for that lock) taken and committed.
      const raw = new pg.Client({ connectionString: url })
      await raw.connect()
      cleanups.push(() => raw.end())
      await raw.query('BEGIN')
      await raw.query(`SELECT 1 FROM ${schema}.holders WHERE session_id = $1 FOR UPDATE`, [session])
      const waiting = act(session)
      await new Promise(resolve => setTimeout(resolve, 200))
      await raw.query(`UPDATE ${schema}.holders SET machine = 'machine-b', pid = 200, start = 7, state = 'live', since = clock_timestamp()
        WHERE session_id = $1`, [session])
      await raw.query('COMMIT')
      const outcome = await waiting
      if (name === 'acquire') expect(outcome).toEqual({ ok: false, holder: { tag: b.self, state: 'live', woke: false } })
      else expect(outcome).toBe(0)
      expect(await a.message(`m-${name}`)).toMatchObject({ state: 'pending' })
    }
  })

  it('a sweep racing the first lock of sessions never leaves a decision without its row', async () => {
    const { processOf } = await world()
    const a = await processOf('machine-a', 100)
    const sweeper = await processOf('machine-a', 101)
    const failures: string[] = []
    for (let round = 0; round < 150; round++) {
      const session = `race-${round}`
      const [outcome] = await Promise.all([
        a.acquire(session).catch((error: unknown) => String(error)),
        sweeper.sweep(Date.now() + 40 * 24 * 60 * 60_000, 0),
      ])
      if (typeof outcome === 'string' || !outcome.ok) failures.push(`${session}: ${JSON.stringify(outcome)}`)
      else if ((await a.view(session)).holder === undefined) failures.push(`${session}: held, but no row names it`)
    }
    expect(failures).toEqual([])
  })
})

describe.skipIf(url === undefined)('a claimer judged dead whose last commit is still in flight', () => {
  /** A holder that claimed `ids` on `s` and is then judged dead while its `recordAll` of the first one has not committed yet. */
  async function dyingRecorder() {
    const { processOf, schema } = await world()
    const dead = new Set<number>()
    const probe = (tag: { pid: number }): boolean => !dead.has(tag.pid)
    const first = await processOf('machine-b', 201, probe)
    const next = await processOf('machine-b', 202, probe)
    const poster = await processOf('machine-a', 100)
    await first.markLive('s')
    const ids = ['late-1', 'late-2']
    for (const id of ids) await poster.post({ messageId: id, target: 's', sender: 'x', hop: 1, mode: 'queue', text: id, mayWake: true })
    await first.claim('s')
    // Its record, sent before it died: the row locked and changed, the commit not yet in.
    const inFlight = new pg.Client({ connectionString: url })
    await inFlight.connect()
    cleanups.push(() => inFlight.end())
    await inFlight.query('BEGIN')
    await inFlight.query(`UPDATE ${schema}.messages SET state = 'recorded', seq = 7 WHERE message_id = 'late-1'`)
    dead.add(201)
    return { next, poster, inFlight }
  }

  it('the next holder\'s takeover and claim wait for it, and leave what it recorded as recorded', async () => {
    const { next, poster, inFlight } = await dyingRecorder()
    const taking = (async () => {
      await next.markLive('s')
      return await next.claim('s')
    })()
    await new Promise(resolve => setTimeout(resolve, 200))
    await inFlight.query('COMMIT')
    expect((await taking).map(message => message.messageId)).toEqual(['late-2'])
    expect(await poster.message('late-1')).toMatchObject({ state: 'recorded', seq: 7 })
    expect(await poster.message('late-2')).toMatchObject({ state: 'claimed', claimer: { pid: 202 } })
  })
})

describe.skipIf(url === undefined)('the PostgreSQL server unusable: store faults, never a password', () => {
  it('a server that is not there is a store fault naming the socket error', async () => {
    const closed = new URL(url!)
    closed.port = '1'
    const pool = new pg.Pool({ connectionString: closed.href, max: 1, connectionTimeoutMillis: 2000 })
    cleanups.push(() => pool.end())
    const store = new PgStore({ pool, schema: 'xs_none', self: { machine: 'm', pid: 1, start: 7 }, machineName: 'm', aliveHere: () => true })
    const why = await store.acquire('s').then(() => 'taken', (error: unknown) => storeFaultWhy(error))
    expect(why).toBe('the PostgreSQL server cannot be reached (ECONNREFUSED)')
  })

  it('a wrong password is a store fault that says so, and neither password appears in it', async () => {
    const wrong = new URL(url!)
    const right = wrong.password
    wrong.password = 'not-the-password-0123'
    const pool = new pg.Pool({ connectionString: wrong.href, max: 1 })
    cleanups.push(() => pool.end())
    const error = await preparePgStore(pool, 'xs_none').then(() => undefined, (thrown: unknown) => thrown as Error)
    expect(storeFaultWhy(error)).toBe('the PostgreSQL server refused the password (28P01)')
    expect(error?.message).not.toContain('not-the-password-0123')
    expect(error?.message).not.toContain(right)
  })

  it('a schema of another release is left alone: a store fault, its version unchanged', async () => {
    const { admin, schema } = await world()
    await admin.query(`UPDATE ${schema}.meta SET value = '99' WHERE key = 'version'`)
    const error = await preparePgStore(admin, schema).then(() => undefined, (thrown: unknown) => thrown)
    expect(storeFaultWhy(error)).toBe('the PostgreSQL store is of another release')
    expect((await admin.query(`SELECT value FROM ${schema}.meta WHERE key = 'version'`)).rows).toEqual([{ value: '99' }])
  })

  it('several processes preparing one schema at once all succeed (no CREATE race)', async () => {
    const schema = `xs_race_${process.pid}`
    const pools = Array.from({ length: 6 }, () => new pg.Pool({ connectionString: url, max: 1 }))
    cleanups.push(async () => {
      await pools[0]!.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await Promise.all(pools.map(pool => pool.end()))
    })
    await Promise.all(pools.map(pool => preparePgStore(pool, schema)))
    expect((await pools[0]!.query(`SELECT value FROM ${schema}.meta`)).rows).toEqual([{ value: '1' }])
  })
})
