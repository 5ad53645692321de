/**
 * The corpus index shared through the home store (docs/performance.md "What
 * a new process reads", docs/architecture.md §8 `corpus_logs`): each
 * simulated process is its own SQLite connection (`openHomeStore`) and its
 * own `CorpusIndex` over the same rc.8-format root, with counted file
 * operations, so "reads no header" and "folds no title" are counts of reads
 * that really happen.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CorpusIndex, createIndexedSessionQueryPort, jsonlFiles, jsonlLayout, openHomeStore, RowWrites, SharedIndex, sessionsList, storePaths,
  type HostAgent, type SqliteHomeStore } from '../../src/testing.js'
import { makeWorld, session } from '../support/fakes.js'
import { counted, Root } from '../support/jsonl-root.js'
import { mulberry32 } from '../support/prng.js'

const signal = new AbortController().signal
let home: string
let root: Root
const stores: SqliteHomeStore[] = []

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cross-session-shared-'))
  root = new Root(home)
})
afterEach(() => {
  for (const store of stores.splice(0)) store.close()
  rmSync(home, { recursive: true, force: true })
})

let nextPid = 1000
/** One simulated process: its own store connection and index. */
function processOn(): { index: CorpusIndex, files: ReturnType<typeof counted>, store: SqliteHomeStore } {
  const store = openHomeStore(home, { pid: nextPid++, start: 1 }, () => true)
  stores.push(store)
  const layout = jsonlLayout(root.persistence())!
  const files = counted(jsonlFiles(layout))
  const index = new CorpusIndex(files, undefined, new SharedIndex(() => store.corpus(), `${layout.root}\0${layout.fileName}`))
  return { index, files, store }
}

/** What a list shows: id → title, for every log now. */
async function listed(index: CorpusIndex): Promise<Record<string, string | undefined>> {
  const entries = await index.refresh(signal)
  const out: Record<string, string | undefined> = {}
  // As the port reads a title: that log's revision check, then the title at that revision.
  for (const entry of entries) {
    const checked = index.check(entry.header.id, index.generation)
    if (checked !== undefined) out[entry.header.id] = index.title(checked)
  }
  index.flush()
  return out
}

