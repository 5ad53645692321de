/**
 * The shipped home runtime (`home/runtime.ts`, no copy) on the PostgreSQL
 * store through the port (`home/pg/pg-home-store.ts`): two machines on one
 * throwaway PostgreSQL server (`test/support/pg-cluster.ts`), a sender on
 * machine A and a session live in a process of machine B (an rc.8-shaped
 * agent, test/support/rc8-sim.ts). B's runtime hears A's post by `NOTIFY`
 * (its store watch is pushed, not polled), claims it, admits it into the
 * live session, and records it once the log is on disk: delivered once,
 * and A reads where.
 *
 * @module test/unit/pg-runtime
 */
import { afterEach, describe, expect, it } from 'vitest'
import { HomeRuntime, selfTag, StoreWatch, type CorpusRows } from '../../src/testing.js'
import { PgHomeStore } from '../../src/home/pg/pg-home-store.js'
import { PgSync } from '../../src/home/pg/pg-sync.js'
import { rc8Session, SimAgent } from '../support/rc8-sim.js'
import { pgUrl, testSchema } from '../support/pg-target.ts'

const url = pgUrl()
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A schema of this test's own (its tables made by the first store that opens it), dropped after the test. */
async function freshSchema(): Promise<string> {
  const { schema, drop } = await testSchema(url!, 'xs_runtime', false)
  cleanups.push(drop)
  return schema
}

/** This process as a process of `machine`, on the store's worker thread. */
function machine(schema: string, name: string): PgHomeStore {
  const self = { machine: name, ...selfTag() }
  const sync = new PgSync({ url: url!, schema, self, machineName: name })
  sync.call('prepare', [])
  const store = new PgHomeStore(sync, self, () => { throw new Error('no corpus rows in this test') }) as PgHomeStore & { corpus(): CorpusRows }
  cleanups.push(() => store.close())
  return store
}

/** Wait (polling the event loop, at most `ms`) until `probe` holds. */
async function until(probe: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!probe()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise(resolve => setTimeout(resolve, 5))
  }
}

describe.skipIf(url === undefined)('the home runtime on the PostgreSQL store', () => {
  it('a message posted on machine A is delivered once into a session live on machine B, woken by NOTIFY, and recorded', async () => {
    const schema = await freshSchema()
    const onA = machine(schema, 'machine-a')
    const onB = machine(schema, 'machine-b')
    const { log, broken } = rc8Session('s')
    const agent = new SimAgent(log, () => undefined, () => undefined)
    // A poll slower than the test: only the pushed NOTIFY can wake B in time.
    const watch = new StoreWatch(onB, { pushed: changed => onB.onChange(changed) }, 60_000)
    const logged: string[] = []
    const runtime = new HomeRuntime(onB, watch, {
      agents: { get: id => id === 's' ? agent : undefined, list: () => [agent], resume: () => Promise.reject(new Error('no resume here')) },
      log: line => logged.push(line),
      longLived: () => false,
      flush: async () => { log.persist() },
      // No reconcile timer: only what the store watch hears makes B look.
      clock: { every: () => () => undefined, atExit: () => () => undefined },
    })
    cleanups.push(() => {
      runtime.stop()
      watch.stop()
    })
    runtime.start()
    expect(onA.view('s').holder).toMatchObject({ tag: { machine: 'machine-b' }, state: 'live' })

    // B settles: what its start did pokes its own watch; after this, nothing but what it hears makes it look again.
    await new Promise(resolve => setTimeout(resolve, 300))
    onA.join(false)
    const posted = onA.post({ messageId: 'from-a-1', target: 's', sender: 'session-on-a', hop: 1, mode: 'queue', text: 'hello from A',
      mayWake: true })
    expect(posted).toMatchObject({ ok: true, duplicate: false })
    await until(() => agent.inbox.nextTurn.some(message => message.id === 'from-a-1'))
    while (agent.step()) { /* the turn takes it and ends */ }
    runtime.onSessionEvent('s')
    await until(() => onA.message('from-a-1')?.state === 'recorded')

    const seq = log.events[log.userIndex('from-a-1')]!.seq
    expect(onA.message('from-a-1')).toMatchObject({ state: 'recorded', seq, claimer: { machine: 'machine-b' } })
    expect(log.events.filter(event => event.type === 'user/message' && event.data.id === 'from-a-1')).toHaveLength(1)
    expect(broken).toEqual([])
    expect(logged).toEqual([])
  }, 60_000)
})
