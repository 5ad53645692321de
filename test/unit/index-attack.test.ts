/**
 * Attacks on the corpus index's promise (docs/performance.md "What each call
 * re-checks"): a session created, written, replaced or deleted by another
 * process is seen by the next call, with real files under a tmp root.
 */
import { linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { encodeLog } from '../../bench/harness/zstd-log.js'
import { CorpusIndex, createIndexedSessionQueryPort, jsonlFiles, jsonlLayout, sessionsList, type HostAgent } from '../../src/testing.js'
import { makeWorld, session } from '../support/fakes.js'
import { Root } from '../support/jsonl-root.js'
import { PARALLEL_MIN_PATHS, StatWorker } from '../../src/index/stat-worker.js'
import { restatMany } from '../../src/index/stat-batch.js'
import { statLog } from '../../src/index/sync-fs.js'
import type { Worker } from 'node:worker_threads'

const signal = new AbortController().signal
let home: string
let root: Root

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cross-session-attack-'))
  root = new Root(home)
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

const settle = (ms = 80) => new Promise(resolve => setTimeout(resolve, ms))
const ids = (entries: readonly { header: { id: string } }[]) => entries.map(entry => entry.header.id).sort()

/** A log for `id` written beside its final path, then published with `link()` (rc.8 `materializePosix`). */
function publish(id: string, createdAt: number, title: string): void {
  const path = root.path(id)
  const tmp = `${path}.tmp`
  const header = JSON.stringify({ type: 'session', version: 0, id, createdAt, cwd: '/work/project' })
  writeFileSync(tmp, encodeLog(header, [JSON.stringify({ type: 'session/title', seq: 0, time: createdAt, data: { title, messageSeqs: [], source: { kind: 'user' } } })]))
  linkSync(tmp, path)
  unlinkSync(tmp)
}

describe('a log that appears in a session directory already listed', () => {
  it('is listed by the next refresh once the project directory has settled', async () => {
    root.write('session-a', 1, 'first')
    // rc.8 makes the session directory first, then links the log into it.
    mkdirSync(dirname(root.path('session-b')), { recursive: true })
    await settle()
    const index = new CorpusIndex(jsonlFiles(jsonlLayout(root.persistence())!, { racyMs: 40 }))
    expect(ids(await index.refresh(signal))).toEqual(['session-a'])
    expect(ids(await index.refresh(signal))).toEqual(['session-a'])
    publish('session-b', 2, 'second')
    expect(ids(await index.refresh(signal))).toEqual(['session-a', 'session-b'])
  })

  it('is listed again when its log was deleted (directory kept) and a new one published later', async () => {
    root.write('session-a', 1, 'first')
    root.write('session-b', 2, 'second')
    await settle()
    const index = new CorpusIndex(jsonlFiles(jsonlLayout(root.persistence())!, { racyMs: 40 }))
    expect(ids(await index.refresh(signal))).toEqual(['session-a', 'session-b'])
    unlinkSync(root.path('session-b'))
    // The deletion is seen by the check of the call that shows it.
    expect(index.check('session-b')).toBeUndefined()
    expect(ids(await index.refresh(signal))).toEqual(['session-a'])
    expect(ids(await index.refresh(signal))).toEqual(['session-a'])
    publish('session-b', 3, 'second again')
    expect(ids(await index.refresh(signal))).toEqual(['session-a', 'session-b'])
  })

  it('shows up in sessions_list through the port (default racy margin)', async () => {
    root.write('session-a', 1, 'first')
    mkdirSync(dirname(root.path('session-b')), { recursive: true })
    const w = makeWorld()
    const me = session('session-me', 5_000_000, { live: true })
    const persistence = root.persistence()
    const port = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: { get: () => undefined, list: () => [] as HostAgent[], resume: () => { throw new Error('a list must never resume') } },
      persistence: () => persistence,
      sessions: () => undefined,
    })
    const deps = { ...w.deps, sessions: port }
    // Past the 2 s margin: the project directory's listing is kept from here on.
    await settle(2200)
    expect(await sessionsList({}, w.call(me), deps)).not.toContain('session-b')
    expect(await sessionsList({}, w.call(me), deps)).not.toContain('session-b')
    publish('session-b', 2, 'second')
    const text = await sessionsList({}, w.call(me), deps)
    expect(text).toContain('session-b')
    expect(text).toContain('  second\n')
  }, 10_000)
})

describe('one session id with a log in two project directories', () => {
  function port() {
    const w = makeWorld()
    const me = session('session-me', 5_000_000, { live: true })
    const persistence = root.persistence()
    const sessions = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: { get: () => undefined, list: () => [] as HostAgent[], resume: () => { throw new Error('a list must never resume') } },
      persistence: () => persistence,
      sessions: () => undefined,
    })
    return { list: (args: Record<string, unknown>) => sessionsList(args, w.call(me), { ...w.deps, sessions }) }
  }

  it.each([['/work/a', '/work/b'], ['/work/b', '/work/a']])('shows the title of the very log whose header it shows (newer copy in %s)', async (newer, older) => {
    root.write('session-x', 2, `title in ${newer}`, { cwd: newer })
    root.write('session-x', 1, `title in ${older}`, { cwd: older })
    const { list } = port()
    for (const text of [await list({}), await list({ query: 'title in' })]) {
      expect(text).toContain(`cwd=${newer}`)
      expect(text).toContain(`  title in ${newer}\n`)
    }
  })
})