describe('the shared corpus index', () => {
  it('a second process lists without reading any unchanged header or folding any unchanged title', async () => {
    for (let n = 0; n < 25; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const first = processOn()
    const seen = await listed(first.index)
    expect(first.files.counts).toMatchObject({ readHeader: 25, readTitle: 25 })
    const second = processOn()
    expect(await listed(second.index)).toEqual(seen)
    expect(second.files.counts).toMatchObject({ scan: 1, restat: 25, readHeader: 0, readTitle: 0 })
    expect(second.index.counters).toMatchObject({ headerReads: 0, titleFolds: 0, titleTailFolds: 0, sharedRows: 25 })
    // A cold read's check in a third process: one row by id, one stat, no header, no fold.
    const third = processOn()
    const entry = third.index.check('session-7')!
    expect(third.index.title(entry)).toBe('title 7')
    expect(third.files.counts).toMatchObject({ scan: 0, probe: 0, restat: 1, readHeader: 0, readTitle: 0 })
    // A log that only grew: a new process folds its appended frames only, from where the row's fold ended.
    root.appendTitle('session-7', 2, 'title 7, grown')
    const fourth = processOn()
    expect(fourth.index.title(fourth.index.check('session-7')!)).toBe('title 7, grown')
    expect(fourth.index.counters).toMatchObject({ titleFolds: 0, titleTailFolds: 1, headerReads: 0 })
  })

  it('sees sessions created, written and deleted by another process on its next call', async () => {
    for (let n = 0; n < 5; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const a = processOn()
    const b = processOn()
    await listed(a.index)
    expect(Object.keys(await listed(b.index))).toHaveLength(5)
    root.write('session-new', 2000, 'brand new')
    root.appendTitle('session-1', 2, 'renamed elsewhere')
    rmSync(join(root.path('session-2'), '..'), { recursive: true })
    // Replaced by a new file (a new identity): its row is not trusted.
    root.replace('session-3', 1003, 'rewritten')
    const before = { ...b.files.counts }
    const next = await listed(b.index)
    expect(next).toEqual({ 'session-0': 'title 0', 'session-1': 'renamed elsewhere', 'session-3': 'rewritten', 'session-4': 'title 4', 'session-new': 'brand new' })
    expect(b.files.counts.readHeader! - before.readHeader!).toBe(2)
    expect(b.index.counters.titleTailFolds).toBe(1)
    // A third process starts from the rows the others left: exact, and reads only what none of them read.
    const c = processOn()
    expect(await listed(c.index)).toEqual(next)
    expect(c.files.counts).toMatchObject({ readHeader: 0 })
  })

  it('a corrupt or missing store rebuilds the index from the logs', async () => {
    for (let n = 0; n < 6; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const a = processOn()
    const seen = await listed(a.index)
    for (const store of stores.splice(0)) store.close()
    const { file } = storePaths(home)
    writeFileSync(file, 'not a database at all, just some bytes that are long enough to look like a header page')
    rmSync(`${file}-wal`, { force: true })
    rmSync(`${file}-shm`, { force: true })
    const b = processOn()
    expect(await listed(b.index)).toEqual(seen)
    expect(b.files.counts).toMatchObject({ readHeader: 6 })
    for (const store of stores.splice(0)) store.close()
    renameSync(file, `${file}.gone`)
    for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true })
    const c = processOn()
    expect(await listed(c.index)).toEqual(seen)
    expect(c.files.counts).toMatchObject({ readHeader: 6 })
  })

  it('a seeded crash schedule of index writes: whatever a killed process left, the next process lists exactly the logs', async () => {
    const random = mulberry32(20_261_201)
    const truth = new Map<string, { createdAt: number, title: string }>()
    let serial = 0
    for (let step = 0; step < 60; step++) {
      // Another process changes the corpus.
      const ids = [...truth.keys()]
      const roll = random()
      if (roll < 0.4 || ids.length === 0) {
        const id = `session-${serial++}`
        truth.set(id, { createdAt: 1000 + serial, title: `t${serial}` })
        root.write(id, 1000 + serial, `t${serial}`)
      } else if (roll < 0.7) {
        const id = ids[Math.floor(random() * ids.length)]!
        const title = `r${step}`
        truth.set(id, { ...truth.get(id)!, title })
        root.appendTitle(id, 2 + step, title)
      } else if (roll < 0.85) {
        const id = ids[Math.floor(random() * ids.length)]!
        truth.delete(id)
        rmSync(join(root.path(id), '..'), { recursive: true })
      } else {
        const id = ids[Math.floor(random() * ids.length)]!
        root.replace(id, truth.get(id)!.createdAt, truth.get(id)!.title)
      }
      // A process indexes and is killed at a random write: its transaction never commits.
      const victim = processOn()
      const killAt = Math.floor(random() * 4)
      let writes = 0
      const inner = victim.store.corpus()
      const dying = new CorpusIndex(victim.files, undefined, new SharedIndex(() => ({
        ...inner,
        write: (key, changes) => {
          if (writes++ === killAt) {
            // SIGKILL mid-transaction: the connection dies with its write uncommitted.
            victim.store.close()
            throw new Error('killed')
          }
          inner.write(key, changes)
        },
      }), `${jsonlLayout(root.persistence())!.root}\0session.jsonl.zstd`))
      try {
        await listed(dying)
        await listed(dying)
      } catch {
        // The dead process answers nothing more.
      }
      const expected = Object.fromEntries([...truth].map(([id, value]) => [id, value.title]))
      expect(await listed(processOn().index)).toEqual(expected)
    }
  })
})

describe('liveness of a list', () => {
  it('takes every row\'s liveness from one registry listing, never one lookup per session', async () => {
    for (let n = 0; n < 40; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const w = makeWorld()
    const me = session('session-me', 5_000_000, { live: true, title: 'Me' })
    w.corpus.add(me)
    const calls = { get: 0, list: 0 }
    const live = ['session-me', 'session-3'].map(id => ({ id }) as unknown as HostAgent)
    const persistence = root.persistence()
    w.corpus.isLive = () => { throw new Error('a list must not ask liveness per row') }
    const port = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: {
        get: id => { calls.get++; return live.find(agent => agent.id === id) },
        list: () => { calls.list++; return live },
        resume: () => { throw new Error('a list must never resume') },
      },
      persistence: () => persistence,
      sessions: () => undefined,
    })
    const deps = { ...w.deps, sessions: port }
    expect(await sessionsList({}, w.call(me), deps)).toContain('- session-39 [cold, top-level]')
    expect(calls).toEqual({ get: 0, list: 1 })
    expect(await sessionsList({ live_only: true }, w.call(me), deps)).toContain('- session-3 [live, top-level]')
    expect(calls).toEqual({ get: 0, list: 2 })
  })
})

