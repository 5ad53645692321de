/**
 * The shared rows' writes in turns of the event loop (`src/index/write-turns.ts`): a large flush writes one
 * transaction now and the rest one per turn, in order, with other work running between them; the index's end
 * writes what still waits. The store is the real SQLite home store.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chunksOf, WRITE_BATCH, WriteTurns } from '../../src/index/write-turns.js'
import { openHomeStore, SharedIndex, type SqliteHomeStore } from '../../src/testing.js'
import type { CorpusChanges, CorpusRow } from '../../src/index/shared-rows.js'

const turn = (): Promise<void> => new Promise(resolve => setImmediate(resolve))
const row = (n: number): CorpusRow => ({
  path: `/r/p/s${n}/session.jsonl.zstd`, sessionId: `s${n}`, dirName: `s${n}`, identity: `1:${n}:0`,
  header: { id: `s${n}`, createdAt: 1000 + n },
})
const changes = (headers: number, removed: number[] = [], titles: number[] = []): CorpusChanges => ({
  headers: Array.from({ length: headers }, (_, n) => row(n)),
  removed: removed.map(n => row(n).path),
  titles: titles.map(n => ({ path: row(n).path, title: { revision: 'r', identity: row(n).identity, value: `t${n}`, completeBytes: 1 } })),
})

describe('chunksOf', () => {
  it('cuts at the batch size and keeps the order of application: removals, headers, titles', () => {
    const chunks = chunksOf(changes(3, [7, 8], [1, 2]), 3)
    expect(chunks.map(chunk => [chunk.removed.length, chunk.headers.length, chunk.titles.length])).toEqual([[2, 1, 0], [0, 2, 1], [0, 0, 1]])
    expect(chunks.flatMap(chunk => [...chunk.removed, ...chunk.headers.map(each => each.path), ...chunk.titles.map(each => each.path)]))
      .toEqual([row(7).path, row(8).path, row(0).path, row(1).path, row(2).path, row(1).path, row(2).path])
  })

  it('makes no chunk of no change, and exactly one of a full batch', () => {
    expect(chunksOf(changes(0))).toEqual([])
    expect(chunksOf(changes(WRITE_BATCH))).toHaveLength(1)
    expect(chunksOf(changes(WRITE_BATCH + 1)).map(chunk => chunk.headers.length)).toEqual([WRITE_BATCH, 1])
  })
})

describe('WriteTurns', () => {
  it('writes the first chunk now and each next one a turn later, with other work between', async () => {
    const log: string[] = []
    const turns = new WriteTurns(chunk => {
      log.push(`write ${chunk.headers.length}`)
      return true
    })
    let later = 0
    expect(turns.add(changes(2 * WRITE_BATCH + 5), () => later++)).toBe(1)
    expect(log).toEqual([`write ${WRITE_BATCH}`])
    setImmediate(() => log.push('other work'))
    await turn()
    await turn()
    await turn()
    expect(log).toEqual([`write ${WRITE_BATCH}`, `write ${WRITE_BATCH}`, 'other work', 'write 5'])
    expect(later).toBe(2)
    expect(turns.waiting).toBe(0)
  })

  it('queues a flush behind chunks still waiting (first in, first written), and finish writes them all now', () => {
    const written: string[] = []
    const turns = new WriteTurns(chunk => {
      written.push([...chunk.removed.map(path => `-${path}`), ...chunk.headers.map(each => `+${each.path}`)].join(' '))
      return true
    })
    expect(turns.add(changes(WRITE_BATCH + 1))).toBe(1)
    expect(turns.add(changes(0, [0]))).toBe(0)
    expect(turns.waiting).toBe(2)
    let later = 0
    turns.add(changes(0, [1]), () => later++)
    expect(turns.finish()).toBe(3)
    expect(written.slice(1)).toEqual([`+${row(WRITE_BATCH).path}`, `-${row(0).path}`, `-${row(1).path}`])
    expect(later).toBe(1)
    expect(turns.waiting).toBe(0)
  })

  it('a write that throws in a turn drops its chunk only: nothing escapes the event loop, and later chunks and flushes are written', async () => {
    const written: number[] = []
    let calls = 0
    const turns = new WriteTurns(chunk => {
      if (++calls === 2) throw new Error('not a store fault')
      written.push(chunk.headers.length)
      return true
    })
    let later = 0
    turns.add(changes(3 * WRITE_BATCH), () => {
      later++
      if (later === 1) throw new Error('a callback that throws')
    })
    for (let n = 0; n < 4; n++) await turn()
    expect(written).toEqual([WRITE_BATCH, WRITE_BATCH])
    expect(turns.waiting).toBe(0)
    expect(turns.add(changes(WRITE_BATCH + 1))).toBe(1)
    await turn()
    expect(written).toEqual([WRITE_BATCH, WRITE_BATCH, WRITE_BATCH, 1])
  })

  it('an empty change writes nothing and schedules nothing', async () => {
    let calls = 0
    const turns = new WriteTurns(() => {
      calls++
      return true
    })
    expect(turns.add(changes(0))).toBe(0)
    await turn()
    expect(calls).toBe(0)
    expect(turns.waiting).toBe(0)
  })

  it('a chunk the store failed is dropped, and the next is still written in its turn', async () => {
    let calls = 0
    const turns = new WriteTurns(() => ++calls !== 2)
    let later = 0
    turns.add(changes(3 * WRITE_BATCH), () => later++)
    for (let n = 0; n < 4; n++) await turn()
    expect(calls).toBe(3)
    expect(later).toBe(1)
  })
})

describe('SharedIndex over the real home store', () => {
  let home: string
  let store: SqliteHomeStore
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'cross-session-turns-'))
    store = openHomeStore(home, { pid: process.pid, start: 1 }, () => true)
  })
  afterEach(() => {
    store.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('a flush of 2,500 rows commits 1,000 at once and the rest in later turns; a removal queued after stays removed', async () => {
    const shared = new SharedIndex(() => store.corpus(), 'R')
    for (let n = 0; n < 2500; n++) shared.header(row(n))
    let later = 0
    expect(shared.flush(() => later++)).toBe(1)
    expect(store.corpus().all('R')).toHaveLength(WRITE_BATCH)
    shared.gone(row(2400).path)
    expect(shared.flush()).toBe(0)
    for (let n = 0; n < 4; n++) await turn()
    expect(later).toBe(2)
    const paths = new Set(store.corpus().all('R').map(each => each.path))
    expect(paths.size).toBe(2499)
    expect(paths.has(row(2400).path)).toBe(false)
  })

  it('a source that throws in a later turn is a store fault: reported once, and the flushes after it are written', async () => {
    let asked = 0
    const reported: unknown[] = []
    const shared = new SharedIndex(() => {
      if (++asked === 2) throw new Error('transient source failure')
      return store.corpus()
    }, 'R', error => reported.push(error))
    for (let n = 0; n < 2500; n++) shared.header(row(n))
    expect(shared.flush()).toBe(1)
    for (let n = 0; n < 4; n++) await turn()
    shared.header(row(9000))
    expect(shared.flush()).toBe(1)
    const paths = new Set(store.corpus().all('R').map(each => each.path))
    expect(paths.size).toBe(1501) // the second chunk (rows 1,000–1,999) dropped, the third written in its turn
    expect(paths.has(row(9000).path)).toBe(true)
    expect(reported.map(String)).toEqual(['Error: transient source failure'])
  })

  it('with no store open, nothing counts as written, now or in a later turn', async () => {
    const shared = new SharedIndex(() => undefined, 'R')
    for (let n = 0; n < 2500; n++) shared.header(row(n))
    let later = 0
    expect(shared.flush(() => later++)).toBe(0)
    for (let n = 0; n < 4; n++) await turn()
    expect(later).toBe(0)
  })

  it('finish writes every waiting row now, in order (the process ends before the turns come)', () => {
    const shared = new SharedIndex(() => store.corpus(), 'R')
    for (let n = 0; n < 2500; n++) shared.header(row(n))
    shared.flush()
    shared.gone(row(0).path)
    shared.flush()
    shared.finish()
    const paths = new Set(store.corpus().all('R').map(each => each.path))
    expect(paths.size).toBe(2499)
    expect(paths.has(row(0).path)).toBe(false)
  })
})
