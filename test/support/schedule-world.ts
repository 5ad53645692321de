/**
 * The shared ground of a run of crash schedules (test/support/home-schedule.ts):
 * one real store file made by `openHomeStore`, a pool of connections for the
 * simulated processes (each configured as `home/store-open.ts` configures
 * one), the pids handed out, the processes dead so far, and a
 * {@link Checker} that reads the store through a connection of its own, the
 * way another process sees it. A world on PostgreSQL
 * (test/support/pg-schedule-world.ts) has the same shape, with `pg` set.
 *
 * @module test/support/schedule-world
 */

import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { BUSY_TIMEOUT_MS, openHomeStore, storePaths } from '../../src/testing.js'

/** What the invariants read of the store, through a connection of their own (the way another process sees it). */
export interface StoreChecker {
  holdersOf(sessions: readonly string[]): Array<{ session_id: string, pid: number | null, start: number | null, state: string }>
  watchRows(prefix: string): Array<{ message_id: string, target: string, state: string, turn_end_seq: number | null, outcome: string | null }>
  inboundOf(sessionId: string): string | undefined
  approvalRows(prefix: string): Array<{ message_id: string, state: string }>
  messageRows(after: number): Array<{ n: number, message_id: string, target: string, state: string, seq: number | null, answered_seq: number | null, reason: string | null }>
  lastOrder(): number
}

/**
 * The PostgreSQL store of a world (test/support/pg-schedule-world.ts), where the simulated processes open it through
 * the shipped `pgSite` instead of the SQLite file.
 */
export interface PgWorld {
  /** The server's URL through the gate every simulated process connects through. */
  readonly url: string
  readonly schema: string
  /** The simulated machine every simulated process is a process of (`home/pg/simulated-machine.ts`). */
  readonly machine: SharedArrayBuffer
  /** Cut (`false`: the server out of reach for every simulated process) or restore (`true`) their connections. */
  gate(open: boolean): void
}

/** Shared by every schedule of one run: one store file (or PostgreSQL schema), its connections, pids never reused. */
export interface CrashWorld {
  readonly home: string
  readonly dead: Set<string>
  nextPid: number
  /** Reads the store at the path (a new one after {@link moved}). */
  checker: StoreChecker
  /** Set when the store is PostgreSQL's (the SQLite file at `home` otherwise). */
  readonly pg?: PgWorld
  /** Connections not in use by a living simulated process. */
  readonly idle: DatabaseSync[]
  /** How often each path of interest was taken, over every schedule (the test asserts the run was not vacuous). */
  readonly covered: Map<string, number>
  /** Close every connection (after the last schedule: each living process's connection is back in the pool). */
  close(): void
  /**
   * The store file was deleted: a new one is made at the path (`openHomeStore`, as a process starting now makes it),
   * the checker reads that one, and the pooled connections to the old file are closed.
   */
  moved(): void
}

/** Reads the store through its own connection, the way another process sees it. */
export class Checker implements StoreChecker {
  private readonly top: StatementSync
  private readonly messages: StatementSync
  private readonly approvals: StatementSync
  private readonly inbound: StatementSync
  private readonly holders: StatementSync
  private readonly watches: StatementSync
  constructor(db: DatabaseSync) {
    this.top = db.prepare('SELECT MAX(n) AS n FROM messages')
    this.messages = db.prepare('SELECT n, message_id, target, state, seq, answered_seq, reason FROM messages WHERE n > ?')
    this.approvals = db.prepare('SELECT message_id, state FROM approvals WHERE message_id LIKE ?')
    this.inbound = db.prepare('SELECT mode FROM inbound WHERE session_id = ?')
    this.holders = db.prepare('SELECT session_id, pid, start, state FROM holders WHERE session_id IN (SELECT value FROM json_each(?))')
    this.watches = db.prepare('SELECT message_id, target, state, turn_end_seq, outcome FROM watches WHERE message_id LIKE ?')
  }

  /** The holder rows of any number of sessions. */
  holdersOf(sessions: readonly string[]): Array<{ session_id: string, pid: number | null, start: number | null, state: string }> {
    return this.holders.all(JSON.stringify(sessions)) as never
  }

  /** Watches whose watched message id starts with `prefix` (a schedule's own). */
  watchRows(prefix: string): Array<{ message_id: string, target: string, state: string, turn_end_seq: number | null, outcome: string | null }> {
    return this.watches.all(`${prefix}%`) as never
  }

  /** A session's own inbound choice, as the store has it now. */
  inboundOf(sessionId: string): string | undefined {
    return (this.inbound.get(sessionId) as { mode: string } | undefined)?.mode
  }

  /** Held messages whose id starts with `prefix` (a schedule's own), and their states. */
  approvalRows(prefix: string): Array<{ message_id: string, state: string }> {
    return this.approvals.all(`${prefix}%`) as never
  }

  /** Messages posted after `after` (a schedule's own: those of earlier schedules are recorded and swept). */
  messageRows(after: number): Array<{ n: number, message_id: string, target: string, state: string, seq: number | null, answered_seq: number | null, reason: string | null }> {
    return this.messages.all(after) as never
  }

  /** The last posting order used so far. */
  lastOrder(): number {
    return (this.top.get() as { n: number | null }).n ?? 0
  }
}

/**
 * A connection as `home/store-open.ts` configures it (the file is already
 * WAL), whose statements are prepared once per SQL text: the store prepares
 * on every call, and preparing is most of a transition's cost here. A
 * statement is reset before each run, so reusing it changes nothing else.
 */
export function connection(file: string): DatabaseSync {
  const sqlite = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite')
  const db = new sqlite.DatabaseSync(file)
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  db.exec('PRAGMA synchronous = FULL')
  const prepared = new Map<string, StatementSync>()
  const prepare = db.prepare.bind(db)
  db.prepare = (sql: string) => {
    let statement = prepared.get(sql)
    if (statement === undefined) prepared.set(sql, statement = prepare(sql))
    return statement
  }
  return db
}

/**
 * Open the world of a run on `home`: the store file made by `openHomeStore`,
 * then a pool of connections, each used by one living simulated process at a
 * time (a dead process's connection is handed to a later one: between two
 * steps no transaction is open, as a SIGKILLed process's locks are gone).
 */
export function openCrashWorld(home: string, covered = new Map<string, number>()): CrashWorld {
  openHomeStore(home, { pid: 1, start: 1 }, () => false).close()
  const { file } = storePaths(home)
  let checker = connection(file)
  const idle: DatabaseSync[] = []
  const close = (): void => {
    for (const db of [checker, ...idle]) db.close()
    idle.length = 0
  }
  const world: CrashWorld = {
    home, dead: new Set(), nextPid: 10_000, checker: new Checker(checker), idle, covered, close,
    moved: () => {
      close()
      openHomeStore(home, { pid: 1, start: 1 }, () => false).close()
      checker = connection(file)
      world.checker = new Checker(checker)
    },
  }
  return world
}