describe('when the rows a list read are written', () => {
  /** A port over `root` with a shared store whose writes are recorded: per write, the headers (titled or not) and retitles. */
  function portWithWrites(lifetime?: AbortSignal) {
    const store = openHomeStore(home, { pid: nextPid++, start: 1 }, () => true)
    stores.push(store)
    const writes: Array<{ headers: number, titled: number, retitles: number }> = []
    const corpus = store.corpus()
    const recorded = { ...corpus, write: (rootKey: string, changes: Parameters<typeof corpus.write>[1]) => {
      writes.push({ headers: changes.headers.length, titled: changes.headers.filter(row => row.title !== undefined).length,
        retitles: changes.titles.length })
      corpus.write(rootKey, changes)
    } }
    const w = makeWorld()
    const me = session('session-me', 5_000_000, { live: true, title: 'Me' })
    w.corpus.add(me)
    const persistence = root.persistence()
    const port = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: { get: () => undefined, list: () => [], resume: () => { throw new Error('a list must never resume') } },
      persistence: () => persistence,
      sessions: () => undefined,
      shared: () => recorded,
      lifetime,
    })
    return { w, me, deps: { ...w.deps, sessions: port }, writes, store }
  }
  const turn = () => new Promise(resolve => setTimeout(resolve, 5))

  it('a query on a home no process indexed writes each log\'s row once, its title with its header', async () => {
    for (let n = 0; n < 30; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const { w, me, deps, writes } = portWithWrites()
    expect(await sessionsList({ query: 'title 2' }, w.call(me), deps)).toContain('- session-29 ')
    await turn()
    expect(writes).toEqual([{ headers: 30, titled: 30, retitles: 0 }])
  })

  it('a list writes its rows with the titles of the rows it shows, and one that reads no title once the event loop turns', async () => {
    for (let n = 0; n < 10; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const { w, me, deps, writes, store } = portWithWrites()
    await sessionsList({ limit: 3 }, w.call(me), deps)
    await turn()
    expect(writes).toEqual([{ headers: 10, titled: 3, retitles: 0 }])
    // Nothing shown (no subagent on this home): no title read, the rows written all the same.
    for (let n = 10; n < 15; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    expect(await sessionsList({ scope: 'subagents' }, w.call(me), deps)).toContain('0 of 0 considered sessions')
    expect(writes).toHaveLength(1)
    await turn()
    expect(writes).toEqual([{ headers: 10, titled: 3, retitles: 0 }, { headers: 5, titled: 0, retitles: 0 }])
    expect(store.corpus().all(`${jsonlLayout(root.persistence())!.root}\0session.jsonl.zstd`)).toHaveLength(15)
  })

  it('one pending write at a time, and none once a title read took it over', async () => {
    let flushes = 0
    const rows = new RowWrites(() => { flushes++ })
    rows.soon()
    rows.soon()
    await turn()
    expect(flushes).toBe(1)
    rows.soon()
    rows.take()
    await turn()
    expect(flushes).toBe(1)
    // Taken over, then wanted again (a title read that ended early): written once more.
    rows.soon()
    await turn()
    expect(flushes).toBe(2)
  })

  it('the plugin\'s end writes what is queued', async () => {
    for (let n = 0; n < 4; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const lifetime = new AbortController()
    const { w, me, deps, writes } = portWithWrites(lifetime.signal)
    await sessionsList({ scope: 'subagents' }, w.call(me), deps)
    lifetime.abort()
    expect(writes).toEqual([{ headers: 4, titled: 0, retitles: 0 }])
  })
})
