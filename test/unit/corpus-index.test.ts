import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { encodeLog } from '../../bench/harness/zstd-log.js'
import { counted, Root } from '../support/jsonl-root.js'
import { CorpusIndex, createIndexedSessionQueryPort, encodeSegment, jsonlFiles, jsonlLayout, liveTitle, overlayLive, sessionsList, sessionsRead, type HostAgent } from '../../src/testing.js'
import { makeWorld, session } from '../support/fakes.js'
import { EntryMaps } from '../../src/index/entry-maps.js'
import type { IndexEntry } from '../../src/index/index-entry.js'

const signal = new AbortController().signal
let home: string
let root: Root

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cross-session-index-'))
  root = new Root(home)
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

function layoutOf(): NonNullable<ReturnType<typeof jsonlLayout>> {
  const layout = jsonlLayout(root.persistence())
  if (layout === undefined) throw new Error('layout not recognised')
  return layout
}

describe('jsonlLayout', () => {
  it('recognises the JSONL backend by its locate() and nothing else', () => {
    expect(layoutOf()).toEqual({ root: root.root, fileName: 'session.jsonl.zstd', compressed: true })
    expect(jsonlLayout({ locate: () => undefined })).toBeUndefined() // SQLite: no per-session artifact
    expect(jsonlLayout({ locate: () => ({ kind: 'sqlite', path: '/x/_no-cwd/probe/session.jsonl.zstd' }) })).toBeUndefined()
    expect(jsonlLayout({ locate: () => ({ kind: 'jsonl', path: 'relative/_no-cwd/probe/session.jsonl' }) })).toBeUndefined()
    expect(jsonlLayout({})).toBeUndefined()
    expect(jsonlLayout(undefined)).toBeUndefined()
  })

  it('ports encodeSegment exactly (rc.8 jsonl lib/index.js)', () => {
    expect(['session-1', 'a b/c', '.', '..', 'x~y', 'ünï', '.hidden'].map(encodeSegment))
      .toEqual(['session-1', 'a~0020b~002Fc', '~002E', '~002E~002E', 'x~007Ey', '~00FCn~00EF', '.hidden'])
  })
})

