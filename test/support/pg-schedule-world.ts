/**
 * The shared ground of a run of crash schedules on the PostgreSQL store
 * (test/support/home-schedule.ts, docs/architecture.md §8 "Several
 * machines"): a schema of the run's own on the test server, its tables
 * made by the shipped store (`home/pg/pg-schema.ts`, as the first process
 * of a store makes them); one simulated machine (`home/pg/simulated-machine.ts`)
 * every simulated process is a process of, its home holding the machine id
 * (`home/pg/machine-id.ts`); the gate the processes reach the server
 * through, and a checker reading the rows on a connection of its own
 * (test/support/pg-side.ts).
 *
 * @module test/support/pg-schedule-world
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PgSync } from '../../src/home/pg/pg-sync.js'
import { simulatedMachine } from '../../src/home/pg/simulated-machine.js'
import { PgSide } from './pg-side.ts'
import { testSchema } from './pg-target.ts'
import type { CrashWorld, StoreChecker } from './schedule-world.ts'

type Row = Record<string, unknown>
const num = (value: unknown): number | null => value === null || value === undefined ? null : Number(value)

/** The store's rows as the SQLite checker reads them (bigint columns come as text from `pg`: numbers here). */
class PgChecker implements StoreChecker {
  private readonly side: PgSide
  private readonly s: string

  constructor(side: PgSide, schema: string) {
    this.side = side
    this.s = schema
  }

  holdersOf(sessions: readonly string[]): Array<{ session_id: string, pid: number | null, start: number | null, state: string }> {
    return this.side.rows<Row>(`SELECT session_id, pid, start, state FROM ${this.s}.holders WHERE session_id = ANY($1::text[]) ORDER BY session_id`,
      [sessions]).map(row => ({ session_id: String(row.session_id), pid: num(row.pid), start: num(row.start), state: String(row.state) }))
  }

  watchRows(prefix: string): Array<{ message_id: string, target: string, state: string, turn_end_seq: number | null, outcome: string | null }> {
    return this.side.rows<Row>(`SELECT message_id, target, state, turn_end_seq, outcome FROM ${this.s}.watches WHERE message_id LIKE $1
      ORDER BY message_id`, [`${prefix}%`]).map(row => ({ message_id: String(row.message_id), target: String(row.target), state: String(row.state),
      turn_end_seq: num(row.turn_end_seq), outcome: row.outcome === null ? null : String(row.outcome) }))
  }

  inboundOf(sessionId: string): string | undefined {
    return this.side.rows<{ mode: string }>(`SELECT mode FROM ${this.s}.inbound WHERE session_id = $1`, [sessionId])[0]?.mode
  }

  approvalRows(prefix: string): Array<{ message_id: string, state: string }> {
    return this.side.rows<{ message_id: string, state: string }>(`SELECT message_id, state FROM ${this.s}.approvals WHERE message_id LIKE $1
      ORDER BY n`, [`${prefix}%`])
  }

  messageRows(after: number): Array<{ n: number, message_id: string, target: string, state: string, seq: number | null, answered_seq: number | null, reason: string | null }> {
    return this.side.rows<Row>(`SELECT n, message_id, target, state, seq, answered_seq, reason FROM ${this.s}.messages WHERE n > $1 ORDER BY n`,
      [after]).map(row => ({ n: Number(row.n), message_id: String(row.message_id), target: String(row.target), state: String(row.state),
      seq: num(row.seq), answered_seq: num(row.answered_seq), reason: row.reason === null ? null : String(row.reason) }))
  }

  lastOrder(): number {
    return num(this.side.rows<Row>(`SELECT max(n) AS n FROM ${this.s}.messages`)[0]?.n) ?? 0
  }
}

/** A world on the PostgreSQL server at `url`, in a schema of its own; `close()` ends it (`drop()` then drops the schema). */
export async function openPgCrashWorld(url: string, covered = new Map<string, number>()): Promise<CrashWorld & { drop(): Promise<void> }> {
  const { schema, drop } = await testSchema(url, 'xs_sched', false)
  // The tables, made as the first process of a store makes them.
  const first = new PgSync({ url, schema, self: { machine: 'm-maker', pid: 1, start: 1 }, machineName: 'maker' })
  try {
    first.call('prepare', [])
  } finally {
    first.close()
  }
  const side = new PgSide(url)
  const home = mkdtempSync(join(tmpdir(), 'xs-pg-schedule-'))
  const machine = simulatedMachine()
  const gate = (open: boolean): void => void side.gate(open)
  const world: CrashWorld & { drop(): Promise<void> } = {
    home, dead: new Set(), nextPid: 10_000, checker: new PgChecker(side, schema), idle: [], covered,
    pg: { url: side.gatedUrl, schema, machine, gate },
    close: () => {
      side.close()
      rmSync(home, { recursive: true, force: true })
    },
    moved: () => {
      throw new Error('a PostgreSQL store has no file to replace')
    },
    drop,
  }
  return world
}