describe('a batch whose worker thread dies or whose call is aborted', () => {
  function plainLogs(count: number): Array<{ path: string, dirName: string }> {
    return Array.from({ length: count }, (_, index) => {
      const dirName = `session-${index}`
      const path = join(root.root, '-work-project-', dirName, 'session.jsonl.zstd')
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, `log ${index}`)
      return { path, dirName }
    })
  }

  it('answers as one restat per log when the worker is terminated mid-batch, and on the next batch', async () => {
    const logs = plainLogs(PARALLEL_MIN_PATHS + 50)
    const worker = new StatWorker()
    const start = worker.start.bind(worker)
    worker.start = paths => {
      const pending = start(paths)
      void (worker as unknown as { worker?: Worker }).worker?.terminate()
      return pending
    }
    const restat = (log: { path: string, dirName: string }) => statLog(log.path, log.dirName)
    expect(await restatMany(logs, worker, restat, signal)).toEqual(logs.map(restat))
    writeFileSync(logs.at(-1)!.path, 'grown after the worker died')
    expect(await restatMany(logs, worker, restat, signal)).toEqual(logs.map(restat))
    worker.close()
  })

  it('a query list aborted mid-batch says so, and the next one is exact', async () => {
    const count = PARALLEL_MIN_PATHS + 10
    for (let index = 0; index < count; index++) root.write(`session-${String(index).padStart(5, '0')}`, 1000 + index, `title ${index}`)
    const w = makeWorld()
    const me = session('session-me', 1, { live: true })
    const persistence = root.persistence()
    const sessions = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: { get: () => undefined, list: () => [] as HostAgent[], resume: () => { throw new Error('a list must never resume') } },
      persistence: () => persistence,
      sessions: () => undefined,
    })
    const deps = { ...w.deps, sessions }
    await sessionsList({ query: 'renamed' }, w.call(me), deps)
    root.appendTitle('session-00007', 2, 'renamed early')
    root.appendTitle(`session-${String(count - 7).padStart(5, '0')}`, 2, 'renamed late')
    const controller = new AbortController()
    const call = w.call(me, { signal: controller.signal })
    setImmediate(() => controller.abort())
    const [aborted, next] = await Promise.all([sessionsList({ query: 'renamed' }, call, deps), sessionsList({ query: 'renamed' }, w.call(me), deps)])
    expect(aborted).toMatch(/cancel/i)
    expect(next).toContain('2 of')
    expect(next).toContain('  renamed early\n')
    expect(next).toContain('  renamed late\n')
  })
})

describe('directories replaced, recreated or set back', () => {
  it('sees each change on the next refresh once every directory has settled', async () => {
    const index = new CorpusIndex(jsonlFiles(jsonlLayout(root.persistence())!, { racyMs: 40 }))
    const list = async () => {
      await settle()
      await index.refresh(signal) // listed once settled: kept from here
      return ids(await index.refresh(signal))
    }
    root.write('session-a', 1, 'a')
    root.write('session-b', 2, 'b', { cwd: '/work/other' })
    expect(await list()).toEqual(['session-a', 'session-b'])
    // A stray file in a project directory, then a log turned into a directory.
    writeFileSync(join(dirname(dirname(root.path('session-a'))), 'stray'), 'not a session')
    expect(await list()).toEqual(['session-a', 'session-b'])
    // Project directory deleted and recreated with another session.
    const project = dirname(dirname(root.path('session-b', '/work/other')))
    rmSync(project, { recursive: true })
    root.write('session-c', 3, 'c', { cwd: '/work/other' })
    expect(ids(await index.refresh(signal))).toEqual(['session-a', 'session-c'])
    expect(await list()).toEqual(['session-a', 'session-c'])
    // A project directory replaced by another renamed over it (built elsewhere, settled), then mtime set back.
    const built = join(home, 'built')
    mkdirSync(join(built, 'session-d'), { recursive: true })
    writeFileSync(join(built, 'session-d', 'session.jsonl.zstd'), encodeLog(JSON.stringify({ type: 'session', version: 0, id: 'session-d', createdAt: 4, cwd: '/work/other' }), []))
    await settle()
    rmSync(project, { recursive: true })
    renameSync(built, project)
    utimesSync(project, new Date(0), new Date(0))
    utimesSync(root.root, new Date(0), new Date(0))
    expect(ids(await index.refresh(signal))).toEqual(['session-a', 'session-d'])
    expect(await list()).toEqual(['session-a', 'session-d'])
    // A session directory added, then the project's mtime set back to what it was.
    const before = statSync(project)
    root.write('session-e', 5, 'e', { cwd: '/work/other' })
    utimesSync(project, before.atime, before.mtime)
    expect(ids(await index.refresh(signal))).toEqual(['session-a', 'session-d', 'session-e'])
    // A log turned into a directory: dropped once checked.
    unlinkSync(root.path('session-a'))
    mkdirSync(root.path('session-a'))
    expect(index.check('session-a')).toBeUndefined()
    expect(await list()).toEqual(['session-d', 'session-e'])
  })
})