describe('CorpusIndex over real rc.8-format logs', () => {
  it('reads each header once, folds no title on refresh, and re-reads nothing unchanged', async () => {
    for (let index = 0; index < 30; index++) root.write(`session-${index}`, 1000 + index, `title ${index}`)
    const files = counted(jsonlFiles(layoutOf()))
    const index = new CorpusIndex(files)
    expect((await index.refresh(signal)).length).toBe(30)
    expect(files.counts).toMatchObject({ scan: 1, readHeader: 30, readTitle: 0 })
    expect((await index.refresh(signal)).length).toBe(30)
    expect(files.counts).toMatchObject({ scan: 2, readHeader: 30, readTitle: 0 })
  })

  it('sees another process create, append to, replace and delete logs on the next check', async () => {
    root.write('session-a', 1, 'first')
    root.write('session-b', 2, undefined)
    const files = counted(jsonlFiles(layoutOf()))
    const index = new CorpusIndex(files)
    // As the port reads a title: the listing, then that log's revision check (`check`).
    const byId = async () => new Map((await index.refresh(signal)).flatMap(entry => {
      const checked = index.check(entry.header.id, index.generation)
      return checked === undefined ? [] : [[entry.header.id, checked] as const]
    }))
    let entries = await byId()
    expect(index.title(entries.get('session-a')!)).toBe('first')
    expect(index.title(entries.get('session-b')!)).toBeUndefined()
    expect(index.counters).toMatchObject({ titleFolds: 2, titleTailFolds: 0 })
    // Unchanged: cached.
    entries = await byId()
    expect(index.title(entries.get('session-a')!)).toBe('first')
    expect(index.counters.titleFolds).toBe(2)
    // Appended by another writer: only the new frame is folded.
    root.appendTitle('session-a', 2, 'second')
    entries = await byId()
    expect(index.title(entries.get('session-a')!)).toBe('second')
    expect(index.counters).toMatchObject({ titleFolds: 2, titleTailFolds: 1, headerReads: 2 })
    // Created.
    root.write('session-c', 3, 'new one')
    entries = await byId()
    expect([...entries.keys()].sort()).toEqual(['session-a', 'session-b', 'session-c'])
    expect(index.counters.headerReads).toBe(3)
    // Replaced (a new file under the same path, as link() publishes): header and title re-read.
    const replacement = `${root.path('session-b')}.tmp`
    writeFileSync(replacement, encodeLog(JSON.stringify({ type: 'session', version: 0, id: 'session-b', createdAt: 2, cwd: '/work/project' }), [JSON.stringify({ type: 'session/title', seq: 0, time: 2, data: { title: 'renamed', messageSeqs: [], source: { kind: 'user' } } })]))
    renameSync(replacement, root.path('session-b'))
    entries = await byId()
    expect(index.title(entries.get('session-b')!)).toBe('renamed')
    expect(index.counters.headerReads).toBe(4)
    // Deleted.
    rmSync(dirname(root.path('session-c')), { recursive: true })
    entries = await byId()
    expect(entries.has('session-c')).toBe(false)
    expect(index.check('session-c')).toBeUndefined()
  })

  it('reads a directory again only when its stamp moved, and a just-changed one until it settles', async () => {
    const settle = () => new Promise(resolve => setTimeout(resolve, 80))
    const names = (logs: readonly { dirName: string }[]) => logs.map(log => log.dirName).sort()
    root.write('session-a', 1, 'first')
    root.write('session-z', 2, 'other', { cwd: '/work/elsewhere' })
    await settle()
    // A 40 ms margin instead of 2 s, so the test can let a change settle.
    const files = jsonlFiles(layoutOf(), { racyMs: 40 })
    const first = await files.list(signal)
    expect(names(first)).toEqual(['session-a', 'session-z'])
    expect(files.directoryReads).toBe(3) // the root and its two project directories
    expect(await files.list(signal)).toBe(first) // nothing moved: the same array, nothing read
    expect(files.directoryReads).toBe(3)
    // Created in one project: that project alone is read again, at once.
    root.write('session-b', 3, 'second')
    expect(names(await files.list(signal))).toEqual(['session-a', 'session-b', 'session-z'])
    expect(files.directoryReads).toBe(4)
    // Changed within the margin: read again on every call until the change is older than it.
    await files.list(signal)
    expect(files.directoryReads).toBe(5)
    await settle()
    await files.list(signal)
    await files.list(signal)
    expect(files.directoryReads).toBe(6)
    // A session directory deleted, a project created, a project deleted: each seen on the next call.
    rmSync(dirname(root.path('session-b')), { recursive: true })
    expect(names(await files.list(signal))).toEqual(['session-a', 'session-z'])
    root.write('session-y', 4, 'third', { cwd: '/work/third' })
    expect(names(await files.list(signal))).toEqual(['session-a', 'session-y', 'session-z'])
    rmSync(dirname(dirname(root.path('session-z', '/work/elsewhere'))), { recursive: true })
    expect(names(await files.list(signal))).toEqual(['session-a', 'session-y'])
  })

  it('re-checks an unchanged log without allocating a new revision (the same object back)', () => {
    root.write('session-a', 1, 'first')
    const files = jsonlFiles(layoutOf())
    const log = files.restat({ path: root.path('session-a'), dirName: 'session-a' })!
    expect(files.restat(log)).toBe(log)
    root.appendTitle('session-a', 2, 'second')
    const grown = files.restat(log)!
    expect(grown).not.toBe(log)
    expect(grown.identity).toBe(log.identity)
    expect(grown.revision).not.toBe(log.revision)
    expect(grown.size).toBeGreaterThan(log.size)
  })

  it('checks one id without a scan: one stat when known, a probe per project when not', async () => {
    root.write('session-a', 1, 'first')
    root.write('session-z', 2, 'other', { cwd: '/work/elsewhere' })
    const files = counted(jsonlFiles(layoutOf()))
    const index = new CorpusIndex(files)
    expect(index.check('session-z')?.header.cwd).toBe('/work/elsewhere')
    expect(files.counts).toMatchObject({ scan: 0, probe: 1, readHeader: 1 })
    expect(index.check('session-z')?.header.id).toBe('session-z')
    expect(files.counts).toMatchObject({ scan: 0, probe: 1, restat: 1, readHeader: 1 })
    expect(index.check('session-missing')).toBeUndefined()
    expect(index.check('../session-a')).toBeUndefined()
  })

  it('skips files that are not this directory\'s session log', async () => {
    root.write('session-a', 1, 'first')
    const foreign = root.path('session-b')
    mkdirSync(dirname(foreign), { recursive: true })
    writeFileSync(foreign, readFileSync(root.path('session-a'))) // header names session-a
    const index = new CorpusIndex(jsonlFiles(layoutOf()))
    expect((await index.refresh(signal)).map(entry => entry.header.id)).toEqual(['session-a'])
  })

  it('decodes header frames in one batch, and falls back per log around a corrupt one', async () => {
    for (let index = 0; index < 12; index++) root.write(`session-${index}`, index, `t${index}`)
    const files = jsonlFiles(layoutOf())
    const logs = (await files.list(signal)).map(log => files.restat(log)!)
    const one = logs.map(log => files.readHeader(log))
    expect(files.readHeaders(logs)).toEqual(one)
    // Corrupt the header frame's checksum of one log: only that log is skipped.
    const bad = readFileSync(root.path('session-4'))
    bad[bad.indexOf(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), 4) - 1]! ^= 0xff
    writeFileSync(root.path('session-4'), bad)
    const headers = files.readHeaders(logs)
    expect(headers.filter(header => header !== undefined)).toHaveLength(11)
    expect(headers.find(header => header?.id === 'session-4')).toBeUndefined()
    const index = new CorpusIndex(files)
    expect((await index.refresh(signal)).map(entry => entry.header.id)).not.toContain('session-4')
  })

  it('stays within its byte bound (lru-cache) and still answers every refresh', async () => {
    for (let index = 0; index < 40; index++) root.write(`session-${index}`, index, `t${index}`)
    const index = new CorpusIndex(jsonlFiles(layoutOf()), 8_000)
    expect((await index.refresh(signal)).length).toBe(40)
    expect(index.size.bytes).toBeLessThanOrEqual(8_000)
    expect(index.size.entries).toBeLessThan(40)
  })
})

