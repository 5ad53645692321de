/**
 * Attacks on the corpus index's promise (docs/performance.md "What each call
 * re-checks"): a session created, written, replaced or deleted by another
 * process is seen by the next call, with real files under a tmp root.
 */
import { appendFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { zstdCompressSync } from 'node:zlib'
import { decodeLog, encodeLog } from '../../bench/harness/zstd-log.js'
import { mulberry32 } from '../support/prng.js'
import { CorpusIndex, jsonlFiles, jsonlLayout, openHomeStore, SharedIndex, sessionsList, type SqliteHomeStore } from '../../src/testing.js'
import { listingPort } from '../support/indexed-port.js'
import type { SessionQueryPort } from '../../src/testing.js'
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
    const { w, me, port } = listingPort(root)
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
    const { w, me, port: sessions } = listingPort(root)
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
  }, 30_000)

  it('a query list aborted mid-batch says so, and the next one is exact', async () => {
    const count = PARALLEL_MIN_PATHS + 10
    for (let index = 0; index < count; index++) root.write(`session-${String(index).padStart(5, '0')}`, 1000 + index, `title ${index}`)
    const { w, me, port: sessions } = listingPort(root)
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
  }, 30_000)
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
  // A known path is listed without a `stat`; the list re-checks the rows it shows before printing them
  // (docs/tools.md#sessions_list, "Shown rows are checked"). rc.8 never publishes a log over an existing one
  // (`materializePosix`: `link()`, which fails on an existing path), so only another writer can do this.
  it('the next list shows the new header (a subagent now: out of the top-level scope)', async () => {
    root.write('session-a', 1, 'first')
    root.write('session-b', 2, 'second')
    const { w, me, port: sessions } = listingPort(root)
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

describe('a shown row whose log cannot be checked', () => {
  it('stays as listed, and the checks of the other rows still apply', async () => {
    root.write('session-x', 3000, 'X')
    root.write('session-y', 2000, 'Y')
    root.write('session-z', 1000, 'Z')
    const { w, me, port } = listingPort(root)
    const list = () => sessionsList({ limit: 2 }, w.call(me), { ...w.deps, sessions: port })
    expect(await list()).toContain('- session-y ')
    // x's log becomes a loop of links (its `stat` throws ELOOP), y's log goes (its directory stays).
    const path = root.path('session-x')
    unlinkSync(path)
    symlinkSync(`${path}.loop`, path)
    symlinkSync(path, `${path}.loop`)
    unlinkSync(root.path('session-y'))
    const text = await list()
    expect(text).toContain('- session-x ')
    expect(text).not.toContain('session-y')
    expect(text).toContain('- session-z ')
  })
})

describe('concurrent lists on one port', () => {
  it('each list re-checks by its own generation: a log deleted after another list\'s title read is left out', async () => {
    root.write('session-x', 2000, 'X')
    root.write('session-y', 1000, 'Y')
    const { w, me, port } = listingPort(root)
    await port.listSessions(new AbortController().signal)
    // A's title read checks x, then x's log goes (its directory stays); B's title read waits for that.
    let open!: () => void
    const gate = new Promise<void>(resolve => { open = resolve })
    const portA: SessionQueryPort = { ...port, readTitles: async (ids, signal, options) => {
      const titles = await port.readTitles(ids, signal, options)
      unlinkSync(root.path('session-x'))
      open()
      return titles
    } }
    const portB: SessionQueryPort = { ...port, readTitles: async (ids, signal, options) => {
      await gate
      return port.readTitles(ids, signal, options)
    } }
    const [a, b] = await Promise.all([
      sessionsList({ limit: 5 }, w.call(me), { ...w.deps, sessions: portA }),
      sessionsList({ limit: 5 }, w.call(me), { ...w.deps, sessions: portB }),
    ])
    expect(a).toContain('- session-x ')
    expect(b).not.toContain('session-x')
    expect(b).toMatch(/^1 of 1 considered sessions$/m)
  })

  it('a list started after another writer retitled logs sees every retitle, whatever list runs beside it', async () => {
    const count = PARALLEL_MIN_PATHS + 40
    const name = (index: number) => `session-${String(index).padStart(5, '0')}`
    for (let index = 0; index < count; index++) root.write(name(index), 1000 + index, `title ${index}`)
    const { w, me, port: sessions } = listingPort(root)
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
      const batch = worker.start(paths)
      // The caller takes nothing. Once the worker has begun, only the awaited batch (a ref'd worker) keeps the process up.
      const written = () => { let count = 0; for (let at = 0; at < batch.fields.length; at += 7) if (Atomics.load(batch.fields, at) !== 0n) count++; return count }
      const wait = () => written() === 0 ? setTimeout(wait, 1) : batch.done().then(() => console.log('done', written()))
      wait()`
    const started = Date.now()
    // tsx's loader: the module imports its siblings as `.js`, as the build resolves them.
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--no-warnings', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })
    expect(child.stderr).toBe('')
    expect(child.stdout.trim()).toBe('done 50000')
    expect(child.status).toBe(0)
    expect(Date.now() - started).toBeLessThan(15_000)
  }, 30_000)
})

describe('parity with rc.8 listArtifacts', () => {
  // rc.8 `listSessionDirs` keeps `readdir` entries that are directories (`Dirent.isDirectory()`: not a symlink);
  // `entryNames` (index/sync-fs.ts) reads names only, and a path new to the index counts only when its session
  // directory is a directory itself (`isRealDirectory`).
  it('does not list a session directory that is a symlink', async () => {
    root.write('session-a', 1, 'first')
    const outside = join(home, 'outside', 'session-s')
    mkdirSync(outside, { recursive: true })
    writeFileSync(join(outside, 'session.jsonl.zstd'), encodeLog(JSON.stringify({ type: 'session', version: 0, id: 'session-s', createdAt: 2, cwd: '/work/project' }), []))
    symlinkSync(outside, dirname(root.path('session-s')))
    const index = new CorpusIndex(jsonlFiles(jsonlLayout(root.persistence())!))
    expect(ids(await index.refresh(signal))).toEqual(['session-a'])
  })
})

describe('a seeded schedule of another writer', () => {
  const stores: SqliteHomeStore[] = []
  afterEach(() => {
    for (const store of stores.splice(0)) store.close()
  })
  it.each([[1, false], [2, false], [3, false], [4, false], [5, true], [6, true], [7, true], [8, true]])('every refresh and check agrees with the files on disk (seed %i, shared rows: %s)', async (seed, shared) => {
    const random = mulberry32(seed)
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!
    const cwds = ['/work/p0', '/work/p1', '/work/p2']
    const idsOf = Array.from({ length: 12 }, (_, index) => ({ id: `session-${index}`, cwd: cwds[index % 3]!, twin: cwds[(index + 1) % 3]! }))
    const layout = jsonlLayout(root.persistence())!
    // One process: its own index (and, with shared rows, its own store connection and rows).
    const processOn = (): CorpusIndex => {
      if (!shared) return new CorpusIndex(jsonlFiles(layout, { racyMs: 15 }))
      const store = openHomeStore(home, { pid: 2000 + stores.length, start: 1 }, () => true)
      stores.push(store)
      return new CorpusIndex(jsonlFiles(layout, { racyMs: 15 }), undefined, new SharedIndex(() => store.corpus(), `${layout.root}\0${layout.fileName}`))
    }
    const processes = [processOn()]
    let seq = 10
    // What rc.8 would list now: a log whose header names its directory, and its last title.
    const truth = (): Record<string, string | undefined> => {
      const out: Record<string, string | undefined> = {}
      for (const { id, cwd, twin } of idsOf) {
        // A copy in two project directories: the newer header wins (index/entry-maps.ts `onePerSession`).
        let newest = -1
        for (const where of [cwd, twin]) {
          let lines: string[]
          try {
            lines = decodeLog(readFileSync(root.path(id, where))).split('\n')
          } catch {
            continue
          }
          const createdAt = (JSON.parse(lines[0]!) as { createdAt: number }).createdAt
          if (createdAt <= newest) continue
          newest = createdAt
          const titles = lines.filter(line => line.includes('"session/title"')).map(line => (JSON.parse(line) as { data: { title: string } }).data.title)
          out[id] = `${titles.at(-1)}@${where}`
        }
      }
      return out
    }
    const view = async (index: CorpusIndex): Promise<Record<string, string | undefined>> => {
      const out: Record<string, string | undefined> = {}
      for (const entry of await index.refresh(signal)) {
        const checked = index.check(entry.header.id, index.generation)
        if (checked !== undefined) out[checked.header.id] = `${index.title(checked)}@${checked.header.cwd}`
      }
      index.flush()
      return out
    }
    for (let step = 0; step < 120; step++) {
      const chosen = pick(idsOf)
      const { id } = chosen
      const cwd = random() < 0.25 ? chosen.twin : chosen.cwd
      const path = root.path(id, cwd)
      // A session's header never changes (rc.8: fixed at creation); a copy elsewhere is a newer one.
      const createdAt = Number(id.slice('session-'.length)) * 10 + (cwd === chosen.twin ? 5 : 0)
      const op = pick(['write', 'write', 'append', 'append', 'unlink', 'rmdir', 'mkdir', 'rmproject', 'stray', 'logdir', 'replace', 'setback', 'wait', 'wait'])
      const kind = existsSync(path) ? (statSync(path).isFile() ? 'file' : 'dir') : 'none'
      const exists = kind === 'file'
      if (op === 'write' && kind === 'none') {
        mkdirSync(dirname(path), { recursive: true })
        writeFileSync(`${path}.tmp`, encodeLog(JSON.stringify({ type: 'session', version: 0, id, createdAt, cwd }), [JSON.stringify({ type: 'session/title', seq: 0, time: step, data: { title: `t${step}`, messageSeqs: [], source: { kind: 'user' } } })]))
        linkSync(`${path}.tmp`, path)
        unlinkSync(`${path}.tmp`)
      } else if (op === 'append' && exists) appendFileSync(path, zstdCompressSync(Buffer.from(`${JSON.stringify({ type: 'session/title', seq: seq++, time: step, data: { title: `a${step}`, messageSeqs: [], source: { kind: 'user' } } })}\n`)))
      else if (op === 'unlink' && exists) unlinkSync(path)
      else if (op === 'rmdir') rmSync(dirname(path), { recursive: true, force: true })
      else if (op === 'mkdir') mkdirSync(dirname(path), { recursive: true })
      else if (op === 'rmproject') rmSync(dirname(dirname(path)), { recursive: true, force: true })
      else if (op === 'stray' && existsSync(dirname(dirname(path)))) writeFileSync(join(dirname(dirname(path)), `stray-${step}`), 'x')
      else if (op === 'logdir' && kind === 'none' && existsSync(dirname(path))) mkdirSync(path)
      else if (op === 'logdir' && kind === 'dir') rmSync(path, { recursive: true })
      else if (op === 'replace' && exists) {
        writeFileSync(`${path}.new`, readFileSync(path))
        appendFileSync(`${path}.new`, zstdCompressSync(Buffer.from(`${JSON.stringify({ type: 'session/title', seq: seq++, time: step, data: { title: `r${step}`, messageSeqs: [], source: { kind: 'user' } } })}\n`)))
        renameSync(`${path}.new`, path)
      } else if (op === 'setback' && existsSync(dirname(dirname(path)))) utimesSync(dirname(dirname(path)), new Date(0), new Date(0))
      else if (op === 'wait') await settle(20 + Math.floor(random() * 20))
      if (shared && random() < 0.1) processes.push(processOn())
      expect(await view(pick(processes)), `step ${step}: ${op} ${id}`).toEqual(truth())
    }
  }, 30_000)
})

describe('a copy in another project directory replaced with a newer header', () => {
  // Known gap (the same as a log replaced in place, above): the copy's path is known, so the listing trusts
  // its old header; it loses `onePerSession` to the other copy and, never shown, is never checked again.
  it.fails('is the copy shown once it is the newer one', async () => {
    root.write('session-x', 74, 'in p0', { cwd: '/work/p0' })
    root.write('session-x', 67, 'old in p1', { cwd: '/work/p1' })
    const index = new CorpusIndex(jsonlFiles(jsonlLayout(root.persistence())!, { racyMs: 40 }))
    const shown = async () => {
      const [entry] = await index.refresh(signal)
      return index.check(entry!.header.id, index.generation)!.header.cwd
    }
    expect(await shown()).toBe('/work/p0')
    const path = root.path('session-x', '/work/p1')
    writeFileSync(`${path}.new`, encodeLog(JSON.stringify({ type: 'session', version: 0, id: 'session-x', createdAt: 99, cwd: '/work/p1' }), []))
    renameSync(`${path}.new`, path)
    await settle()
    for (let call = 0; call < 3; call++) expect(await shown()).toBe('/work/p1')
  })
})

describe('a log deleted while its session directory stays', () => {
  // Listed until a call shows it or checks it (docs/performance.md "What each call re-checks"): the call that would
  // show it re-checks it first and leaves it out.
  it('is not shown by the next list', async () => {
    root.write('session-a', 1, 'first')
    root.write('session-b', 2, 'second')
    const { w, me, port: sessions } = listingPort(root)
    const list = () => sessionsList({}, w.call(me), { ...w.deps, sessions })
    expect(await list()).toContain('session-b')
    unlinkSync(root.path('session-b'))
    expect(await list()).not.toContain('session-b')
  })
})

describe('copies of one session id under a bound that evicts', () => {
  // Known gap: a refresh keeps the newer copy (`onePerSession`), but when that entry is evicted, `check(id)`
  // takes whichever copy is still held, or the first project directory's (`probe`): its title can then be the
  // other copy's. rc.8's own `listArtifacts` rejects a root with such copies. `it.fails` until both agree.
  it.fails('checks the very copy the refresh keeps, whichever project directory is listed first', async () => {
    for (const [newer, older] of [['/work/a', '/work/b'], ['/work/b', '/work/a']] as const) {
      rmSync(root.root, { recursive: true, force: true })
      root.write('session-x', 2, 'newer', { cwd: newer })
      root.write('session-x', 1, 'older', { cwd: older })
      // Room for one entry: the second put evicts the first.
      const index = new CorpusIndex(jsonlFiles(jsonlLayout(root.persistence())!), 1500)
      const [entry] = await index.refresh(signal)
      expect(entry!.header.cwd).toBe(newer)
      expect(index.check('session-x', index.generation)!.header.cwd).toBe(newer)
    }
  })
})
