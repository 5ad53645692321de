/**
 * The corpus index's shared rows read whole (`home/corpus-row-read.ts`):
 * every row of a root, across the chunks it is read in, from one snapshot
 * while another process rewrites rows between two chunks; unusable rows
 * left out. And how a new process takes them (`index/shared-index.ts`): a
 * store failing part way, a visitor's own fault, a store file replaced.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { ALL_ROWS_CHUNK } from '../../src/home/corpus-row-read.js'
import type { CorpusRow } from '../../src/index/shared-rows.js'
import { openHomeStore, SharedIndex, storePaths, StoreSupervisor, sqliteSite, type CorpusRows, type HomeStore } from '../../src/testing.js'

const opened: HomeStore[] = []
const dirs: string[] = []
afterEach(() => {
  for (const store of opened.splice(0)) store.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const homes = new Map<HomeStore, string>()
const home = (store: HomeStore): string => homes.get(store)!

/** Two processes' stores on one new home. */
function twoStores(): [HomeStore, HomeStore] {
  const dir = mkdtempSync(join(tmpdir(), 'xs-corpus-'))
  dirs.push(dir)
  const open = (pid: number): HomeStore => openHomeStore(dir, { pid, start: 1 }, () => true)
  const stores: [HomeStore, HomeStore] = [open(1), open(2)]
  for (const store of stores) homes.set(store, dir)
  opened.push(...stores)
  return stores
}

function row(index: number): CorpusRow {
  const id = `session-${index}`
  return { path: `/r/p/${id}/log`, sessionId: id, dirName: id, identity: `1:${index}:3`, header: { id, createdAt: index } }
}

describe('the shared rows of a root, read whole', () => {
  it('hands every row to the visitor across chunks, and the rows of another root to none', () => {
    const [store] = twoStores()
    const count = 2 * ALL_ROWS_CHUNK + 7
    store.corpus().write('R', { headers: Array.from({ length: count }, (_, index) => row(index)), removed: [], titles: [] })
    store.corpus().write('other', { headers: [{ ...row(0), path: '/elsewhere/log' }], removed: [], titles: [] })
    const seen: string[] = []
    expect(store.corpus().each('R', visited => seen.push(visited.path))).toBe(count)
    expect(new Set(seen).size).toBe(count)
    expect(seen).not.toContain('/elsewhere/log')
    expect(store.corpus().all('R').map(visited => visited.path)).toEqual(seen)
  })

  it('reads one snapshot: a row another process rewrites between two chunks is read once, as it was', () => {
    const [reader, writer] = twoStores()
    const count = ALL_ROWS_CHUNK + 10
    reader.corpus().write('R', { headers: Array.from({ length: count }, (_, index) => row(index)), removed: [], titles: [] })
    const seen = new Map<string, number[]>()
    let visits = 0
    reader.corpus().each('R', visited => {
      seen.set(visited.path, [...seen.get(visited.path) ?? [], visited.header.createdAt])
      // Once the first row is read: another process removes it and writes it again (a new rowid, after every
      // chunk), and adds a row. Read without one snapshot, the rewritten row would be visited a second time.
      if (visits++ === 0) {
        writer.corpus().write('R', { headers: [], removed: [visited.path], titles: [] })
        writer.corpus().write('R', { headers: [{ ...row(0), header: { id: 'session-0', createdAt: 99 } }, row(count)], removed: [], titles: [] })
      }
    })
    expect(visits).toBe(count)
    expect(seen.get(row(0).path)).toEqual([0])
    expect(seen.has(row(count).path)).toBe(false)
    // The next read sees what the other process wrote.
    const after = reader.corpus().all('R')
    expect(after).toHaveLength(count + 1)
    expect(after.find(each => each.path === row(0).path)?.header.createdAt).toBe(99)
  })

  it('leaves out a row without a usable session id, and reads a title only when its revision, file and size are all there', () => {
    const [store] = twoStores()
    store.corpus().write('R', { headers: [row(1)], removed: [], titles: [] })
    // Rows another writer left (an older release, a hand edit): the table's own types allow each of these (a path,
    // a directory name and a file identity cannot be anything but text there: STRICT, NOT NULL, the key).
    const db = new DatabaseSync(storePaths(home(store)).file)
    const insert = db.prepare('INSERT INTO corpus_logs (root, path, session_id, dir_name, identity, created_at, title_revision, title_identity, '
      + 'title, title_bytes) VALUES (\'R\', ?, ?, \'d\', \'1:2:3\', 5, ?, ?, ?, ?)')
    insert.run('/r/p/empty-id/log', '', null, null, null, null)
    insert.run('/r/p/titled/log', 'session-titled', '1:2:3:9:1:1', '1:2:3', 'Alpha', 9)
    insert.run('/r/p/no-revision/log', 'session-no-revision', null, '1:2:3', 'Alpha', 9)
    insert.run('/r/p/no-identity/log', 'session-no-identity', '1:2:3:9:1:1', null, 'Alpha', 9)
    insert.run('/r/p/no-size/log', 'session-no-size', '1:2:3:9:1:1', '1:2:3', 'Alpha', null)
    db.close()
    const seen: CorpusRow[] = []
    expect(store.corpus().each('R', visited => seen.push(visited))).toBe(5)
    expect(seen.map(visited => visited.sessionId).sort()).toEqual(['session-1', 'session-no-identity', 'session-no-revision', 'session-no-size', 'session-titled'])
    const titled = (path: string): unknown => seen.find(visited => visited.path === path)?.title
    expect(titled('/r/p/titled/log')).toEqual({ revision: '1:2:3:9:1:1', identity: '1:2:3', value: 'Alpha', completeBytes: 9 })
    for (const path of ['/r/p/no-revision/log', '/r/p/no-identity/log', '/r/p/no-size/log']) expect(titled(path)).toBeUndefined()
    expect(store.corpus().all('R')).toEqual(seen)
    // One row by path or by session id: an unusable row is no row.
    expect(store.corpus().byPath('/r/p/empty-id/log')).toBeUndefined()
    expect(store.corpus().bySession('R', 'session-titled')?.title?.value).toBe('Alpha')
  })

  it('takes a row\'s session directory from its path, and leaves out a row whose path has none', () => {
    const [store] = twoStores()
    store.corpus().write('R', { headers: [row(1)], removed: [], titles: [] })
    const db = new DatabaseSync(storePaths(home(store)).file)
    const insert = db.prepare('INSERT INTO corpus_logs (root, path, session_id, dir_name, identity, created_at) VALUES (\'R\', ?, ?, ?, \'1:2:3\', 5)')
    // The directory column (written, not read) disagrees with the path: the path decides.
    insert.run('/r/p/session-2/log', 'session-2', 'another-dir')
    for (const [path, id] of [['no-slash', 'session-3'], ['/log', 'session-4'], ['/r//log', 'session-5']] as const) insert.run(path, id, 'd')
    db.close()
    const seen = store.corpus().all('R')
    expect(seen.map(each => [each.sessionId, each.dirName])).toEqual([['session-1', 'session-1'], ['session-2', 'session-2']])
    expect(store.corpus().byPath('/r/p/session-2/log')?.dirName).toBe('session-2')
    expect(store.corpus().bySession('R', 'session-4')).toBeUndefined()
  })

  it('reads every workspace, preset and origin right, however many distinct ones a home has', () => {
    const [store] = twoStores()
    // More distinct workspaces than one read keeps a single copy of, and a few that repeat.
    const count = 5000
    const headers = Array.from({ length: count }, (_, index) => {
      const base = row(index)
      return { ...base, header: { ...base.header, cwd: `/work/w${index % 4500}`, agentPreset: index % 2 === 0 ? 'code' : 'plan',
        origin: 'user' } }
    })
    store.corpus().write('R', { headers, removed: [], titles: [] })
    const seen = new Map(store.corpus().all('R').map(each => [each.sessionId, each.header]))
    expect(seen.size).toBe(count)
    for (const { header } of headers) expect(seen.get(header.id)).toEqual(header)
  })

  it('a read that fails part way reports its own error and leaves no transaction open on the connection', () => {
    const [store] = twoStores()
    store.corpus().write('R', { headers: [row(1), row(2)], removed: [], titles: [] })
    expect(() => store.corpus().each('R', () => {
      throw new Error('the visitor failed')
    })).toThrow('the visitor failed')
    // The connection takes its next transaction (a nested `BEGIN` would throw).
    store.corpus().write('R', { headers: [row(3)], removed: [], titles: [] })
    expect(store.corpus().all('R')).toHaveLength(3)
  })
})

