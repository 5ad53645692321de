/**
 * Revision checks in one batch (`index/stat-batch.ts`, `index/stat-worker.ts`):
 * a large batch is shared with a worker thread (both take chunks from one
 * counter), and every answer is exactly what a one-by-one `restat` gives,
 * whichever thread a log falls to
 * (docs/performance.md "What each call re-checks"). A query list over more
 * candidates than the batch threshold sees another writer's changes in both
 * halves on its next call.
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CorpusIndex, jsonlFiles, jsonlLayout, sessionsList } from '../../src/testing.js'
import { CHUNK_PATHS, PARALLEL_MIN_PATHS, STAT_KIND, StatWorker, type SharedBatch } from '../../src/index/stat-worker.js'
import { listingPort } from '../support/indexed-port.js'
import { counted, Root } from '../support/jsonl-root.js'

const signal = new AbortController().signal
let home: string
let root: Root

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cross-session-batch-'))
  root = new Root(home)
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

/** `count` plain files laid out as session logs (a batch check reads only `stat`). */
function plainLogs(count: number): Array<{ path: string, dirName: string }> {
  const base = join(root.root, '-work-project-')
  return Array.from({ length: count }, (_, index) => {
    const dirName = `session-${String(index).padStart(5, '0')}`
    mkdirSync(join(base, dirName), { recursive: true })
    const path = join(base, dirName, 'session.jsonl.zstd')
    writeFileSync(path, `log ${index}`)
    return { path, dirName }
  })
}

describe('restatMany', () => {
  it('answers exactly as one restat per log, whichever thread checks it', async () => {
    const files = jsonlFiles(jsonlLayout(root.persistence())!)
    try {
      const listed = plainLogs(PARALLEL_MIN_PATHS + 10)
      const first = await files.restatMany(listed, signal)
      expect(first).toEqual(listed.map(log => files.restat(log)))
      // Unchanged: the very objects back (no new revision), in the worker's half too.
      const again = await files.restatMany(first.map(log => log!), signal)
      again.forEach((log, index) => expect(log).toBe(first[index]))
      // A log grown, one deleted, one replaced by a directory: in the first half and in the second.
      const last = listed.length - 1
      for (const index of [3, last - 3]) writeFileSync(listed[index]!.path, 'grown: a longer log')
      for (const index of [4, last - 4]) unlinkSync(listed[index]!.path)
      for (const index of [5, last - 5]) {
        unlinkSync(listed[index]!.path)
        mkdirSync(listed[index]!.path)
      }
      const later = await files.restatMany(first.map(log => log!), signal)
      expect(later).toEqual(first.map(log => files.restat(log!)))
      for (const index of [3, last - 3]) expect(later[index]!.revision).not.toBe(first[index]!.revision)
      for (const index of [4, last - 4, 5, last - 5]) expect(later[index]).toBeUndefined()
    } finally {
      files.close()
    }
  }, 30_000)

  it('batches of other paths, or of the same paths in another order, are answered for their own paths', async () => {
    const files = jsonlFiles(jsonlLayout(root.persistence())!)
    try {
      const listed = plainLogs(PARALLEL_MIN_PATHS + CHUNK_PATHS)
      // The worker keeps the last batch's paths: each list below differs from the one before it.
      const lists = [listed, listed.slice(CHUNK_PATHS), listed, [...listed].reverse(), listed.slice(0, PARALLEL_MIN_PATHS)]
      for (const logs of lists) {
        writeFileSync(logs.at(-1)!.path, `grown before a batch of ${logs.length}`)
        expect(await files.restatMany(logs, signal)).toEqual(logs.map(log => files.restat(log)))
      }
    } finally {
      files.close()
    }
  }, 30_000)

  it('a worker that is gone hands its paths back: the caller checks them itself', async () => {
    const worker = new StatWorker()
    const listed = plainLogs(3)
    const batch = worker.start(listed.map(log => log.path))
    worker.close()
    await batch?.done()
    // Every path the worker did not write in full reads "failed" (kind 0), and the chunk is still the caller's to take.
    expect(batch === undefined || [0, 7, 14].every(at => Atomics.load(batch.fields, at) === STAT_KIND.failed)).toBe(true)
    expect(batch === undefined || batch.take() === 0).toBe(true)
  })

  it('a worker that never began a batch is not waited for, and does not begin it afterwards', async () => {
    const worker = new StatWorker()
    try {
      const listed = plainLogs(3)
      const batch = worker.start(listed.map(log => log.path))!
      // The caller takes the only chunk before the worker thread is even up, and is done at once.
      expect(batch.take()).toBe(0)
      expect(batch.take()).toBe(-1)
      await batch.done()
      // A later batch the caller leaves to the worker: once it is written, the worker has passed the first one.
      const later = worker.start([listed[0]!.path])!
      await writtenBy(later, 1)
      expect([0, 7, 14].map(at => Atomics.load(batch.fields, at))).toEqual([STAT_KIND.failed, STAT_KIND.failed, STAT_KIND.failed])
      expect(later.take()).toBe(-1)
      await later.done()
    } finally {
      worker.close()
    }
  }, 30_000)

  it('the worker takes every chunk while the caller takes none, and each path is written whole', async () => {
    const worker = new StatWorker()
    try {
      const listed = plainLogs(CHUNK_PATHS * 3 + 1)
      const batch = worker.start(listed.map(log => log.path))!
      await writtenBy(batch, listed.length)
      expect(batch.take()).toBe(-1)
      await batch.done()
      const fields = batch.fields
      for (let index = 0; index < listed.length; index++) {
        expect(Atomics.load(fields, index * 7)).toBe(STAT_KIND.file)
        expect(fields[index * 7 + 4]).toBe(BigInt(`log ${index}`.length)) // the size field
      }
    } finally {
      worker.close()
    }
  }, 30_000)
})

