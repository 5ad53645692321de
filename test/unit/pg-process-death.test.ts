/**
 * A holder process SIGKILLed in the middle of the PostgreSQL store's
 * transactions (docs/architecture.md §8 "Several machines"): a real OS
 * process (test/support/pg-holder-child.ts) holds a session live and
 * records what it claims in batches, one transaction each, while this
 * process posts; it is killed mid-stream, and a second holder process of
 * the same machine takes the session over — judging the first dead by its
 * pid + start time, as the shipped probe does, in the transaction that
 * installs it. Against a real throwaway PostgreSQL server
 * (`test/support/pg-cluster.ts`):
 * - every batch is recorded whole or not at all (the server rolls back the
 *   transaction of a connection that died);
 * - nothing is lost: every message ends recorded, by one holder or the
 *   other; a recorded one is never claimed again;
 * - the dead holder's claims go back to pending only when the next holder
 *   is installed, never while it lives.
 *
 * @module test/unit/pg-process-death
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { selfTag } from '../../src/testing.js'
import { PgSync } from '../../src/home/pg/pg-sync.js'
import { pgUrl } from '../support/pg-target.ts'

const url = pgUrl()
const CHILD = fileURLToPath(new URL('../support/pg-holder-child.ts', import.meta.url))
const POSTER = fileURLToPath(new URL('../support/pg-poster-child.ts', import.meta.url))
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A holder process; its printed batches, and a promise of its exit. */
function holder(schema: string): { child: ChildProcess, batches: string[][], held: Promise<void>, exited: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, url!, schema], { stdio: ['ignore', 'pipe', 'inherit'] })
  const batches: string[][] = []
  let buffered = ''
  const held = Promise.withResolvers<void>()
  child.stdout!.on('data', chunk => {
    buffered += String(chunk)
    const lines = buffered.split('\n')
    buffered = lines.pop()!
    for (const line of lines) {
      if (line.startsWith('held {"ok":true')) held.resolve()
      else if (line.startsWith('batch ')) batches.push(line.slice(6).split(' '))
      else if (line.startsWith('held')) held.reject(new Error(line))
    }
  })
  const exited = new Promise<void>(resolve => child.on('exit', () => resolve()))
  cleanups.push(async () => {
    child.kill('SIGKILL')
    await exited
  })
  return { child, batches, held: held.promise, exited }
}

describe.skipIf(url === undefined)('a holder process killed mid-transaction on the PostgreSQL store', () => {
  it('each batch is recorded whole or not at all; nothing is lost; the next holder takes the dead one\'s claims', async () => {
    const schema = `xs_death_${process.pid}`
    const sender = new PgSync({ url: url!, schema, self: { machine: 'machine-a', ...selfTag() }, machineName: 'a' })
    cleanups.push(() => sender.close())
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await admin.end()
    })
    sender.call('prepare', [])
    sender.call('join', [false])

    const first = holder(schema)
    await first.held
    const ids = Array.from({ length: 400 }, (_, n) => `m${String(n).padStart(3, '0')}`)
    let posted = 0
    for (const id of ids) {
      sender.call('post', [{ messageId: id, target: 's', sender: 'on-a', hop: 1, mode: 'queue', text: id, mayWake: true }])
      posted++
      // Killed once it has recorded a few batches, while it is still claiming and recording.
      if (posted === 200) {
        while (first.batches.length < 8) await new Promise(resolve => setTimeout(resolve, 1))
        first.child.kill('SIGKILL')
        await first.exited
      }
    }
    const states = async (): Promise<Map<string, { state: string, claimer: number | null }>> => new Map(
      (await admin.query<{ message_id: string, state: string, claimer_pid: number | null }>(
        `SELECT message_id, state, claimer_pid FROM ${schema}.messages`)).rows.map(row => [row.message_id, { state: row.state, claimer: row.claimer_pid }]))

    // Dead, not yet replaced: its claims are still its own.
    const before = await states()
    for (const batch of first.batches) {
      const recorded = batch.filter(id => before.get(id)?.state === 'recorded')
      expect([0, batch.length]).toContain(recorded.length)
    }
    const stuck = [...before.values()].filter(row => row.state === 'claimed')
    expect(stuck.every(row => row.claimer === first.child.pid)).toBe(true)

    const second = holder(schema)
    await second.held
    const end = Date.now() + 60_000
    for (let after = await states(); ; after = await states()) {
      if (ids.every(id => after.get(id)?.state === 'recorded')) break
      if (Date.now() > end) throw new Error('not every message was recorded')
      await new Promise(resolve => setTimeout(resolve, 20))
    }
    // Who recorded each message is its claimer when recorded. The first holder's last commit may land after it was
    // killed (it had sent it): what it recorded, late or not, the second never claimed; the second recorded the rest.
    const final = await states()
    const byFirst = ids.filter(id => final.get(id)?.claimer === first.child.pid)
    const bySecond = ids.filter(id => final.get(id)?.claimer === second.child.pid)
    expect(byFirst.length + bySecond.length).toBe(ids.length)
    expect(byFirst.length).toBeGreaterThan(0)
    const claimedBySecond = new Set(second.batches.flat())
    expect(byFirst.filter(id => claimedBySecond.has(id))).toEqual([])
    expect(bySecond.filter(id => !claimedBySecond.has(id))).toEqual([])
  }, 120_000)

  it('a process stopped mid-transaction (SIGSTOP, a lid closed) holds nothing up for long: the server ends its session', async () => {
    const schema = `xs_frozen_${process.pid}`
    const sync = new PgSync({ url: url!, schema, self: { machine: 'machine-a', ...selfTag() }, machineName: 'a' })
    cleanups.push(() => sync.close())
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await admin.end()
    })
    sync.call('prepare', [])
    sync.call('join', [false])
    const child = spawn(process.execPath, ['--import', 'tsx', POSTER, url!, schema], { stdio: ['ignore', 'pipe', 'inherit'] })
    const exited = new Promise<void>(resolve => child.on('exit', () => resolve()))
    cleanups.push(async () => {
      child.kill('SIGKILL')
      await exited
    })
    await new Promise(resolve => child.stdout.once('data', resolve))
    // Stopped while it posts back to back, until it is stopped inside a transaction (its session idle in it).
    const idleInTransaction = async (): Promise<number> => (await admin.query<{ n: number }>(`SELECT count(*)::int AS n
      FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'
      AND application_name = 'dsh-cross-session'`)).rows[0]!.n
    for (let tries = 0; ; tries++) {
      child.kill('SIGSTOP')
      await new Promise(resolve => setTimeout(resolve, 20))
      if (await idleInTransaction() > 0) break
      if (tries > 200) throw new Error('never stopped inside a transaction')
      child.kill('SIGCONT')
      await new Promise(resolve => setTimeout(resolve, Math.random() * 10))
    }
    for (let round = 0; round < 3; round++) {
      const posted = sync.call<{ ok: boolean }>('post', [{ messageId: `a${round}`, target: 't', sender: 'on-a', hop: 1, mode: 'queue',
        text: 'y', mayWake: true }])
      expect(posted.ok).toBe(true)
      expect(sync.call('markLive', [`t-${round}`])).toMatchObject({ ok: true })
    }
    // And its session is ended by the server (not left until it wakes).
    const end = Date.now() + 15_000
    while (await idleInTransaction() > 0 && Date.now() < end) await new Promise(resolve => setTimeout(resolve, 100))
    expect(await idleInTransaction()).toBe(0)
  }, 60_000)
})
