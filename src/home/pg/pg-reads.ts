/**
 * A read of another machine's session through the PostgreSQL store
 * (docs/architecture.md §8 "Several machines"): the log is a file on the
 * session's machine, so the reader asks (a `reads` row for that machine),
 * a process of that machine takes the request, reads its log as a local
 * read would, and writes the answer; the reader, woken by the answer's
 * `NOTIFY`, fetches it. Each step is one transaction.
 *
 * - **Each request is taken once**, by one process of its machine: the
 *   take locks the rows it takes and skips rows another process is taking
 *   (`FOR UPDATE SKIP LOCKED`).
 * - **A reader that stops waiting abandons** its request in one
 *   transaction, unless it was answered first: an abandoned request is
 *   never taken, and an answer to it is not written.
 * - The request and the answer are opaque text here (the read tool's
 *   arguments and its result text); requests and answers older than a
 *   minute are swept.
 *
 * @module dsh-cross-session/home/pg/pg-reads
 */

import { nanoid } from 'nanoid'
import { tagText } from './pg-connection.js'
import { PgDirectory } from './pg-directory.js'

/** How long a read request and its answer stay after they were last touched, ms. */
export const READ_RETAIN_MS = 60_000

/** A request taken by a process of its machine, to answer. */
export interface TakenRead {
  readonly id: string
  readonly sessionId: string
  /** The read's arguments, as the reader wrote them. */
  readonly request: string
  /** The reader's machine. */
  readonly asker: string
}

/** Where a request is, as its reader sees it. */
export type ReadState =
  | { readonly state: 'asked' | 'taken' }
  | { readonly state: 'answered', readonly answer: string }
  | { readonly state: 'abandoned' | 'unknown' }

/** Reads across machines on PostgreSQL. */
export class PgReads extends PgDirectory {
  /** Ask `machine` to read `sessionId` with `request`. @returns the request's id. */
  async askRead(machine: string, sessionId: string, request: string): Promise<string> {
    const id = `read-${nanoid()}`
    const now = this.now()
    await this.tx(query => query(`INSERT INTO ${this.s}.reads (id, machine, session_id, request, asker, state, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, 'asked', $6, $6)`, [id, machine, sessionId, request, this.self.machine, now]))
    return id
  }

  /** Take up to `limit` requests asked of this machine, oldest first; each is taken by one process only. */
  async takeReads(limit: number): Promise<TakenRead[]> {
    const rows = await this.tx(query => query<{ id: string, session_id: string, request: string, asker: string }>(
      `UPDATE ${this.s}.reads SET state = 'taken', taker = $2, updated_at = $3 WHERE id IN (
        SELECT id FROM ${this.s}.reads WHERE machine = $1 AND state = 'asked' ORDER BY created_at, id LIMIT $4 FOR UPDATE SKIP LOCKED)
      RETURNING id, session_id, request, asker`, [this.self.machine, tagText(this.self), this.now(), limit]))
    return rows.map(row => ({ id: row.id, sessionId: row.session_id, request: row.request, asker: row.asker }))
  }

  /** Answer a request this process took. @returns `false` when it is no longer this process's to answer (abandoned). */
  async answerRead(id: string, answer: string): Promise<boolean> {
    const rows = await this.tx(query => query(`UPDATE ${this.s}.reads SET state = 'answered', answer = $3, updated_at = $4
      WHERE id = $1 AND state = 'taken' AND taker = $2 RETURNING 1`, [id, tagText(this.self), answer, this.now()]))
    return rows.length === 1
  }

  /** Where the request `id` is (a read, for its reader). */
  async readState(id: string): Promise<ReadState> {
    const rows = await this.read<{ state: string, answer: string | null }>(`SELECT state, answer FROM ${this.s}.reads
      WHERE id = $1 AND asker = $2`, [id, this.self.machine])
    const row = rows[0]
    if (row === undefined) return { state: 'unknown' }
    if (row.state === 'answered' && row.answer !== null) return { state: 'answered', answer: row.answer }
    return { state: row.state === 'asked' || row.state === 'taken' ? row.state : 'abandoned' }
  }

  /** The reader stops waiting: the request is abandoned unless it was answered first. @returns its state after. */
  async abandonRead(id: string): Promise<ReadState> {
    await this.tx(query => query(`UPDATE ${this.s}.reads SET state = 'abandoned', updated_at = $3
      WHERE id = $1 AND asker = $2 AND state IN ('asked', 'taken')`, [id, this.self.machine, this.now()]))
    return await this.readState(id)
  }

  /** Drop requests last touched before `now - READ_RETAIN_MS`. @returns how many. */
  async sweepReads(now: number): Promise<number> {
    const rows = await this.tx(query => query(`DELETE FROM ${this.s}.reads WHERE updated_at < $1 RETURNING 1`, [now - READ_RETAIN_MS]))
    return rows.length
  }
}
