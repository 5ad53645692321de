/**
 * A new process's first `sessions_list` from the shared rows (`index/newest.ts`, the port's `listNewest`,
 * docs/performance.md "What a new process reads") answers exactly what a list of every row answers: the same
 * text, over seeded homes whose files and rows disagree in every way a home can (logs created since the rows were
 * written, session directories deleted, a log deleted while its directory stays, rows lost, one id in two project
 * directories, subagents, live sessions with no log yet), under both visibilities and every scope, each list from
 * the same rows.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createIndexedSessionQueryPort, jsonlLayout, NEW_LOGS_AT_MOST, newestLogs, NewestKept, openHomeStore, PICKED_ROWS_MS, sessionsList,
  type CorpusRow, type CorpusRows, type HostAgent, type SessionQueryPort, type SqliteHomeStore } from '../../src/testing.js'
import { makeWorld, session } from '../support/fakes.js'
import { Root } from '../support/jsonl-root.js'
import { mulberry32 } from '../support/prng.js'

let home: string
let root: Root
const stores: SqliteHomeStore[] = []
let nextPid = 4000

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cross-session-newest-'))
  root = new Root(home)
})
afterEach(() => {
  for (const store of stores.splice(0)) store.close()
  rmSync(home, { recursive: true, force: true })
})

const CWDS = ['/work/p0', '/work/p1', '/work/p2']

/** A live session of the process (rc.8 `ctx.sessions` entry), with no log on disk. */
interface LiveHere { readonly id: string, readonly header: Record<string, unknown>, readonly events: unknown[] }

/**
 * One new process: its own store connection and indexed port. `newest: false` takes `listNewest` away (every list
 * reads every row, as before the first-list path). `calls` counts the first-list answers the port gave.
 */
function processOn(options: { newest: boolean, live?: LiveHere[], visibility?: 'all' | 'workspace', readOnly?: boolean }) {
  const store = openHomeStore(home, { pid: nextPid++, start: 1 }, () => true)
  stores.push(store)
  const w = makeWorld({ visibility: options.visibility ?? 'all' })
  const me = session('session-me', 5_000_000, { live: true, header: { cwd: CWDS[0] } })
  const persistence = root.persistence()
  const lifetime = new AbortController()
  const live = options.live ?? []
  const port: SessionQueryPort = createIndexedSessionQueryPort({
    fallback: w.corpus,
    agents: { get: () => undefined, list: () => [] as HostAgent[], resume: () => { throw new Error('a list must never resume') } },
    persistence: () => persistence,
    sessions: () => ({ get: (id: string) => live.find(each => each.id === id), list: () => live }),
    // Read-only: every list of a seed starts from the same rows (a list writes what it read and forgot).
    shared: () => options.readOnly === true ? { ...store.corpus(), write: () => undefined } : store.corpus(),
    lifetime: lifetime.signal,
  })
  const calls = { answered: 0, declined: 0 }
  const inner = port.listNewest!.bind(port)
  if (options.newest) {
    port.listNewest = async (request, signal) => {
      const found = await inner(request, signal)
      if (found === undefined) calls.declined++
      else calls.answered++
      return found
    }
  } else delete port.listNewest
  const list = (args: Record<string, unknown>) => sessionsList(args, w.call(me), { ...w.deps, sessions: port })
  return { list, calls, end: () => lifetime.abort(), logs: w.logs, port, store }
}

/**
 * A seeded home: logs in three project directories, some subagents, creation times in a shuffled order, distinct:
 * among sessions created in the same millisecond a list's order depends on what the process read before
 * (docs/tools.md#sessions_list, "Order"); "sessions created in the same millisecond" below checks them.
 */
function seedHome(random: () => number, count: number): string[] {
  const ids: string[] = []
  const times = Array.from({ length: count }, (_, n) => 1000 + 3 * n).sort(() => random() - 0.5)
  for (let n = 0; n < count; n++) {
    const id = `session-${n}`
    const extra = random() < 0.2 ? { parentSession: 'session-0' } : random() < 0.1 ? { origin: 'subagent' } : {}
    root.write(id, times[n]!, random() < 0.8 ? `title ${n}` : undefined, { cwd: CWDS[n % 3]!, extra })
    ids.push(id)
  }
  return ids
}

