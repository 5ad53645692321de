/**
 * Read the home store the plugin keeps under a test's `DSH_HOME`
 * (`$DSH_HOME/cross-session/store.sqlite`, docs/architecture.md §8), the way
 * an operator would look at it: a read-only `node:sqlite` connection per
 * look, closed at once, so a test never holds a lock the `dsh` processes
 * under test could wait on.
 *
 * Only the columns the e2e tests read are typed here; the tables are
 * `processes`, `holders`, `messages` and `watches` (src/home/store-schema.ts). A test
 * that must plant a fault (a holder row naming a reused pid) uses
 * {@link writeStore}, with no `dsh` process running on the home.
 * @module test/e2e/support/store
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import type { DshHome } from './harness.ts'

/** One `holders` row: who holds a session now (`pid` null: nobody), and how its last holder let go. */
export interface HolderRow {
  session_id: string
  pid: number | null
  start: number | null
  state: 'waking' | 'live' | 'free'
  let_go: string | null
  let_go_pid: number | null
}

/** One `messages` row: a message addressed to a session held by another process, and its delivery state. */
export interface MessageRow {
  n: number
  message_id: string
  target: string
  sender: string
  mode: 'queue' | 'steer'
  text: string
  state: 'pending' | 'claimed' | 'recorded' | 'refused'
  claimer_pid: number | null
  seq: number | null
  reason: string | null
  /** Set on a notice: how the watched turn ended. */
  notice: string | null
  may_wake: number
  hop: number
}

/** One `watches` row: a sender's request for a notice (docs/tools.md "Notices"). */
export interface WatchRow {
  message_id: string
  sender: string
  target: string
  state: 'watching' | 'noticed' | 'dropped'
  reason: string | null
  notice_id: string | null
  turn_end_seq: number | null
  outcome: string | null
}

/** One `processes` row: a process of the package on the home. */
export interface ProcessRow {
  pid: number
  start: number
  long_lived: number
}

/** What the store holds at one moment. */
export interface StoreView {
  holders: HolderRow[]
  messages: MessageRow[]
  processes: ProcessRow[]
  watches: WatchRow[]
}

/** The store file of `h`. */
export function storeFile(h: DshHome): string {
  return join(h.home, 'cross-session', 'store.sqlite')
}

/** Every row of the three tables (empty before any process created the store). */
export function readStore(h: DshHome): StoreView {
  const file = storeFile(h)
  if (!existsSync(file)) return { holders: [], messages: [], processes: [], watches: [] }
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    db.exec('PRAGMA busy_timeout = 5000')
    return {
      holders: db.prepare('SELECT * FROM holders ORDER BY session_id').all() as unknown as HolderRow[],
      messages: db.prepare('SELECT * FROM messages ORDER BY n').all() as unknown as MessageRow[],
      processes: db.prepare('SELECT * FROM processes ORDER BY joined_at').all() as unknown as ProcessRow[],
      watches: db.prepare('SELECT * FROM watches ORDER BY created_at').all() as unknown as WatchRow[],
    }
  } finally {
    db.close()
  }
}

/** The messages addressed to `target`, in posting order. */
export function messagesFor(h: DshHome, target: string): MessageRow[] {
  return readStore(h).messages.filter(message => message.target === target)
}

/** One session's holder row, if the store ever saw it. */
export function holderOf(h: DshHome, sessionId: string): HolderRow | undefined {
  return readStore(h).holders.find(row => row.session_id === sessionId)
}

/** Run one write against the store (fault injection only; no `dsh` process may be running on the home). */
export function writeStore(h: DshHome, sql: string, ...params: Array<string | number | null>): number {
  const db = new DatabaseSync(storeFile(h))
  try {
    db.exec('PRAGMA busy_timeout = 5000')
    return Number(db.prepare(sql).run(...params).changes)
  } finally {
    db.close()
  }
}
