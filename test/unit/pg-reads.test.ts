/**
 * A read asked of another machine through the PostgreSQL store
 * (`home/pg/pg-reads.ts`), against a real throwaway PostgreSQL server
 * (`test/support/pg-cluster.ts`): asked by one machine, taken once by one
 * process of the session's machine, answered, fetched; a reader that stops
 * waiting abandons it, and then nothing more happens to it.
 *
 * @module test/unit/pg-reads
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { PgStore } from '../../src/home/pg/pg-store.js'
import { READ_RETAIN_MS } from '../../src/home/pg/pg-reads.js'
import { pgUrl, testSchema } from '../support/pg-target.ts'

const url = pgUrl()
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function world() {
  const { schema, drop } = await testSchema(url!, 'xs_reads')
  cleanups.push(drop)
  const on = async (machine: string, pid = 1, now?: () => number): Promise<PgStore> => {
    const pool = new pg.Pool({ connectionString: url, max: 2 })
    cleanups.push(() => pool.end())
    const store = new PgStore({ pool, schema, self: { machine, pid, start: 1 }, machineName: machine, aliveHere: () => true,
      ...(now === undefined ? {} : { now }) })
    await store.join(false)
    return store
  }
  return { on }
}

describe.skipIf(url === undefined)('a read asked of another machine', () => {
  it('is taken by a process of the session\'s machine, answered, and fetched by its reader', async () => {
    const { on } = await world()
    const laptop = await on('m-laptop')
    const server = await on('m-server')
    const id = await laptop.askRead('m-server', 's-1', '{"last":5}')
    expect(await laptop.readState(id)).toEqual({ state: 'asked' })
    expect(await laptop.takeReads(10)).toEqual([])
    const taken = await server.takeReads(10)
    expect(taken).toEqual([{ id, sessionId: 's-1', request: '{"last":5}', asker: 'm-laptop' }])
    expect(await server.takeReads(10)).toEqual([])
    expect(await laptop.readState(id)).toEqual({ state: 'taken' })
    expect(await server.answerRead(id, 'the window')).toBe(true)
    expect(await laptop.readState(id)).toEqual({ state: 'answered', answer: 'the window' })
    // Only its reader fetches it.
    expect(await server.readState(id)).toEqual({ state: 'unknown' })
  })

  it('several processes of the machine taking at once: each request is taken by exactly one', async () => {
    const { on } = await world()
    const laptop = await on('m-laptop')
    const takers = await Promise.all([1, 2, 3, 4].map(pid => on('m-server', pid)))
    const ids = await Promise.all(Array.from({ length: 40 }, (_, n) => laptop.askRead('m-server', `s-${n}`, '{}')))
    const taken = (await Promise.all(takers.flatMap(taker => [taker.takeReads(7), taker.takeReads(7), taker.takeReads(7)]))).flat()
    const more = (await Promise.all(takers.map(taker => taker.takeReads(40)))).flat()
    const all = [...taken, ...more].map(read => read.id)
    expect(all.sort()).toEqual([...ids].sort())
  })

  it('a reader that stops waiting abandons it: never taken after, and a late answer is not written', async () => {
    const { on } = await world()
    const laptop = await on('m-laptop')
    const server = await on('m-server')
    const untaken = await laptop.askRead('m-server', 's-1', '{}')
    expect(await laptop.abandonRead(untaken)).toEqual({ state: 'abandoned' })
    expect(await server.takeReads(10)).toEqual([])
    const taken = await laptop.askRead('m-server', 's-2', '{}')
    expect((await server.takeReads(10)).map(read => read.id)).toEqual([taken])
    expect(await laptop.abandonRead(taken)).toEqual({ state: 'abandoned' })
    expect(await server.answerRead(taken, 'too late')).toBe(false)
    expect(await laptop.readState(taken)).toEqual({ state: 'abandoned' })
    // Answered first: abandoning changes nothing, and the reader still has the answer.
    const answered = await laptop.askRead('m-server', 's-3', '{}')
    await server.takeReads(10)
    await server.answerRead(answered, 'in time')
    expect(await laptop.abandonRead(answered)).toEqual({ state: 'answered', answer: 'in time' })
  })

  it('only the process that took it answers it; old requests are swept', async () => {
    let now = 1_000_000
    const { on } = await world()
    const laptop = await on('m-laptop', 1, () => now)
    const server = await on('m-server', 1, () => now)
    const other = await on('m-server', 2, () => now)
    const id = await laptop.askRead('m-server', 's-1', '{}')
    await server.takeReads(10)
    expect(await other.answerRead(id, 'not mine')).toBe(false)
    now += READ_RETAIN_MS + 1
    expect(await laptop.sweepReads(now)).toBe(1)
    expect(await laptop.readState(id)).toEqual({ state: 'unknown' })
  })
})