describe('a new process\'s first list from the shared rows', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])('says exactly what a list of every row says (seed %i)', async seed => {
    const random = mulberry32(seed)
    const ids = seedHome(random, 30 + Math.floor(random() * 20))
    // The caller's own log, older than every other (a list shows it last, when fewer than its limit of others pass).
    if (seed % 2 === 1) root.write('session-me', 500, 'my own', { cwd: CWDS[0]! })
    // An earlier process indexed the home (its rows written when it ends).
    const earlier = processOn({ newest: false })
    await earlier.list({})
    earlier.end()
    // Since then: new logs, deleted directories and logs, lost rows, a copy of one id in another project directory.
    let next = ids.length
    let copied = false
    for (let step = 0; step < 8; step++) {
      const op = Math.floor(random() * 7)
      const id = ids[Math.floor(random() * ids.length)]!
      const n = Number(id.slice('session-'.length))
      const path = root.path(id, CWDS[n % 3])
      if (op === 0) root.write(`session-${next++}`, 1001 + 3 * Math.floor(random() * 80), `new ${step}`, { cwd: CWDS[step % 3]! })
      else if (op === 1) rmSync(dirname(path), { recursive: true, force: true })
      else if (op === 2) rmSync(path, { force: true })
      else if (op === 3) {
        const store = openHomeStore(home, { pid: nextPid++, start: 1 }, () => true)
        stores.push(store)
        const layout = jsonlLayout(root.persistence())!
        store.corpus().write(`${layout.root}\0${layout.fileName}`, { headers: [], removed: [path], titles: [] })
      } else if (op === 4 && seed % 4 === 0 && !copied) {
        root.write(id, 5000, 'the copy', { cwd: CWDS[(n + 1) % 3]! })
        copied = true
      } else if (op === 5) try { unlinkSync(path) } catch { /* already gone */ }
      else if (op === 6 && existsSync(path)) {
        // Moved to another project directory, as a subagent's log with another title: its row names the old path.
        rmSync(dirname(path), { recursive: true })
        root.write(id, 4000 + 3 * step, 'moved', { cwd: CWDS[(n + 2) % 3]!, extra: { parentSession: 'session-0' } })
      }
    }
    const live = random() < 0.5 ? [] : [{ id: 'session-live', header: { type: 'session', version: 0, id: 'session-live', createdAt: 1500, cwd: CWDS[1] }, events: [] }]
    // A session live in this process whose log is listed: one row, never a second one for its liveness.
    if (live.length > 0) live.push({ id: 'session-1', header: { type: 'session', version: 0, id: 'session-1', createdAt: 1, cwd: CWDS[1] }, events: [] })
    // Its session directory made, its log not written yet (rc.8 makes the directory first).
    if (live.length > 0 && seed % 3 === 0) mkdirSync(dirname(root.path('session-live', CWDS[1])), { recursive: true })
    let answered = 0
    for (const visibility of ['all', 'workspace'] as const) {
      for (const args of [{}, { limit: 5 }, { limit: 1 }, { scope: 'all' }, { scope: 'subagents' }, { scope: 'all', limit: 200 }]) {
        const fast = processOn({ newest: true, live, visibility, readOnly: true })
        const full = processOn({ newest: false, live, visibility, readOnly: true })
        const said = await fast.list(args)
        expect(said, `${visibility} ${JSON.stringify(args)}`).toBe(await full.list(args))
        answered += fast.calls.answered
      }
    }
    // The first-list path answered every list (it declines a copy of one id in two project directories).
    expect(answered).toBe(copied ? 0 : 12)
  }, 60_000)

  it('declines a home with one id in two project directories, and a home with more unread logs than it reads itself', async () => {
    root.write('session-a', 1, 'here', { cwd: CWDS[0]! })
    root.write('session-a', 2, 'there', { cwd: CWDS[1]! })
    const copied = processOn({ newest: true })
    expect(await copied.list({})).toContain('cwd=/work/p1')
    expect(copied.calls).toEqual({ answered: 0, declined: 1 })
    // Both copies have rows now: the scan finds the id twice.
    copied.end()
    const again = processOn({ newest: true })
    expect(await again.list({})).toContain('cwd=/work/p1')
    expect(again.calls).toEqual({ answered: 0, declined: 1 })
    rmSync(root.root, { recursive: true })
    for (let n = 0; n <= NEW_LOGS_AT_MOST; n++) root.write(`session-${n}`, n, undefined)
    const unindexed = processOn({ newest: true })
    expect(await unindexed.list({ limit: 3 })).toContain(`${NEW_LOGS_AT_MOST + 1} considered`)
    expect(unindexed.calls).toEqual({ answered: 0, declined: 1 })
  })

  it('reads a header only for a listed log no row holds, and lists from the rows once they are written', async () => {
    for (let n = 0; n < 20; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const first = processOn({ newest: true })
    // No row yet, fewer logs than it reads itself: answered from the logs' headers.
    expect(await first.list({ limit: 3 })).toContain('3 of 20 considered')
    expect(first.calls.answered).toBe(1)
    first.end()
    const second = processOn({ newest: true })
    expect(await second.list({ limit: 3 })).toContain('- session-19 ')
    expect(second.calls.answered).toBe(1)
    // Its next list builds the whole index (the process lists again: from then on it lists warm), with the same answer.
    root.write('session-20', 1020, 'title 20')
    const again = await second.list({ limit: 3 })
    expect(second.calls).toEqual({ answered: 1, declined: 1 })
    expect(again).toBe(await processOn({ newest: false }).list({ limit: 3 }))
    expect(again).toContain('3 of 21 considered')
  })

  it('gives up its answer for the full list when a row it shows was replaced since the rows were written', async () => {
    for (let n = 0; n < 5; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const earlier = processOn({ newest: false })
    await earlier.list({})
    earlier.end()
    // The newest log replaced (a new file) by a subagent's: the row still says top-level.
    rmSync(root.path('session-4'))
    root.write('session-4', 1004, 'now a subagent', { extra: { parentSession: 'session-0' } })
    const fast = processOn({ newest: true })
    const said = await fast.list({})
    expect(fast.calls.answered).toBe(1)
    expect(said).not.toContain('session-4')
    expect(said).toBe(await processOn({ newest: false }).list({}))
  })
})

