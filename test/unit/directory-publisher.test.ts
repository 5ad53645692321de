/**
 * The publisher of this machine's sessions (`src/home/pg/directory-publisher.ts`)
 * over the in-memory session port and a store that records what it is told
 * to write (the store's own transaction is proven against a real server in
 * `test/unit/pg-directory.test.ts`): what is written at start, after a
 * change, and when nothing changed; titles kept when not reached; a
 * failure said once and the published rows read again after it.
 * @module test/unit/directory-publisher
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DirectoryPublisher, PUBLISH_EVERY_MS, PUBLISH_SOON_MS } from '../../src/home/pg/directory-publisher.js'
import type { DirectoryChange, DirectoryRow } from '../../src/home/pg/directory-rows.js'
import type { InboundMode } from '../../src/settings/resolve.js'
import { FakeSessionQuery, session } from '../support/fakes.js'

afterEach(() => {
  vi.useRealTimers()
})

/** A store that keeps what was published, as the server would, and counts its reads. */
function fakeStore() {
  const rows = new Map<string, DirectoryRow>()
  const writes: Array<{ change: DirectoryChange, inbound: InboundMode }> = []
  let reads = 0
  let failing = false
  return {
    rows, writes,
    get reads() { return reads },
    fail(on: boolean) { failing = on },
    async published() {
      reads++
      if (failing) throw new Error('the PostgreSQL server cannot be reached')
      return new Map(rows)
    },
    async publish(change: DirectoryChange, inbound: InboundMode) {
      if (failing) throw new Error('the PostgreSQL server cannot be reached')
      writes.push({ change, inbound })
      for (const id of change.removed) rows.delete(id)
      for (const row of change.upserts) rows.set(row.header.id, row)
    },
  }
}

describe('publishing this machine\'s sessions', () => {
  it('publishes every session with its title and live flag, then only what changed, and the machine\'s inbound setting each time', async () => {
    const sessions = new FakeSessionQuery()
    sessions.add(session('s-1', 1, { title: 'first', live: true })).add(session('s-2', 2, { title: 'second' }))
    const store = fakeStore()
    let inbound: InboundMode = 'accept'
    const publisher = new DirectoryPublisher(sessions, store, () => undefined, () => inbound)
    await publisher.publish()
    expect([...store.rows.values()].map(row => [row.header.id, row.title, row.live]).sort())
      .toEqual([['s-1', 'first', true], ['s-2', 'second', false]])
    expect(store.writes.at(-1)?.inbound).toBe('accept')
    // s-2 goes live, s-1 is gone, s-3 is new: one write of exactly that.
    sessions.sessions.delete('s-1')
    sessions.sessions.get('s-2')!.live = true
    sessions.add(session('s-3', 3, { title: 'third' }))
    inbound = 'hold'
    await publisher.publish()
    const last = store.writes.at(-1)!
    expect(last.change.removed).toEqual(['s-1'])
    expect(last.change.upserts.map(row => row.header.id).sort()).toEqual(['s-2', 's-3'])
    expect(last.inbound).toBe('hold')
    // Nothing changed: the write carries no row (only the setting).
    await publisher.publish()
    expect(store.writes.at(-1)?.change).toEqual({ upserts: [], removed: [] })
    // What was published is read from the store once, not at each publication.
    expect(store.reads).toBe(1)
  })

  it('keeps the title published before for a session whose title the publication did not reach', async () => {
    const sessions = new FakeSessionQuery()
    sessions.add(session('s-1', 1, { title: 'known' }))
    const store = fakeStore()
    const publisher = new DirectoryPublisher(sessions, store, () => undefined, () => 'accept')
    await publisher.publish()
    // A fold that ran out of time gives no entry for the id (SessionQueryPort.readTitles with a budget).
    sessions.readTitles = async () => new Map()
    sessions.sessions.get('s-1')!.live = true
    await publisher.publish()
    expect(store.rows.get('s-1')).toMatchObject({ title: 'known', live: true })
  })

  it('a failure is said once, what was published is read again after it, and the next publication writes it all', async () => {
    const sessions = new FakeSessionQuery()
    sessions.add(session('s-1', 1, { title: 'one' }))
    const store = fakeStore()
    const logs: string[] = []
    const publisher = new DirectoryPublisher(sessions, store, line => logs.push(line), () => 'accept')
    store.fail(true)
    await publisher.publish()
    await publisher.publish()
    expect(logs.filter(line => line.includes('failed'))).toHaveLength(1)
    store.fail(false)
    await publisher.publish()
    expect(store.rows.has('s-1')).toBe(true)
    expect(logs.at(-1)).toContain('published again')
    expect(store.reads).toBe(3)
  })

  it('publishes soon after a change seen (changes in between in one publication) and on its own every interval; none once stopped', async () => {
    vi.useFakeTimers()
    const sessions = new FakeSessionQuery()
    sessions.add(session('s-1', 1))
    const store = fakeStore()
    const publisher = new DirectoryPublisher(sessions, store, () => undefined, () => 'accept')
    publisher.start()
    await vi.advanceTimersByTimeAsync(0)
    expect(store.writes).toHaveLength(1)
    publisher.poke()
    publisher.poke()
    await vi.advanceTimersByTimeAsync(PUBLISH_SOON_MS)
    expect(store.writes).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(PUBLISH_EVERY_MS)
    expect(store.writes.length).toBeGreaterThanOrEqual(3)
    const before = store.writes.length
    publisher.stop()
    publisher.poke()
    await vi.advanceTimersByTimeAsync(PUBLISH_EVERY_MS * 2)
    expect(store.writes).toHaveLength(before)
  })
})
