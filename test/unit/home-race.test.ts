/**
 * The home store under real contention (docs/architecture.md §8): several
 * OS processes, each with its own connection, race on one store file.
 * `BEGIN IMMEDIATE` takes the write lock before the first read; a
 * transition meeting another's lock past the short `busy_timeout` throws
 * SQLITE_BUSY and is tried again asynchronously, as the shipped callers do
 * (`home/store-retry.ts`), so exactly one process takes a session, a
 * message id is stored once, and no transition is lost while others write.
 *
 * @module test/unit/home-race
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openHomeStore } from '../../src/testing.js'

const RACERS = 6
const ROOT = join(import.meta.dirname, '..', '..')
const RACER = join(ROOT, 'test', 'support', 'home-racer.ts')

const homes: string[] = []
let racers: ChildProcess[] = []

/** The next line a racer prints. */
function nextLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (chunk: Buffer): void => {
      out += chunk.toString()
      if (!out.includes('\n')) return
      child.stdout!.off('data', onData)
      child.off('exit', onExit)
      resolve(out.slice(0, out.indexOf('\n')))
    }
    const onExit = (code: number | null): void => reject(new Error(`racer exited early (${code})`))
    child.stdout!.on('data', onData)
    child.once('exit', onExit)
  })
}

beforeAll(async () => {
  racers = Array.from({ length: RACERS }, (_, index) => spawn(process.execPath, ['--no-warnings', '--import', 'tsx', RACER, String(index)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] }))
  await Promise.all(racers.map(nextLine))
}, 60_000)

afterAll(() => {
  for (const racer of racers) racer.stdin!.end()
  for (const home of homes) rmSync(home, { recursive: true, force: true })
})

/** Give every racer the same command at once; collect each one's answer (all stay alive). */
async function race<T>(what: 'acquire' | 'post' | 'churn'): Promise<{ home: string, results: T[] }> {
  const home = mkdtempSync(join(tmpdir(), 'xs-race-'))
  homes.push(home)
  openHomeStore(home, { pid: 1, start: 1 }, () => false).close()
  const answers = racers.map(nextLine)
  for (const racer of racers) racer.stdin!.write(`${what} ${home}\n`)
  return { home, results: (await Promise.all(answers)).map(line => JSON.parse(line) as T) }
}

describe('races between processes', () => {
  it(`${RACERS} processes take one session at once: exactly one holds it`, async () => {
    const { results } = await race<{ won: boolean }>('acquire')
    expect(results.filter(result => result.won)).toHaveLength(1)
  }, 30_000)

  it(`${RACERS} processes post the same 20 ids at once: each is stored exactly once`, async () => {
    const { home, results } = await race<{ stored: string[] }>('post')
    const stored = results.flatMap(result => result.stored)
    expect(stored.sort()).toEqual(Array.from({ length: 20 }, (_, n) => `raced-${n}`).sort())
    const store = openHomeStore(home, { pid: 2, start: 1 }, () => false)
    expect(store.waiting()).toEqual(new Set(['session-raced']))
    store.close()
  }, 30_000)

  it(`${RACERS} processes churn on three sessions: no transition fails, no message is recorded twice`, async () => {
    const { results } = await race<{ recorded: string[], errors: string[] }>('churn')
    expect(results.flatMap(result => result.errors)).toEqual([])
    const recorded = results.flatMap(result => result.recorded)
    expect(recorded.length).toBeGreaterThan(0)
    expect(new Set(recorded).size).toBe(recorded.length)
  }, 30_000)
})
