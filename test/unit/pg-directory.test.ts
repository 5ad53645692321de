/**
 * The directory of the PostgreSQL store (`home/pg/pg-directory.ts`): what
 * each machine publishes of its sessions and how the other machines list
 * them, against a real throwaway PostgreSQL server
 * (`test/support/pg-cluster.ts`); and what changed between two
 * publications (`home/pg/directory-rows.ts`, pure).
 *
 * @module test/unit/pg-directory
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { directoryChange, type DirectoryRow } from '../../src/home/pg/directory-rows.js'
import { PgStore } from '../../src/home/pg/pg-store.js'
import { pgUrl, testSchema } from '../support/pg-target.ts'

const url = pgUrl()
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const row = (id: string, overrides: Partial<DirectoryRow> = {}, createdAt = 1_000): DirectoryRow =>
  ({ header: { id, createdAt, cwd: '/work/api', agentPreset: 'coder' }, title: `title of ${id}`, live: false, ...overrides })

describe('what changed between two publications', () => {
  it('new and changed rows are written, gone ones removed, unchanged ones left', () => {
    const published = new Map([['a', row('a')], ['b', row('b')], ['c', row('c')]])
    const change = directoryChange(published, [row('a'), row('b', { live: true }), row('d'), row('d')])
    expect(change.upserts.map(each => each.header.id)).toEqual(['b', 'd'])
    expect(change.removed).toEqual(['c'])
    expect(directoryChange(published, [...published.values()])).toEqual({ upserts: [], removed: [] })
    expect(directoryChange(published, [row('a', { title: 'renamed' })]).upserts.map(each => each.title)).toEqual(['renamed'])
  })
})

describe.skipIf(url === undefined)('the directory of every machine\'s sessions', () => {
  async function world() {
    const { schema, admin, drop } = await testSchema(url!, 'xs_dir')
    cleanups.push(drop)
    const on = async (machine: string, name: string): Promise<PgStore> => {
      const pool = new pg.Pool({ connectionString: url, max: 2 })
      cleanups.push(() => pool.end())
      const store = new PgStore({ pool, schema, self: { machine, pid: 1, start: 1 }, machineName: name, aliveHere: () => true })
      await store.join(true)
      return store
    }
    return { admin, schema, on }
  }

  it('a machine lists the others\' sessions, newest first, with their machine\'s name; never its own', async () => {
    const { on } = await world()
    const laptop = await on('m-laptop', 'laptop')
    const server = await on('m-server', 'server-1')
    await server.publish({ upserts: [row('s-old', {}, 1_000), row('s-new', { live: true }, 2_000)], removed: [] })
    await laptop.publish({ upserts: [row('l-1')], removed: [] })
    const seen = await laptop.directory()
    expect(seen.map(each => [each.header.id, each.machineName, each.live, each.reachable]))
      .toEqual([['s-new', 'server-1', true, true], ['s-old', 'server-1', false, true]])
    expect(seen[0]).toMatchObject({ machine: 'm-server', title: 'title of s-new', header: { cwd: '/work/api', agentPreset: 'coder', createdAt: 2_000 } })
    expect((await server.directory()).map(each => each.header.id)).toEqual(['l-1'])
  })

  it('a publication replaces what changed and removes what is gone, in one transaction', async () => {
    const { on } = await world()
    const server = await on('m-server', 'server-1')
    const laptop = await on('m-laptop', 'laptop')
    await server.publish({ upserts: [row('a'), row('b'), row('c')], removed: [] })
    const next = [row('a', { title: 'renamed' }), row('c'), row('d')]
    await server.publish(directoryChange(await server.published(), next))
    expect((await laptop.directory()).map(each => [each.header.id, each.title]).sort())
      .toEqual([['a', 'renamed'], ['c', 'title of c'], ['d', 'title of d']])
    expect([...(await server.published()).keys()].sort()).toEqual(['a', 'c', 'd'])
  })

  it('a home copied to another host is refused while a process of its machine id on another boot holds a lease', async () => {
    const { schema, admin, drop } = await testSchema(url!, 'xs_boot')
    cleanups.push(drop)
    const pool = new pg.Pool({ connectionString: url, max: 2 })
    cleanups.push(() => pool.end())
    const on = (boot: string, pid: number): PgStore =>
      new PgStore({ pool, schema, self: { machine: 'm-copied', pid, start: 1 }, machineName: 'copied', aliveHere: () => true, boot })
    const first = on('boot:one', 100)
    const second = on('boot:two', 200)
    await first.join(true)
    await expect(second.refuseCopiedMachine()).rejects.toMatchObject({ storeFault: expect.stringContaining('a copied DSH_HOME?') })
    await expect(second.join(true)).rejects.toMatchObject({ storeFault: expect.stringContaining('another host uses this home') })
    expect((await admin.query(`SELECT pid FROM ${schema}.processes ORDER BY pid`)).rows.map(r => r.pid)).toEqual([100])
    // The same boot is the same host: a second process there joins.
    await on('boot:one', 101).join(false)
    // Once the other host's lease ran out (its processes gone, or a reboot), the id is free.
    await admin.query(`UPDATE ${schema}.processes SET lease_until = clock_timestamp() - interval '1 second' WHERE boot = 'boot:one'`)
    await second.join(true)
    expect((await admin.query(`SELECT pid FROM ${schema}.processes WHERE lease_until > clock_timestamp()`)).rows.map(r => r.pid)).toEqual([200])
  })

  it('a machine publishes its inbound setting with its sessions; another machine lists it with each of them', async () => {
    const { on } = await world()
    const server = await on('m-server', 'server-1')
    const laptop = await on('m-laptop', 'laptop')
    await server.publish({ upserts: [row('s-1')], removed: [] }, 'hold')
    expect((await laptop.directory()).map(each => [each.header.id, each.hostInbound])).toEqual([['s-1', 'hold']])
    // Only the setting changed: it is written all the same.
    await server.publish({ upserts: [], removed: [] }, 'refuse')
    expect((await laptop.directory()).map(each => each.hostInbound)).toEqual(['refuse'])
  })

  it('a machine none of whose processes holds a lease is listed as not reachable, its sessions still there', async () => {
    const { on, admin, schema } = await world()
    const server = await on('m-server', 'server-1')
    const laptop = await on('m-laptop', 'laptop')
    await server.publish({ upserts: [row('s-1', { live: true })], removed: [] })
    await admin.query(`UPDATE ${schema}.processes SET lease_until = clock_timestamp() - interval '1 second' WHERE machine = 'm-server'`)
    expect((await laptop.directory()).map(each => [each.header.id, each.reachable])).toEqual([['s-1', false]])
  })

  it('a long-lived host adopts only its own machine\'s sessions: another machine\'s is woken there, never here', async () => {
    const { on } = await world()
    const laptop = await on('m-laptop', 'laptop')
    const server = await on('m-server', 'server-1')
    await server.publish({ upserts: [row('on-server')], removed: [] })
    await laptop.publish({ upserts: [row('on-laptop')], removed: [] })
    for (const target of ['on-server', 'on-laptop', 'unpublished']) {
      await laptop.post({ messageId: `to-${target}`, target, sender: 'x', hop: 1, mode: 'queue', text: 't', mayWake: true })
    }
    // A session nobody published yet is the poster's machine's: a send reaches another machine's session only through
    // its published row, so an unpublished target is a session of the sender's own machine, not yet published.
    await server.post({ messageId: 'to-new-on-server', target: 'new-on-server', sender: 'y', hop: 1, mode: 'queue', text: 't', mayWake: true })
    expect((await laptop.adoptable()).sort()).toEqual(['on-laptop', 'unpublished'])
    expect((await server.adoptable()).sort()).toEqual(['new-on-server', 'on-server'])
  })

  it('a notice is for the machine that asked for it: its sender\'s, even before that machine published the sender', async () => {
    const { on } = await world()
    const laptop = await on('m-laptop', 'laptop')
    const server = await on('m-server', 'server-1')
    await server.publish({ upserts: [row('target-on-server')], removed: [] })
    // The laptop's sender asks for a notice of its message to the server's session; the server's turn ends.
    await laptop.watch({ messageId: 'sent', sender: 'sender-on-laptop', target: 'target-on-server', hop: 1, mayWake: true, maxHops: 4,
      perMinute: 6, expiresAt: Date.now() + 60_000 })
    const fired = await server.fireWatch('sent', { turnEndSeq: 9, outcome: 'completed', answeredBySend: false, text: 'the answer' })
    expect(fired?.noticeId).toBeDefined()
    expect(await server.adoptable()).toEqual([])
    expect(await laptop.adoptable()).toEqual(['sender-on-laptop'])
  })

  it('publishes 10,000 sessions in one transaction, and lists them', async () => {
    const { on } = await world()
    const server = await on('m-server', 'server-1')
    const laptop = await on('m-laptop', 'laptop')
    const rows = Array.from({ length: 10_000 }, (_, n) => row(`s-${n}`, {}, n))
    await server.publish({ upserts: rows, removed: [] })
    const seen = await laptop.directory()
    expect(seen).toHaveLength(10_000)
    expect(seen[0]?.header.id).toBe('s-9999')
  }, 60_000)
})
