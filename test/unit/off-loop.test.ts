/**
 * A message's transitions off the event loop (src/home/off-loop.ts,
 * docs/architecture.md §8 "Off the event loop"): a real worker thread with
 * its own connection to the real store file runs `post`, `claim` and
 * `recordAll`; what it commits is what the process's own connection reads;
 * the caller's lock wait and SQLite's fault codes cross the thread; a
 * closed store rejects what is in flight as a store fault; a worker that
 * cannot open the very file its process opened leaves every transition on
 * the event loop.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { carryError, fileIdentity, isAlive, isBusy, OffLoop, openExisting, openHomeStore, rebuildError, selfTag, STORE_WORKER_NICE_STEPS, storeFault,
  storeFaultWhy, storePaths, withLockWait, withoutLockWait,
  type NewMessage, type SqliteHomeStore } from '../../src/testing.js'
import { lockStore } from '../support/store-lock.js'

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

const message = (n: number, target = 'session-target'): NewMessage => ({ messageId: `cross-session:from:call_${n}:0`, target, sender: 'session-from',
  hop: 1, mode: 'queue', text: `message ${n}`, mayWake: false })

/**
 * Polls of 25 ms before a thread is judged not to have answered (60 s): a worker starting, or a child process loading
 * its modules, on a machine whose cores other jobs share takes seconds.
 */
const SETTLE_TRIES = 2400

/** A store on a fresh home that runs its per-message transitions off the loop, and its log lines. */
function offLoopStore(): { home: string, store: SqliteHomeStore, logged: string[] } {
  const home = mkdtempSync(join(tmpdir(), 'xs-off-loop-'))
  const logged: string[] = []
  const store = openHomeStore(home, selfTag(), isAlive)
  store.runOffLoop(line => logged.push(line))
  cleanups.push(() => rmSync(home, { recursive: true, force: true }), () => store.close())
  return { home, store, logged }
}

/** Poll `done` every 25 ms until it holds, at most {@link SETTLE_TRIES} times; the caller asserts what it waited for. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < SETTLE_TRIES && !await done(); tries++) await new Promise(resolve => setTimeout(resolve, 25))
}

/** Wait until the store's worker has opened its connection (its first transition started it). */
async function workerOpen(store: SqliteHomeStore): Promise<void> {
  await until(async () => await store.offLoopTimes() !== undefined)
  if (await store.offLoopTimes() === undefined) throw new Error('the store worker never opened')
}

/** The nice value of each thread of this process, by thread id (Linux: `/proc/self/task/<id>/stat`, field 19). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>()
  for (const thread of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${thread}/stat`, 'utf8')
      // The fields after the command name (in parentheses, and it may hold spaces) start at field 3.
      nices.set(Number(thread), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19 - 3]))
    } catch {
      // A thread that ended while being read.
    }
  }
  return nices
}

/** A worker of the store of `home`, opened; what it says, and each time it reports its claims lost. */
async function openWorker(home: string): Promise<{ offLoop: OffLoop, logged: string[], lost: string[] }> {
  const logged: string[] = []
  const lost: string[] = []
  const { file } = storePaths(home)
  const offLoop = new OffLoop({ file, identity: fileIdentity(file)!, self: selfTag() }, line => logged.push(line), () => lost.push('lost'))
  cleanups.push(() => offLoop.close())
  offLoop.start()
  await until(() => offLoop.open)
  expect(offLoop.open).toBe(true)
  return { offLoop, logged, lost }
}

/** The fault: the worker's thread ended from outside (its `Worker` is private to `OffLoop`). */
async function endThread(offLoop: OffLoop): Promise<number> {
  return await (offLoop as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate()
}

describe('errors crossing the thread', () => {
  it('keep what the store-fault table reads: SQLite codes, a file-system code, this package\'s fault', () => {
    const busy = Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5, errstr: 'database is locked' })
    const back = rebuildError(carryError(busy))
    expect(isBusy(back)).toBe(true)
    expect(storeFaultWhy(back)).toBe('database is locked')
    expect(back.message).toBe('database is locked')
    expect(storeFaultWhy(rebuildError(carryError(Object.assign(new Error('no space'), { code: 'ENOSPC' }))))).toBe('ENOSPC')
    expect(storeFaultWhy(rebuildError(carryError(storeFault('the store was closed', 'closed'))))).toBe('closed')
    // A bug stays a bug: no fault is made up on the way.
    expect(storeFaultWhy(rebuildError(carryError(new TypeError('x is undefined'))))).toBeUndefined()
  })
})