describe('a new process taking every shared row (SharedIndex.takeAll)', () => {
  /** Rows whose `each` hands over `rows` and then fails as a store would (or not, with `failAfter` undefined). */
  const rowsFailingAfter = (rows: CorpusRow[], failAfter?: number): CorpusRows => ({
    ...{} as CorpusRows,
    each(_root, visit) {
      for (const [index, each] of rows.entries()) {
        if (index === failAfter) throw Object.assign(new Error('disk I/O error'), { code: 'ERR_SQLITE_ERROR', errcode: 10 })
        visit(each)
      }
      return rows.length
    },
  })

  it('counts the rows it was handed until the store failed, reports that failure once, and takes nothing the second time', () => {
    const reported: unknown[] = []
    const shared = new SharedIndex(() => rowsFailingAfter([row(1), row(2), row(3), row(4)], 3), 'R', error => reported.push(error))
    const taken: string[] = []
    expect(shared.takeAll(each => taken.push(each.path))).toBe(3)
    expect(taken).toEqual([row(1).path, row(2).path, row(3).path])
    expect(reported).toEqual([expect.objectContaining({ message: 'disk I/O error' })])
    expect(shared.takeAll(() => taken.push('again'))).toBe(0)
  })

  it('throws what its visitor throws, counts only the rows the visitor took, and does not take it for the store failing', () => {
    const reported: unknown[] = []
    const shared = new SharedIndex(() => rowsFailingAfter([row(1), row(2), row(3)]), 'R', error => reported.push(error))
    let calls = 0
    expect(() => shared.takeAll(() => {
      if (++calls === 2) throw new TypeError('a bug of the caller')
    })).toThrow('a bug of the caller')
    expect(calls).toBe(2)
    expect(reported).toEqual([])
  })

  it('shares with the store file open now: one replaced under the running process is written from the next flush on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'xs-corpus-'))
    dirs.push(dir)
    const self = { pid: process.pid, start: 1 }
    const supervisor = new StoreSupervisor(sqliteSite(busyMs => openHomeStore(dir, self, () => true, () => undefined, Date.now, busyMs),
      storePaths(dir).file), self, () => undefined)
    supervisor.start(20)
    const reported: unknown[] = []
    const shared = new SharedIndex(() => supervisor.corpus(), 'R', error => reported.push(error))
    try {
      shared.header(row(1))
      expect(shared.flush()).toBe(1)
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${storePaths(dir).file}${suffix}`, { force: true })
      shared.header(row(2))
      expect(shared.flush()).toBe(1)
      expect(supervisor.corpus()?.all('R').map(each => each.path)).toEqual([row(2).path])
      expect(reported).toEqual([])
    } finally {
      supervisor.close()
    }
  })
})