describe('the indexed port under the real tools', () => {
  function setup(count: number) {
    for (let index = 0; index < count; index++) root.write(`session-${String(index).padStart(3, '0')}`, 1000 + index, `title ${index}`)
    const w = makeWorld()
    const me = session('session-me', 5_000_000, { live: true, title: 'Me' })
    w.corpus.add(me)
    const meLive = { id: 'session-me', header: me.header, events: [{ type: 'session/title', seq: 0, data: { title: 'Me, live' } }] }
    const indexes: CorpusIndex[] = []
    const persistence = root.persistence()
    const port = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: { get: id => (id === 'session-me' ? { id } as unknown as HostAgent : undefined), resume: () => { throw new Error('a read or list must never resume') } },
      // A fresh wrapper per call, as Cordis's `ctx.get` hands out a new service proxy each time.
      persistence: () => ({ ...persistence }),
      sessions: () => ({ get: (id: string) => (id === 'session-me' ? meLive : undefined), list: () => [meLive] }),
      onIndex: index => indexes.push(index),
    })
    const deps = { ...w.deps, sessions: port }
    return { w, me, deps, indexes, persistence }
  }

  it('a list folds titles only for the rows it shows and re-reads no unchanged log on the next call', async () => {
    const { w, me, deps, indexes } = setup(60)
    const first = await sessionsList({ limit: 5 }, w.call(me), deps)
    expect(first).toContain('5 of 61 considered sessions')
    expect(first).toContain('  title 59')
    expect(indexes).toHaveLength(1)
    const [index] = indexes
    expect(index!.counters).toEqual({ scans: 1, singleChecks: 0, batchChecks: 0, headerReads: 60, titleFolds: 5, titleTailFolds: 0, sharedRows: 0, sharedWrites: 0, inspects: 0, surfaceHits: 0, surfacesKept: 0, newestLists: 0 })
    const second = await sessionsList({ limit: 5 }, w.call(me), deps)
    expect(second).toBe(first)
    // The second list lists the root (no stat) and checks the revision of the 5 rows it shows only.
    expect(index!.counters).toEqual({ scans: 2, singleChecks: 5, batchChecks: 0, headerReads: 60, titleFolds: 5, titleTailFolds: 0, sharedRows: 0, sharedWrites: 0, inspects: 0, surfaceHits: 0, surfacesKept: 0, newestLists: 0 })
    // The caller (live) is read from memory, never from its log; the fallback
    // port gives liveness only (its one predicate), never a listing or a fold.
    const mine = await sessionsList({ query: 'Me, live' }, w.call(me), deps)
    expect(mine).toContain('session-me [live, top-level]')
    expect(Object.keys(w.corpus.calls)).toEqual(['isLive'])
  })

  it('a query folds each log once, then only logs that changed', async () => {
    const { w, me, deps, indexes } = setup(20)
    expect(await sessionsList({ query: 'title 7' }, w.call(me), deps)).toContain('session-007')
    expect(indexes[0]!.counters.titleFolds).toBe(20)
    root.appendTitle('session-003', 2, 'title 7 too')
    const again = await sessionsList({ query: 'title 7' }, w.call(me), deps)
    expect(again).toContain('session-003')
    expect(indexes[0]!.counters).toMatchObject({ titleFolds: 20, titleTailFolds: 1, headerReads: 20 })
  })

  it('reads a cold session through one inspect of its own log, no listing', async () => {
    const { w, me, deps, indexes, persistence } = setup(3)
    const text = await sessionsRead({ session_id: 'session-001' }, w.call(me), deps)
    expect(text).toContain('session session-001 [cold, top-level]')
    expect(text).toContain('title: title 1')
    expect(text).toContain('hello from session-001')
    expect(persistence.inspected).toEqual(['session-001'])
    expect(indexes[0]!.counters).toMatchObject({ scans: 0, headerReads: 1, titleFolds: 1 })
    // A later call checks that log's revision again (no reuse across calls).
    root.appendTitle('session-001', 2, 'title 1, renamed')
    expect(await sessionsRead({ session_id: 'session-001' }, w.call(me), deps)).toContain('title: title 1, renamed')
    expect(await sessionsRead({ session_id: 'session-404' }, w.call(me), deps)).toContain('not-found')
    expect(persistence.inspected).toEqual(['session-001', 'session-001'])
  })

  it('a session live only in another process (per the fallback\'s isLive) is shown live and read from its log', async () => {
    const { w, me, deps, persistence } = setup(3)
    w.corpus.add(session('session-002', 1002, { live: true }))
    const list = await sessionsList({}, w.call(me), deps)
    expect(list).toContain('- session-002 [live, top-level]')
    expect(list).toContain('- session-001 [cold, top-level]')
    const read = await sessionsRead({ session_id: 'session-002' }, w.call(me), deps)
    expect(read).toContain('session session-002 [live, top-level]')
    expect(read).toContain('hello from session-002')
    expect(persistence.inspected).toEqual(['session-002'])
    expect(w.corpus.calls.readSurface ?? 0).toBe(0)
  })

  it('falls back to sessionQuery for a backend it does not recognise', async () => {
    const w = makeWorld()
    const me = session('session-me', 1, { live: true })
    w.corpus.add(me)
    const port = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: { get: () => undefined, resume: () => { throw new Error('no') } },
      persistence: () => ({ locate: () => undefined, listSnapshots: async () => [] }),
      sessions: () => undefined,
    })
    await sessionsList({}, w.call(me), { ...w.deps, sessions: port })
    expect(w.corpus.calls).toEqual({ listSessions: 1, readTitles: 1 })
  })
})

