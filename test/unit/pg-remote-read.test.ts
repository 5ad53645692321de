/**
 * Both sides of a read of another machine's session (docs/architecture.md
 * §8 "Several machines", "Reads asked of another machine"): machine A asks
 * (`home/pg/remote-read.ts` `askSurface`), a process of machine B answers
 * (`home/pg/read-answerer.ts`), each a process of its own on the store's
 * worker thread (`home/pg/pg-sync.ts`), against a real throwaway PostgreSQL
 * server (`test/support/pg-cluster.ts`). The answer's shape is read
 * defensively (`home/pg/read-answer.ts`), tested without a server; so are
 * the answerer's one-take-at-a-time and its one log line per outage.
 *
 * @module test/unit/pg-remote-read
 */
import { afterEach, describe, expect, it } from 'vitest'
import { selfTag } from '../../src/testing.js'
import type { SurfaceView } from '../../src/ports/session-query.js'
import { PgSync } from '../../src/home/pg/pg-sync.js'
import type { TakenRead } from '../../src/home/pg/pg-reads.js'
import type { PgEvent } from '../../src/home/pg/pg-sync-protocol.js'
import { ReadAnswerer } from '../../src/home/pg/read-answerer.js'
import { READ_ANSWER_MAX_BYTES, readAnswer, type ReadStore } from '../../src/home/pg/read-answer.js'
import { askSurface, type RemoteRead } from '../../src/home/pg/remote-read.js'
import { storeFault } from '../../src/home/store-fault.js'
import { assistantEvent, toolResultEvent, userEvent } from '../support/fakes.js'
import { pgUrl, testSchema } from '../support/pg-target.ts'

const url = pgUrl()
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const never = new AbortController().signal
const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** A surface of a few events of session `id`, as B's local read gives it. */
function surfaceOf(id: string, events: unknown[] = [userEvent(1, 'hello'), assistantEvent(2, 'hi'), toolResultEvent(3, 'ok')]): SurfaceView {
  return { session: { id, createdAt: 1_764_000_000_000, cwd: '/work/on-b', agentPreset: 'code' }, capturedThroughSeq: 3, events }
}

/** A schema of this test's own, and processes of machines on it (each its own `PgSync`, prepared and joined). */
async function world() {
  const { schema, admin, drop } = await testSchema(url!, 'xs_remote')
  cleanups.push(drop)
  const on = async (machine: string, pid = selfTag().pid, start = selfTag().start): Promise<PgSync> => {
    const sync = new PgSync({ url: url!, schema, self: { machine, pid, start }, machineName: machine })
    cleanups.push(() => sync.close())
    await sync.callAsync('prepare', [])
    await sync.callAsync('join', [false])
    return sync
  }
  const stateOf = async (sessionId: string): Promise<string[]> =>
    (await admin.query<{ state: string }>(`SELECT state FROM ${schema}.reads WHERE session_id = $1`, [sessionId])).rows.map(row => row.state)
  const answerOf = async (sessionId: string): Promise<string | null> =>
    (await admin.query<{ answer: string | null }>(`SELECT answer FROM ${schema}.reads WHERE session_id = $1`, [sessionId])).rows[0]?.answer ?? null
  return { on, stateOf, answerOf }
}

/** Run an answerer on `store` with `readSurface`; stopped after the test. @returns what it logged, and the answerer. */
function answering(store: ReadStore, readSurface: (id: string) => Promise<SurfaceView | undefined>, readMs?: number):
{ logged: string[], answerer: ReadAnswerer } {
  const logged: string[] = []
  const answerer = new ReadAnswerer({ store, readSurface, log: line => logged.push(line), ...(readMs === undefined ? {} : { readMs }) })
  answerer.start()
  cleanups.push(() => answerer.stop())
  return { logged, answerer }
}