describe('a log replaced in place with another header', () => {
  // Known gap, older than the listing cache (a known path is listed without a `stat`): the call that shows
  // the row checks its revision and reads the new header for its title, but prints the header it listed.
  // rc.8 never publishes a log over an existing one (`materializePosix`: `link()`, which fails on an existing
  // path), so only another writer can do this. `it.fails` until the list prints the header it re-checked.
  it.fails('the next list shows the new header (a subagent now: out of the top-level scope)', async () => {
    root.write('session-a', 1, 'first')
    root.write('session-b', 2, 'second')
    const w = makeWorld()
    const me = session('session-me', 5_000_000, { live: true })
    const persistence = root.persistence()
    const sessions = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: { get: () => undefined, list: () => [] as HostAgent[], resume: () => { throw new Error('a list must never resume') } },
      persistence: () => persistence,
      sessions: () => undefined,
    })
    const list = () => sessionsList({}, w.call(me), { ...w.deps, sessions })
    await settle(2200)
    expect(await list()).toContain('session-b [cold, top-level]')
    // Published by link() over the same path: a new file, the directories untouched.
    const path = root.path('session-b')
    writeFileSync(`${path}.tmp`, encodeLog(JSON.stringify({ type: 'session', version: 0, id: 'session-b', createdAt: 2, cwd: '/work/project', parentSession: 'session-a' }), []))
    renameSync(`${path}.tmp`, path)
    expect(await list()).not.toContain('session-b [cold, top-level]')
  }, 10_000)
})

describe('concurrent lists on one port', () => {
  it('a list started after another writer retitled logs sees every retitle, whatever list runs beside it', async () => {
    const count = PARALLEL_MIN_PATHS + 40
    const name = (index: number) => `session-${String(index).padStart(5, '0')}`
    for (let index = 0; index < count; index++) root.write(name(index), 1000 + index, `title ${index}`)
    const w = makeWorld()
    const me = session('session-me', 1, { live: true })
    const persistence = root.persistence()
    const sessions = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: { get: () => undefined, list: () => [] as HostAgent[], resume: () => { throw new Error('a list must never resume') } },
      persistence: () => persistence,
      sessions: () => undefined,
    })
    const list = (query: string) => sessionsList({ query, limit: 50 }, w.call(me), { ...w.deps, sessions })
    await list('warm')
    for (let round = 0; round < 3; round++) {
      const first = list(`round ${round}`)
      const picked = [round * 7, count - 1 - round * 11, 2000 + round]
      for (const index of picked) root.appendTitle(name(index), 2 + round, `round ${round} ${index}`)
      const [, second, third] = await Promise.all([first, list(`round ${round}`), list(`round ${round}`)])
      for (const text of [second, third]) {
        expect(text).toContain('3 of')
        for (const index of picked) expect(text).toContain(`  round ${round} ${index}\n`)
      }
    }
  }, 30_000)
})

describe('the worker thread and process exit', () => {
  it('a process stays up while a batch is awaited, and exits once it is idle (worker unref\'d)', () => {
    const source = new URL('../../src/index/stat-worker.ts', import.meta.url).href
    const script = `import { StatWorker } from ${JSON.stringify(source)}
      const worker = new StatWorker()
      const paths = Array.from({ length: 50000 }, (_, index) => '/nonexistent/' + index)
      worker.start(paths).then(fields => console.log('done', fields.length))`
    const started = Date.now()
    const child = spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })
    expect(child.stderr).toBe('')
    expect(child.stdout.trim()).toBe(`done ${50000 * 7}`)
    expect(child.status).toBe(0)
    expect(Date.now() - started).toBeLessThan(15_000)
  })
})

describe('parity with rc.8 listArtifacts', () => {
  // rc.8 `listSessionDirs` keeps `readdir` entries that are directories (`Dirent.isDirectory()`: not a symlink);
  // `entryNames` (index/sync-fs.ts) reads names only, so a symlinked session directory is listed here and not by
  // rc.8. `it.fails` documents the gap (a user-made link; rc.8 never makes one).
  it.fails('does not list a session directory that is a symlink', async () => {
    root.write('session-a', 1, 'first')
    const outside = join(home, 'outside', 'session-s')
    mkdirSync(outside, { recursive: true })
    writeFileSync(join(outside, 'session.jsonl.zstd'), encodeLog(JSON.stringify({ type: 'session', version: 0, id: 'session-s', createdAt: 2, cwd: '/work/project' }), []))
    symlinkSync(outside, dirname(root.path('session-s')))
    const index = new CorpusIndex(jsonlFiles(jsonlLayout(root.persistence())!))
    expect(ids(await index.refresh(signal))).toEqual(['session-a'])
  })
})