describe('pure overlays', () => {
  it('liveness is an overlay per call; an unpersisted live session is listed', () => {
    const stored = [{ id: 'a', createdAt: 1 }, { id: 'b', createdAt: 2 }]
    expect(overlayLive(stored, [{ id: 'c', createdAt: 3 }], id => id === 'b')).toEqual([
      { header: { id: 'a', createdAt: 1 }, live: false, persisted: true },
      { header: { id: 'b', createdAt: 2 }, live: true, persisted: true },
      { header: { id: 'c', createdAt: 3 }, live: true, persisted: false },
    ])
  })

  it('folds a live title like foldSessionTitle (the last session/title event)', () => {
    expect(liveTitle([{ type: 'session/title', data: { title: 'one' } }, { type: 'x' }, { type: 'session/title', data: { title: 'two' } }])).toBe('two')
    expect(liveTitle([{ type: 'user/message' }])).toBeUndefined()
    expect(liveTitle('nope')).toBeUndefined()
  })
})

describe('EntryMaps: one entry per session', () => {
  const entry = (path: string, id: string, createdAt: number): IndexEntry => ({
    log: { path, dirName: encodeSegment(id), identity: `1:${path}:1`, revision: '', size: 0 },
    header: { id, createdAt } as IndexEntry['header'],
  })

  it('a refresh whose logs are all distinct sessions is itself; a session in two directories shows its newer log once', () => {
    const maps = new EntryMaps(1 << 30)
    const first = [maps.put(entry('/r/a/s1/log', 's1', 1)), maps.put(entry('/r/a/s2/log', 's2', 2))]
    expect(maps.onePerSession(first)).toBe(first)
    const twin = maps.put(entry('/r/b/s1/log', 's1', 3))
    expect(maps.onePerSession([...first, twin])).toEqual([first[1], twin])
  })

  it('a log replaced under its path by another session\'s header takes its old id with it, so a later twin is still found', () => {
    const maps = new EntryMaps(1 << 30)
    maps.put(entry('/r/a/x/log', 'x', 1))
    const replaced = maps.put(entry('/r/a/x/log', 'y', 2))
    const twin = maps.put(entry('/r/b/y/log', 'y', 3))
    expect(maps.byId.has('x')).toBe(false)
    expect(maps.onePerSession([replaced, twin])).toEqual([twin])
  })

  it('rows fed to empty maps are counted as held even when the feed fails part way', () => {
    const maps = new EntryMaps(1 << 30)
    const row = (id: string) => ({ path: `/r/a/${id}/log`, sessionId: id, dirName: id, identity: `1:${id}:1`, header: { id, createdAt: 1 } as IndexEntry['header'] })
    expect(() => maps.putRows(put => {
      put(row('s1'))
      put(row('s2'))
      throw new Error('the store failed')
    })).toThrow('the store failed')
    expect(maps.size.entries).toBe(2)
    expect(maps.size.bytes).toBeGreaterThan(0)
    expect(maps.changes).toBe(2)
    // A feed that ends: what it returned is handed back.
    expect(new EntryMaps(1 << 30).putRows(put => {
      put(row('s3'))
      return 1
    })).toBe(1)
  })
})