// Each test starts worker threads and connection pools: on a loaded two-core machine that alone can pass vitest's default 5 s.
describe.skipIf(url === undefined)('a read of another machine\'s session, asked and answered through PostgreSQL', { timeout: 30_000 }, () => {
  it('A asks, a process of B answers: A gets B\'s surface as B read it; an unknown session is not-found', async () => {
    const { on } = await world()
    const a = await on('machine-a')
    const b = await on('machine-b', 4242, 7)
    const surface = surfaceOf('s-b')
    const reads: string[] = []
    const { logged } = answering(b, async id => {
      reads.push(id)
      return id === 's-b' ? surface : undefined
    })
    expect(await askSurface(a, 'machine-b', 's-b', { signal: never })).toEqual({ kind: 'surface', surface })
    expect(await askSurface(a, 'machine-b', 's-none', { signal: never })).toEqual({ kind: 'not-found' })
    // An id that cannot name a session never reaches B's read.
    expect(await askSurface(a, 'machine-b', '../s-b', { signal: never })).toEqual({ kind: 'not-found' })
    expect(reads).toEqual(['s-b', 's-none'])
    expect(logged).toEqual([])
  })

  it('a read that throws or hangs on B is failed, with a short reason: no message, no path, no stack', async () => {
    const { on } = await world()
    const a = await on('machine-a')
    const b = await on('machine-b', 4242, 7)
    answering(b, async id => {
      if (id === 's-hang') return await new Promise<undefined>(() => undefined)
      if (id === 's-code') throw Object.assign(new Error('ENOENT: no such file, open \'/home/someone/.dsh/s-code.jsonl\''), { code: 'ENOENT' })
      throw new Error('broken at /home/someone/.dsh/s-plain.jsonl')
    }, 1_500)
    // A read that hangs is bounded, and delays no other answer meanwhile.
    const hung = askSurface(a, 'machine-b', 's-hang', { signal: never })
    await sleep(100)
    const started = Date.now()
    const coded = await askSurface(a, 'machine-b', 's-code', { signal: never })
    expect(Date.now() - started).toBeLessThan(600)
    const plain = await askSurface(a, 'machine-b', 's-plain', { signal: never })
    expect(coded).toEqual({ kind: 'failed', why: 'the session could not be read (ENOENT)' })
    expect(plain).toEqual({ kind: 'failed', why: 'the session could not be read (Error)' })
    expect(await hung).toEqual({ kind: 'failed', why: 'the read took longer than 1500 ms' })
  })

  it('no process of B answers: unanswered after the wait, the request abandoned, and a late answer is not written', async () => {
    const { on, stateOf } = await world()
    const a = await on('machine-a')
    const b = await on('machine-b', 4242, 7)
    // B takes one request (as a process that then stops would) and never answers it.
    let taken: TakenRead[] = []
    const takenOne = askSurface(a, 'machine-b', 's-taken', { signal: never, waitMs: 300 })
    for (const end = Date.now() + 250; taken.length === 0 && Date.now() < end;) taken = await b.callAsync<TakenRead[]>('takeReads', [4])
    expect(taken.map(read => read.sessionId)).toEqual(['s-taken'])
    const started = Date.now()
    const untaken = await askSurface(a, 'machine-b', 's-untaken', { signal: never, waitMs: 300 })
    const waited = Date.now() - started
    expect(untaken).toMatchObject({ kind: 'unanswered' })
    expect((untaken as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(300)
    expect(waited).toBeLessThan(1_500)
    expect(await takenOne).toMatchObject({ kind: 'unanswered' })
    expect(await stateOf('s-taken')).toEqual(['abandoned'])
    expect(await stateOf('s-untaken')).toEqual(['abandoned'])
    expect(await b.callAsync('answerRead', [taken[0]!.id, '{"v":1,"found":false}'])).toBe(false)
    // An answerer that starts late takes neither.
    const reads: string[] = []
    answering(b, async id => { reads.push(id); return undefined })
    await sleep(200)
    expect(reads).toEqual([])
  })

  it('two processes of B answering several asks at once: each ask is answered exactly once, by one of them', async () => {
    const { on } = await world()
    const a = await on('machine-a')
    const b1 = await on('machine-b', 4242, 7)
    const b2 = await on('machine-b', 4243, 8)
    const reads: string[] = []
    const answered: string[] = []
    let inFlight = 0
    let mostInFlight = 0
    const counted = (sync: PgSync): ReadStore => ({
      listen: listener => sync.listen(listener),
      callAsync: async <T>(method: string, args: readonly unknown[]): Promise<T> => {
        inFlight += method === 'takeReads' && sync === b1 ? 1 : 0
        mostInFlight = Math.max(mostInFlight, inFlight)
        try {
          const value = await sync.callAsync<T>(method, args)
          if (method === 'answerRead' && value === true) answered.push(args[0] as string)
          return value
        } finally {
          inFlight -= method === 'takeReads' && sync === b1 ? 1 : 0
        }
      },
    })
    const read = async (id: string): Promise<SurfaceView> => {
      reads.push(id)
      await sleep(5)
      return surfaceOf(id)
    }
    const first = answering(counted(b1), read)
    const second = answering(counted(b2), read)
    const ids = Array.from({ length: 16 }, (_, n) => `s-${n}`)
    const results = await Promise.all(ids.map(id => askSurface(a, 'machine-b', id, { signal: never })))
    // A reader may see its answer before the answering process hears its own `answerRead` come back.
    await Promise.all([first.answerer.stop(), second.answerer.stop()])
    expect(results).toEqual(ids.map(id => ({ kind: 'surface', surface: surfaceOf(id) })))
    expect([...reads].sort()).toEqual([...ids].sort())
    expect(answered).toHaveLength(16)
    expect(new Set(answered).size).toBe(16)
    // Sixteen asks, each a NOTIFY, never ran two takes at once in one process.
    expect(mostInFlight).toBe(1)
  })

  it('a surface over the bound is answered too-large (B writes the short answer, not the surface)', async () => {
    const { on, answerOf } = await world()
    const a = await on('machine-a')
    const b = await on('machine-b', 4242, 7)
    answering(b, async id => surfaceOf(id, [userEvent(1, 'x'.repeat(READ_ANSWER_MAX_BYTES))]))
    expect(await askSurface(a, 'machine-b', 's-huge', { signal: never })).toEqual({ kind: 'too-large' })
    expect(await answerOf('s-huge')).toBe('{"v":1,"tooLarge":true}')
  })

  it('a malformed answer from B is failed, never a throw', async () => {
    const { on } = await world()
    const a = await on('machine-a')
    const b = await on('machine-b', 4242, 7)
    const asked = askSurface(a, 'machine-b', 's-1', { signal: never, waitMs: 2_000 })
    let taken: TakenRead[] = []
    while (taken.length === 0) taken = await b.callAsync<TakenRead[]>('takeReads', [4])
    expect(await b.callAsync('answerRead', [taken[0]!.id, '{"v":1,"surface":{"events":"not an array"'])).toBe(true)
    expect(await asked).toEqual({ kind: 'failed', why: 'the answer is not JSON' })
  })

  it('aborting the reader\'s signal abandons the request: cancelled, and never taken after', async () => {
    const { on, stateOf } = await world()
    const a = await on('machine-a')
    const b = await on('machine-b', 4242, 7)
    const controller = new AbortController()
    const asked = askSurface(a, 'machine-b', 's-1', { signal: controller.signal, waitMs: 10_000 })
    await sleep(100)
    const started = Date.now()
    controller.abort()
    expect(await asked).toEqual({ kind: 'cancelled' } satisfies RemoteRead)
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(await stateOf('s-1')).toEqual(['abandoned'])
    expect(await b.callAsync('takeReads', [4])).toEqual([])
  })
})

/** A store whose `takeReads` the test controls, and a way to say "another process changed it". */
function fakeStore(take: () => Promise<TakenRead[]>): { store: ReadStore, changed: () => void, calls: string[] } {
  const listeners = new Set<(event: PgEvent) => void>()
  const calls: string[] = []
  const store: ReadStore = {
    listen: listener => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    callAsync: async <T>(method: string): Promise<T> => {
      calls.push(method)
      return (method === 'takeReads' ? await take() : 0) as T
    },
  }
  return { store, changed: () => { for (const listener of [...listeners]) listener({ changed: true }) }, calls }
}

describe('the answerer, on a fake store', () => {
  it('never runs two takes at once: wakes during a take are coalesced into one more', async () => {
    let inFlight = 0
    let most = 0
    const { store, changed, calls } = fakeStore(async () => {
      most = Math.max(most, ++inFlight)
      await sleep(30)
      inFlight--
      return []
    })
    const answerer = new ReadAnswerer({ store, readSurface: async () => undefined, log: () => undefined, pollMs: 60_000 })
    answerer.start()
    for (let n = 0; n < 10; n++) changed()
    await sleep(150)
    await answerer.stop()
    expect(most).toBe(1)
    // The start's take, then one for the ten wakes that came during it.
    expect(calls.filter(method => method === 'takeReads')).toHaveLength(2)
    // Stopped: nothing more.
    changed()
    await sleep(50)
    expect(calls.filter(method => method === 'takeReads')).toHaveLength(2)
  })

  it('a store fault is logged once per outage, not per wake; one answerer per store', async () => {
    let down = true
    const { store, changed } = fakeStore(async () => {
      if (down) throw storeFault('the server went away', 'connection refused')
      return []
    })
    const logged: string[] = []
    const answerer = new ReadAnswerer({ store, readSurface: async () => undefined, log: line => logged.push(line), pollMs: 60_000 })
    answerer.start()
    expect(() => new ReadAnswerer({ store, readSurface: async () => undefined, log: () => undefined }).start()).toThrow(/one per process/)
    for (let n = 0; n < 5; n++) {
      changed()
      await sleep(5)
    }
    expect(logged).toEqual(['reads asked by other machines cannot be taken or answered now (connection refused); trying again on the next change'])
    down = false
    changed()
    await sleep(5)
    down = true
    changed()
    await sleep(5)
    changed()
    await sleep(5)
    expect(logged).toHaveLength(2)
    await answerer.stop()
  })
})

describe('an answer read from another machine', () => {
  it('reads the four shapes, and anything else as failed with a clean one-line reason', () => {
    const surface = surfaceOf('s-1')
    expect(readAnswer(JSON.stringify({ v: 1, surface }))).toEqual({ kind: 'surface', surface })
    expect(readAnswer('{"v":1,"found":false}')).toEqual({ kind: 'not-found' })
    expect(readAnswer('{"v":1,"tooLarge":true}')).toEqual({ kind: 'too-large' })
    // The first line only (a stack's frames follow it), no control characters, at most 160 characters.
    expect(readAnswer(JSON.stringify({ v: 1, failed: 'Error: it broke\n    at read (/secret/path.js:1:2)' })))
      .toEqual({ kind: 'failed', why: 'Error: it broke' })
    expect(readAnswer(JSON.stringify({ v: 1, failed: `one\u0007\t${'y'.repeat(400)}` })))
      .toEqual({ kind: 'failed', why: `one ${'y'.repeat(155)}…` })
    const failed = (why: string) => ({ kind: 'failed', why })
    expect(readAnswer('not json')).toEqual(failed('the answer is not JSON'))
    expect(readAnswer('{"v":2,"surface":{}}')).toEqual(failed('an answer of another release'))
    expect(readAnswer('[1]')).toEqual(failed('an answer of another release'))
    expect(readAnswer('{"v":1,"failed":42}')).toEqual(failed('the read failed on its machine'))
    expect(readAnswer('{"v":1}')).toEqual(failed('the answer holds no readable surface'))
    const bad = [{ ...surface, events: 'x' }, { ...surface, session: { createdAt: 1 } }, { ...surface, capturedThroughSeq: '3' }]
    for (const wrong of bad) expect(readAnswer(JSON.stringify({ v: 1, surface: wrong }))).toEqual(failed('the answer holds no readable surface'))
    expect(readAnswer(JSON.stringify({ v: 1, surface: { ...surface, capturedThroughSeq: null } }))).toMatchObject({ kind: 'surface' })
    // Over the bound, whatever it says (another release may bound it otherwise).
    expect(readAnswer(JSON.stringify({ v: 1, surface: surfaceOf('s-1', ['z'.repeat(READ_ANSWER_MAX_BYTES)]) }))).toEqual({ kind: 'too-large' })
  })
})