describe('the store worker', { timeout: 120_000 }, () => {
  it('runs a post, a claim and a record on its own connection; the process\'s connection reads what it committed', async () => {
    const { store } = offLoopStore()
    // The worker started with the store; until it has opened, a transition runs on the loop.
    expect((await store.postOffLoop(message(1))).ok).toBe(true)
    expect(store.times().transactions).toBe(1)
    await workerOpen(store)
    const posted = await store.postOffLoop(message(2))
    expect(posted.ok && !posted.duplicate && posted.message.state === 'pending').toBe(true)
    expect(store.times().transactions).toBe(1)
    expect((await store.offLoopTimes())!.transactions).toBe(1)
    expect(store.message(message(2).messageId)?.state).toBe('pending')
    // Idempotent by id on the worker too.
    const again = await store.postOffLoop(message(2))
    expect(again.ok && again.duplicate).toBe(true)

    expect(store.markLive('session-target').ok).toBe(true)
    const claimed = await store.claimOffLoop('session-target')
    expect(claimed.map(stored => stored.messageId)).toEqual([message(1).messageId, message(2).messageId])
    expect(claimed.every(stored => stored.claimer?.pid === process.pid)).toBe(true)
    expect(store.message(message(1).messageId)?.state).toBe('claimed')

    await store.recordAllOffLoop([{ messageId: message(1).messageId, seq: 7, running: false }, { messageId: message(2).messageId, seq: 9, running: true }])
    expect(store.message(message(1).messageId)).toMatchObject({ state: 'recorded', seq: 7 })
    expect(store.message(message(2).messageId)).toMatchObject({ state: 'recorded', seq: 9, running: true })
    expect((await store.offLoopTimes())!.transactions).toBe(4)
    expect(store.times().transactions).toBe(2)
  })

  it.runIf(process.platform === 'linux')('runs below its process\'s event loop, which keeps its own priority', async () => {
    const before = threadNices()
    const loop = before.get(process.pid)!
    const { store } = offLoopStore()
    await workerOpen(store)
    const after = threadNices()
    const started = [...after].filter(([thread]) => !before.has(thread)).map(([, nice]) => nice)
    expect(started).toContain(Math.min(19, loop + STORE_WORKER_NICE_STEPS))
    expect(after.get(process.pid)).toBe(loop)
    // It still answers.
    expect((await store.postOffLoop(message(1))).ok).toBe(true)
    expect((await store.offLoopTimes())!.transactions).toBe(1)
  })

  it('meets another process\'s lock with the caller\'s wait, and the fault comes back as SQLite\'s', async () => {
    const { home, store } = offLoopStore()
    await store.postOffLoop(message(1))
    await workerOpen(store)
    const lock = lockStore(home, 'write', cleanups)
    const started = performance.now()
    const refused = await withoutLockWait(() => store.postOffLoop(message(2))).then(() => undefined, (error: unknown) => error)
    expect(isBusy(refused)).toBe(true)
    expect(storeFaultWhy(refused)).toBe('database is locked')
    // No wait at all inside SQLite (a retried holder step's), not the default 25 ms.
    expect(performance.now() - started).toBeLessThan(1000)
    lock.release()
    expect((await store.postOffLoop(message(2))).ok).toBe(true)
  })

  it('rejects what is in flight as a store fault when the store closes, and says nothing of it', async () => {
    const { home, store, logged } = offLoopStore()
    await store.postOffLoop(message(1))
    await workerOpen(store)
    const lock = lockStore(home, 'write', cleanups)
    // Waits inside SQLite (the default 25 ms) on the worker, and the store is closed meanwhile.
    const inFlight = store.postOffLoop(message(2)).then(() => undefined, (error: unknown) => error)
    store.close()
    expect(storeFaultWhy(await inFlight)).toBe('the store was closed')
    lock.release()
    expect(logged).toEqual([])
  })

  it('a worker that dies with a transition in flight rejects it as a store fault, says so once, and hands the claims back', async () => {
    const { home, store } = offLoopStore()
    const { offLoop, logged, lost } = await openWorker(home)
    const here = (): string => 'on the loop'
    // The worker waits inside SQLite for another connection's lock while its thread is ended from outside (the fault).
    const lock = lockStore(home, 'write', cleanups)
    const inFlight = withLockWait(1000, () => offLoop.run('post', [message(1)], here)).then(() => undefined, (error: unknown) => error)
    void endThread(offLoop)
    const refused = await inFlight
    expect(storeFaultWhy(refused)).toBe('the store worker stopped')
    expect((refused as Error).message).toBe('the cross-session store is unavailable (the store worker stopped)')
    expect(offLoop.open).toBe(false)
    expect(lost).toEqual(['lost'])
    expect(logged).toEqual(['the cross-session store\'s worker thread exited with code 1; its transitions run on the event loop from now on'])
    lock.release()
    // From now on on the loop; nothing more is said.
    expect(await offLoop.run('post', [message(2)], here)).toBe('on the loop')
    expect(await offLoop.times()).toBeUndefined()
    expect(logged).toHaveLength(1)
    expect(store.message(message(1).messageId)).toBeUndefined()
  })

  it('a worker that dies idle says so once and has no claims to hand back', async () => {
    const { offLoop, logged, lost } = await openWorker(offLoopStore().home)
    // One transition answered by the worker: nothing is in flight when it dies.
    expect(await offLoop.run('post', [message(1)], () => 'on the loop')).toMatchObject({ ok: true })
    await endThread(offLoop)
    await until(() => logged.length > 0)
    expect(logged).toEqual(['the cross-session store\'s worker thread exited with code 1; its transitions run on the event loop from now on'])
    expect(lost).toEqual([])
  })

  it('never keeps its process alive when idle, and keeps it alive until what is in flight is answered', () => {
    const { home } = offLoopStore()
    const script = join(home, 'exit.mts')
    const testing = new URL('../../src/testing.ts', import.meta.url).href
    writeFileSync(script, `import { isAlive, openHomeStore, selfTag } from ${JSON.stringify(testing)}
const store = openHomeStore(${JSON.stringify(home)}, selfTag(), isAlive)
store.runOffLoop(line => console.log(line))
for (let tries = 0; tries < 2400 && await store.offLoopTimes() === undefined; tries++) await new Promise(resolve => setTimeout(resolve, 25))
const message = { messageId: 'cross-session:exit:1', target: 's', sender: 'f', hop: 1, mode: 'queue', text: 'x', mayWake: false }
// Nothing but the worker's answer keeps the process alive now.
void store.postOffLoop(message).then(posted => console.log('answered', posted.ok, store.message(message.messageId)?.state))
`)
    const started = performance.now()
    const run = spawnSync(process.execPath, ['--no-warnings', '--import', 'tsx', script], { encoding: 'utf8', timeout: 90_000 })
    expect(run.stderr).toBe('')
    expect(run.signal).toBeNull()
    expect(run.status).toBe(0)
    expect(run.stdout.trim()).toBe('answered true pending')
    expect(performance.now() - started).toBeLessThan(90_000)
  })

  it('never opens another file than its process\'s, nor one of another schema; nothing is made at the path', () => {
    const { home } = offLoopStore()
    const { file } = storePaths(home)
    const identity = fileIdentity(file)!
    const opened = openExisting(file, identity, selfTag(), isAlive)
    expect(typeof opened).toBe('object')
    ;(opened as SqliteHomeStore).close()
    expect(openExisting(file, '0:0', selfTag(), isAlive)).toBe('replaced')
    // A file gone since its process opened it is neither opened nor made again.
    const gone = join(home, 'gone.sqlite')
    expect(openExisting(gone, identity, selfTag(), isAlive)).toBe('replaced')
    expect(existsSync(gone)).toBe(false)
    const older = join(home, 'older.sqlite')
    const db = new DatabaseSync(older)
    db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES (\'version\', \'1\')')
    db.close()
    expect(openExisting(older, fileIdentity(older)!, selfTag(), isAlive)).toBe('schema')
    // A file that cannot be read as a store is a fault said as SQLite says it, not another release's schema.
    const foreign = join(home, 'foreign.sqlite')
    const other = new DatabaseSync(foreign)
    other.exec('CREATE TABLE t (x)')
    other.close()
    expect(() => openExisting(foreign, fileIdentity(foreign)!, selfTag(), isAlive)).toThrow(/no such table: meta/)
  })

  it('a worker that cannot open the file leaves every transition on the loop, and says so once', async () => {
    const { home, store } = offLoopStore()
    const logged: string[] = []
    const lost: string[] = []
    const offLoop = new OffLoop({ file: storePaths(home).file, identity: '0:0', self: selfTag() }, line => logged.push(line), () => lost.push('lost'))
    cleanups.push(() => offLoop.close())
    offLoop.start()
    let ranHere = 0
    const here = (): number => ++ranHere
    expect(await offLoop.run('post', [message(1)], here)).toBe(1)
    await until(() => logged.length > 0)
    expect(logged).toEqual(['the cross-session store\'s worker thread could not open the store (the file at the path is no longer the one its '
      + 'process opened); its transitions run on the event loop from now on'])
    expect(offLoop.open).toBe(false)
    expect(await offLoop.run('post', [message(2)], here)).toBe(2)
    expect(await offLoop.times()).toBeUndefined()
    expect(lost).toEqual([])
    expect(store.message(message(1).messageId)).toBeUndefined()
  })
  it('says which: a file of another schema at the path is named as such', async () => {
    const { home } = offLoopStore()
    const older = join(home, 'older.sqlite')
    const db = new DatabaseSync(older)
    db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES (\'version\', \'1\')')
    db.close()
    const logged: string[] = []
    const offLoop = new OffLoop({ file: older, identity: fileIdentity(older)!, self: selfTag() }, line => logged.push(line), () => undefined)
    cleanups.push(() => offLoop.close())
    offLoop.start()
    await until(() => logged.length > 0)
    expect(logged).toEqual(['the cross-session store\'s worker thread could not open the store (the file is not of this release\'s schema: '
      + 'another release changed it); its transitions run on the event loop from now on'])
    expect(offLoop.open).toBe(false)
  })
})