describe('sessions created in the same millisecond, and a writer racing the first list', () => {
  it('shows the rows a full listing shows among ties, whatever order their rows were written in', async () => {
    for (const id of ['session-a', 'session-b', 'session-c', 'session-d']) root.write(id, 1000, `title ${id}`, { cwd: CWDS[0]! })
    root.write('session-e', 999, 'older', { cwd: CWDS[0]! })
    const earlier = processOn({ newest: false })
    await earlier.list({})
    earlier.end()
    // The row of the log listed first is written again last (a new rowid): row order is no longer listing order.
    const full = await processOn({ newest: false, readOnly: true }).list({ limit: 4 })
    const firstListed = /- (session-[a-d]) /.exec(full)![1]!
    const other = openHomeStore(home, { pid: nextPid++, start: 1 }, () => true)
    stores.push(other)
    const layout = jsonlLayout(root.persistence())!
    other.corpus().write(`${layout.root}\0${layout.fileName}`, { headers: [], removed: [root.path(firstListed, CWDS[0])], titles: [] })
    const again = processOn({ newest: false })
    await again.list({})
    again.end()
    for (const limit of [1, 2, 3, 4, 5]) {
      const fast = processOn({ newest: true, readOnly: true })
      expect(await fast.list({ limit }), `limit ${limit}`).toBe(await processOn({ newest: false, readOnly: true }).list({ limit }))
      expect(fast.calls.answered).toBe(1)
    }
  })

  it('keeps the row of a log made after its listing, written by another process before its scan', async () => {
    for (let n = 0; n < 4; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`, { cwd: CWDS[0]! })
    const earlier = processOn({ newest: false })
    await earlier.list({})
    earlier.end()
    const fast = processOn({ newest: true })
    const layout = jsonlLayout(root.persistence())!
    const key = `${layout.root}\0${layout.fileName}`
    const rows = fast.store.corpus()
    const scan = rows.scan.bind(rows)
    let raced = false
    // Between the listing and the scan: another process makes a log and writes its row.
    const racing = { ...rows, scan: (...args: Parameters<typeof rows.scan>) => {
      if (!raced) {
        raced = true
        root.write('session-new', 2000, 'new one', { cwd: CWDS[0]! })
        const other = openHomeStore(home, { pid: nextPid++, start: 1 }, () => true)
        stores.push(other)
        other.corpus().write(key, { headers: [{ path: root.path('session-new', CWDS[0]), sessionId: 'session-new', dirName: 'session-new',
          identity: 'x', header: { id: 'session-new', createdAt: 2000, cwd: CWDS[0] } }], removed: [], titles: [] })
      }
      return scan(...args)
    } }
    const store = fast.store as unknown as { corpus: () => typeof rows }
    store.corpus = () => racing
    expect(await fast.list({})).toContain('4 of 4 considered')
    fast.end()
    expect(rows.byPath(root.path('session-new', CWDS[0]))).toBeDefined()
  })
})

describe('what a first list reads and writes', () => {
  const layoutKey = () => {
    const layout = jsonlLayout(root.persistence())!
    return `${layout.root}\0${layout.fileName}`
  }

  it('answers with as many listed logs without a row as it reads itself, and with any number that have one', async () => {
    for (let n = 0; n < NEW_LOGS_AT_MOST; n++) root.write(`session-${n}`, n, undefined)
    const first = processOn({ newest: true })
    expect(await first.list({ limit: 2 })).toContain(`2 of ${NEW_LOGS_AT_MOST} considered`)
    expect(first.calls).toEqual({ answered: 1, declined: 0 })
    first.end()
    for (let n = NEW_LOGS_AT_MOST; n < 300; n++) root.write(`session-${n}`, n, undefined)
    const second = processOn({ newest: false })
    await second.list({})
    second.end()
    const third = processOn({ newest: true })
    expect(await third.list({ limit: 2 })).toContain('2 of 300 considered')
    expect(third.calls).toEqual({ answered: 1, declined: 0 })
  })

  it('drops the rows of logs no longer listed, as a refresh does', async () => {
    for (let n = 0; n < 5; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const earlier = processOn({ newest: false })
    await earlier.list({})
    earlier.end()
    rmSync(dirname(root.path('session-2')), { recursive: true })
    const fast = processOn({ newest: true })
    expect(await fast.list({})).toContain('4 of 4 considered')
    fast.end()
    const paths = fast.store.corpus().all(layoutKey()).map(row => row.path)
    expect(paths).toHaveLength(4)
    expect(paths).not.toContain(root.path('session-2'))
  })

  it('orders a row whose creation time is not a finite number as 0, as a header read from it is', async () => {
    for (let n = 0; n < 4; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const earlier = processOn({ newest: false })
    await earlier.list({})
    earlier.end()
    const { DatabaseSync } = await import('node:sqlite')
    const { storePaths } = await import('../../src/testing.js')
    const db = new DatabaseSync(storePaths(home).file)
    db.prepare('UPDATE corpus_logs SET created_at = 1e999 WHERE session_id IN (?, ?)').run('session-0', 'session-1')
    db.close()
    const fast = processOn({ newest: true })
    const said = await fast.list({ limit: 2 })
    expect(fast.calls.answered).toBe(1)
    expect(said).not.toContain('session-0')
    expect(said).not.toContain('session-1')
    expect(said).toContain('2 of 4 considered')
  })

  it('scans every row of a root past one chunk of rows, from one snapshot', () => {
    const store = openHomeStore(home, { pid: nextPid++, start: 1 }, () => true)
    stores.push(store)
    const rows = Array.from({ length: 5_001 }, (_, n) => ({
      path: `/r/p/session-${n}/session.jsonl.zstd`, sessionId: `session-${n}`, dirName: `session-${n}`, identity: `1:${n}:0`,
      header: { id: `session-${n}`, createdAt: n },
    }))
    store.corpus().write('/r\0session.jsonl.zstd', { headers: rows, removed: [], titles: [] })
    let visited = 0
    let passing = 0
    const picked = store.corpus().scan('/r\0session.jsonl.zstd', { caller: { id: 'me', createdAt: 0 }, visibility: 'all', scope: 'top-level' },
      (_path, _dir, _createdAt, passes) => {
        visited++
        if (passes) passing++
      }, () => ['/r/p/session-5000/session.jsonl.zstd'])
    expect(visited).toBe(5_001)
    expect(passing).toBe(5_001)
    expect(picked.map(row => row.header.createdAt)).toEqual([5_000])
  })

  it('falls back to a full listing, and says why in the log, when the first-list path fails', async () => {
    for (let n = 0; n < 3; n++) root.write(`session-${n}`, 1000 + n, `title ${n}`)
    const failing = processOn({ newest: true })
    failing.port.listNewest = async () => { throw new Error('scan failed') }
    const said = await failing.list({})
    expect(said).toContain('3 of 3 considered')
    expect(failing.logs.join('\n')).toContain('scan failed')
  })
})

describe('the pieces', () => {
  it('NewestKept keeps the newest, the lowest listing place among ties, whatever order they are offered in', () => {
    const offers = [[5, 4, 'a'], [7, 3, 'b'], [5, 1, 'c'], [9, 6, 'd'], [7, 2, 'e'], [1, 0, 'f'], [7, 5, 'g']] as const
    for (const order of [offers, [...offers].reverse()]) {
      const kept = new NewestKept<string>(3)
      for (const [at, place, value] of order) kept.offer(at, place, value)
      expect(kept.values()).toEqual(['d', 'e', 'b'])
    }
    const none = new NewestKept<string>(0)
    none.offer(1, 0, 'x')
    expect(none.values()).toEqual([])
  })

  it('a port without the first-list path lists every row, and nothing is logged', async () => {
    root.write('session-a', 1, 'a')
    const plain = processOn({ newest: false })
    expect(await plain.list({})).toContain('1 of 1 considered')
    expect(plain.logs).toEqual([])
  })

  it('newestLogs declines when the store fails', async () => {
    root.write('session-a', 1, 'a')
    const layout = jsonlLayout(root.persistence())!
    const { jsonlFiles, SharedIndex } = await import('../../src/testing.js')
    const failing = new SharedIndex(() => ({ scan: () => { throw new Error('database is locked') } }) as unknown as CorpusRows,
      `${layout.root}\0${layout.fileName}`)
    const found = await newestLogs({ files: jsonlFiles(layout), shared: failing, read: () => undefined, gone: () => undefined },
      { caller: { id: 'me', createdAt: 0 }, visibility: 'all', scope: 'all' }, 5, new AbortController().signal)
    expect(found).toBeUndefined()
  })
})

describe('the filter in SQL', () => {
  it('passes exactly the rows headerPasses passes, for every visibility and scope, empty and missing fields among them', async () => {
    const { headerOf, headerPasses, passesSql } = await import('../../src/testing.js')
    const { DatabaseSync } = await import('node:sqlite')
    const db = new DatabaseSync(':memory:')
    db.exec('CREATE TABLE corpus_logs (session_id TEXT, cwd TEXT, parent_session TEXT, origin TEXT) STRICT')
    const values = [null, '', '/work/p0', '/work/p1']
    const insert = db.prepare('INSERT INTO corpus_logs VALUES (?, ?, ?, ?)')
    for (const id of ['me', 'peer']) for (const cwd of values) for (const parent of [null, '', 'session-0']) {
      for (const origin of [null, '', 'subagent', 'user']) insert.run(id, cwd, parent, origin)
    }
    // Callers: any visibility; `workspace` with no workspace of its own; `workspace` in /work/p0.
    const callers = [['all', undefined], ['workspace', undefined], ['workspace', '/work/p0']] as const
    let checked = 0
    for (const [visibility, cwd] of callers) {
      for (const scope of ['top-level', 'subagents', 'all'] as const) {
        const filter = { caller: { id: 'me', createdAt: 0, ...(cwd === undefined ? {} : { cwd }) }, visibility, scope }
        const passes = passesSql(filter)
        const rows = db.prepare(`SELECT session_id, cwd, parent_session, origin, ${passes.sql} AS passes FROM corpus_logs`).all(...passes.params) as Array<Record<string, string | null | number>>
        for (const row of rows) {
          // The header a stored row becomes (`headerOf`: an empty string is no value).
          const expected = headerPasses(filter, headerOf(row.session_id, 0, row.cwd, row.parent_session, row.origin, undefined)!)
          expect(row.passes === 1, JSON.stringify({ filter, row })).toBe(expected)
          checked++
        }
      }
    }
    expect(checked).toBe(9 * 2 * 4 * 3 * 4)
    db.close()
  })
})

describe('the rows a first list shows', () => {
  /** A row of the shared rows, as `home/corpus-row-read.ts` makes it. */
  const rowOf = (id: string): CorpusRow => ({ path: `/r/p/${id}/session.jsonl.zstd`, sessionId: id, dirName: id, identity: `1:${id.length}:0`,
    header: { id, createdAt: 1 }, title: undefined })

  /** A SharedIndex over rows that count the store's `bySession` queries. */
  async function counting(): Promise<{ shared: InstanceType<typeof import('../../src/testing.js').SharedIndex>, queries: string[] }> {
    const { SharedIndex } = await import('../../src/testing.js')
    const queries: string[] = []
    const rows = {
      scan: (_root: string, _filter: unknown, _visit: unknown, pick: () => readonly string[]) => pick().map(path => rowOf(path.split('/')[3]!)),
      bySession: (_root: string, id: string) => {
        queries.push(id)
        return rowOf(id)
      },
    } as unknown as CorpusRows
    return { shared: new SharedIndex(() => rows, '/r\0session.jsonl.zstd'), queries }
  }
  const filter = { caller: { id: 'me', createdAt: 0 }, visibility: 'all', scope: 'all' } as const

  it('are taken from the scan that read them whole, each once, with no query to the store', async () => {
    const { shared, queries } = await counting()
    const picked = shared.scan(filter, () => undefined, () => ['/r/p/session-a/session.jsonl.zstd', '/r/p/session-b/session.jsonl.zstd'])
    expect(picked?.map(row => row.sessionId)).toEqual(['session-a', 'session-b'])
    expect(shared.bySession('session-a')).toBe(picked![0])
    expect(shared.bySession('session-b')).toBe(picked![1])
    expect(queries).toEqual([])
    // Each once; a session the scan did not read whole is the store's.
    expect(shared.bySession('session-a')?.sessionId).toBe('session-a')
    expect(shared.bySession('session-c')?.sessionId).toBe('session-c')
    expect(queries).toEqual(['session-a', 'session-c'])
  })

  it(`are the store's again ${PICKED_ROWS_MS} ms after the scan`, async () => {
    const { shared, queries } = await counting()
    let now = 5_000
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now)
    try {
      shared.scan(filter, () => undefined, () => ['/r/p/session-a/session.jsonl.zstd', '/r/p/session-b/session.jsonl.zstd'])
      now += PICKED_ROWS_MS - 1
      shared.bySession('session-a')
      expect(queries).toEqual([])
      now += 1
      shared.bySession('session-b')
      expect(queries).toEqual(['session-b'])
    } finally {
      clock.mockRestore()
    }
  })
})
