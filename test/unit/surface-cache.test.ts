/**
 * Cold reads of large logs through the surfaces kept in the home store
 * (docs/performance.md "What a new process reads", table `corpus_surfaces`):
 * each simulated process is its own store connection and its own port over
 * the same rc.8-format root, and `inspect` is counted, so "does not parse
 * the log again" is a count of whole-log inspects that really happen.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createIndexedSessionQueryPort, openHomeStore, storePaths, type CorpusIndex, type SqliteHomeStore } from '../../src/testing.js'
import { currentSurfaceEvents } from '../../src/harness/surface-fold.js'
import { SURFACE_MIN_EVENTS, SURFACE_ROWS } from '../../src/index/surface-cache.js'
import { makeWorld } from '../support/fakes.js'
import { Root } from '../support/jsonl-root.js'

const signal = new AbortController().signal
let home: string
let root: Root
const stores: SqliteHomeStore[] = []

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cross-session-surfaces-'))
  root = new Root(home)
})
afterEach(() => {
  for (const store of stores.splice(0)) store.close()
  rmSync(home, { recursive: true, force: true })
})

const message = (seq: number, text: string, surfaceOp: unknown = 'append'): Record<string, unknown> => ({
  type: 'user/message', seq, time: 1000 + seq, data: { role: 'user', id: `m-${seq}`, content: [{ type: 'text', text }], source: { kind: 'user' } }, surfaceOp,
})
/** `count` events: surface messages with a non-surface event between them. */
function events(count: number, from = 0): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, index) => from + index).map(seq => seq % 2 === 0
    ? message(seq, `message ${seq}`)
    : { type: 'step/start', seq, time: 1000 + seq, data: { turn: 1, step: seq } })
}

let nextPid = 3000
/** One simulated process: its own store connection and port; `persistence.inspected` counts whole-log inspects. */
function processOn(): { port: ReturnType<typeof createIndexedSessionQueryPort>, persistence: ReturnType<Root['persistence']>, index: () => CorpusIndex } {
  const store = openHomeStore(home, { pid: nextPid++, start: 1 }, () => true)
  stores.push(store)
  const w = makeWorld()
  const persistence = root.persistence()
  let index: CorpusIndex | undefined
  const port = createIndexedSessionQueryPort({
    fallback: w.corpus,
    agents: { get: () => undefined, list: () => [], resume: () => { throw new Error('a read must never resume') } },
    persistence: () => persistence,
    sessions: () => undefined,
    shared: () => store.corpus(),
    onIndex: built => { index = built },
  })
  return { port, persistence, index: () => index! }
}

/** The surface rc.8 folds from the whole log now. */
async function folded(id: string): Promise<unknown[]> {
  const inspected = await root.persistence().inspect(id) as { events: unknown[] }
  return currentSurfaceEvents(inspected.events)
}

describe('surfaces kept in the home store', () => {
  it('a new process reads an unchanged large log without inspecting it, and re-inspects it once it changed', async () => {
    root.writeEvents('session-big', 1000, events(SURFACE_MIN_EVENTS + 10))
    const first = processOn()
    const read = await first.port.readSurface('session-big', signal)
    expect(first.persistence.inspected).toEqual(['session-big'])
    expect(first.index().counters).toMatchObject({ inspects: 1, surfacesKept: 1, surfaceHits: 0 })
    expect(read?.events).toEqual(await folded('session-big'))

    const second = processOn()
    const again = await second.port.readSurface('session-big', signal)
    expect(second.persistence.inspected).toEqual([])
    expect(second.index().counters).toMatchObject({ inspects: 0, surfaceHits: 1 })
    expect(again).toEqual(read)
    // A repeated read in that process: its last surface, nothing decoded or inspected.
    expect(await second.port.readSurface('session-big', signal)).toBe(again)
    expect(second.index().counters).toMatchObject({ inspects: 0, surfaceHits: 2 })

    // It grew by a replacement reaching back to the first seq: the kept surface is not used, the log is folded whole.
    const next = SURFACE_MIN_EVENTS + 10
    root.appendEvents('session-big', [message(next, 'summary of everything', { op: 'replace', start: 0, end: next - 2 })])
    const third = processOn()
    const grown = await third.port.readSurface('session-big', signal)
    expect(third.persistence.inspected).toEqual(['session-big'])
    expect(grown?.events).toEqual(await folded('session-big'))
    expect(grown?.events).toHaveLength(1)
    expect(grown?.capturedThroughSeq).toBe(next)
    // The process that held the old surface does not answer from it: it takes the one kept at the new revision.
    expect(await second.port.readSurface('session-big', signal)).toEqual(grown)
    expect(second.index().counters).toMatchObject({ inspects: 0, surfaceHits: 3 })
    // ... and kept at its new revision for the next process.
    const fourth = processOn()
    expect(await fourth.port.readSurface('session-big', signal)).toEqual(grown)
    expect(fourth.persistence.inspected).toEqual([])
  })

  it('keeps no small log, no log that changed during its inspect, and no more than the latest surfaces of a root', async () => {
    root.writeEvents('session-small', 1000, events(SURFACE_MIN_EVENTS - 1))
    const small = processOn()
    await small.port.readSurface('session-small', signal)
    expect(small.index().counters).toMatchObject({ inspects: 1, surfacesKept: 0 })

    root.writeEvents('session-racing', 1000, events(SURFACE_MIN_EVENTS))
    const racing = processOn()
    const inspect = racing.persistence.inspect
    racing.persistence.inspect = async id => {
      const result = await inspect(id)
      root.appendEvents(id, [message(SURFACE_MIN_EVENTS, 'written meanwhile')])
      return result
    }
    await racing.port.readSurface('session-racing', signal)
    expect(racing.index().counters).toMatchObject({ inspects: 1, surfacesKept: 0 })
    const after = processOn()
    expect((await after.port.readSurface('session-racing', signal))?.events).toEqual(await folded('session-racing'))
    expect(after.persistence.inspected).toEqual(['session-racing'])

    for (let n = 0; n < SURFACE_ROWS + 2; n++) root.writeEvents(`session-${n}`, 1000 + n, events(SURFACE_MIN_EVENTS))
    const many = processOn()
    for (let n = 0; n < SURFACE_ROWS + 2; n++) await many.port.readSurface(`session-${n}`, signal)
    const db = new DatabaseSync(storePaths(home).file, { readOnly: true })
    try {
      expect(db.prepare('SELECT COUNT(*) AS n FROM corpus_surfaces').get()).toEqual({ n: SURFACE_ROWS })
    } finally {
      db.close()
    }
    // The oldest written are the ones dropped: read again, they are inspected again.
    const later = processOn()
    await later.port.readSurface('session-0', signal)
    await later.port.readSurface(`session-${SURFACE_ROWS + 1}`, signal)
    expect(later.persistence.inspected).toEqual(['session-0'])
  })

  it('a kept surface that does not decode is a miss: the log is inspected again, and the answer is the log\'s', async () => {
    root.writeEvents('session-big', 1000, events(SURFACE_MIN_EVENTS))
    await processOn().port.readSurface('session-big', signal)
    const db = new DatabaseSync(storePaths(home).file)
    try {
      db.prepare('UPDATE corpus_surfaces SET surface = ?').run(Buffer.from('not a zstd frame'))
    } finally {
      db.close()
    }
    const next = processOn()
    expect((await next.port.readSurface('session-big', signal))?.events).toEqual(await folded('session-big'))
    expect(next.persistence.inspected).toEqual(['session-big'])
  })
})