/** Wait (≤ 20 s) until the worker has written the kind of every one of `count` paths. */
async function writtenBy(batch: SharedBatch, count: number): Promise<void> {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    let written = 0
    for (let index = 0; index < count; index++) if (Atomics.load(batch.fields, index * 7) !== STAT_KIND.failed) written++
    if (written === count) return
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  throw new Error('the worker did not write the batch within 20 s')
}

describe('a query list over a batch of candidates', () => {
  it('sees another writer retitle logs anywhere in the batch on its next call, and checks each log once per call', async () => {
    const count = PARALLEL_MIN_PATHS + 100
    for (let index = 0; index < count; index++) root.write(`session-${String(index).padStart(5, '0')}`, 1000 + index, `title ${index}`)
    const indexes: CorpusIndex[] = []
    const { w, me, port } = listingPort(root, index => indexes.push(index))
    const deps = { ...w.deps, sessions: port }
    expect(await sessionsList({ query: 'renamed' }, w.call(me), deps)).toContain('0 of')
    // Spread over the whole listing, so both halves of the batch hold some.
    const renamed = Array.from({ length: 20 }, (_, index) => index * Math.floor(count / 20))
    for (const index of renamed) root.appendTitle(`session-${String(index).padStart(5, '0')}`, 2, `renamed ${index}`)
    const text = await sessionsList({ query: 'renamed', limit: 50 }, w.call(me), deps)
    expect(text).toContain('20 of')
    for (const index of renamed) expect(text).toContain(`  renamed ${index}\n`)
    const counters = indexes[0]!.counters
    // The first call read every log itself (stat and header); the second checked every candidate in the batch,
    // none again one by one, and folded only the grown logs (their tails).
    expect(counters.batchChecks).toBe(count)
    expect(counters.singleChecks).toBe(0)
    expect(counters.titleTailFolds).toBe(20)
  }, 30_000)

  it('counts one stat per candidate (counted file operations)', async () => {
    const count = PARALLEL_MIN_PATHS + 1
    for (let index = 0; index < count; index++) root.write(`session-${index}`, index, `t ${index}`)
    const files = counted(jsonlFiles(jsonlLayout(root.persistence())!))
    const index = new CorpusIndex(files)
    try {
      const entries = await index.refresh(signal)
      await index.checkMany(entries.map(entry => entry.header.id), index.generation + 1, signal)
      const restats = files.counts.restat
      for (const entry of entries) expect(index.check(entry.header.id, index.generation + 1)).toBe(entry)
      expect(files.counts.restat).toBe(restats)
    } finally {
      files.close()
    }
  }, 30_000)
})
