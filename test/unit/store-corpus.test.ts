/**
 * The corpus index's shared rows read whole (`home/store-corpus.ts`): every
 * row of a root, across the chunks it is read in, from one snapshot while
 * another process rewrites rows between two chunks.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ALL_ROWS_CHUNK } from '../../src/home/corpus-row-read.js'
import type { CorpusRow } from '../../src/index/shared-rows.js'
import { openHomeStore, type HomeStore } from '../../src/testing.js'

const opened: HomeStore[] = []
const dirs: string[] = []
afterEach(() => {
  for (const store of opened.splice(0)) store.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Two processes' stores on one new home. */
function twoStores(): [HomeStore, HomeStore] {
  const home = mkdtempSync(join(tmpdir(), 'xs-corpus-'))
  dirs.push(home)
  const open = (pid: number): HomeStore => openHomeStore(home, { pid, start: 1 }, () => true)
  const stores: [HomeStore, HomeStore] = [open(1), open(2)]
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
