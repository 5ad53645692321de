/**
 * Reading the corpus index's shared rows (table `corpus_logs`,
 * `home/store-corpus.ts`): the columns a row is read from, each row made
 * the index's `CorpusRow` with every value checked, and every row of a root
 * read in chunks from one snapshot (docs/performance.md "What a new process
 * reads").
 *
 * @module dsh-cross-session/home/corpus-row-read
 */

import type { StatementSync } from 'node:sqlite'
import type { CorpusRow } from '../index/shared-rows.js'
import { headerOf } from '../model/sessions.js'

/**
 * The columns a row is read from, in this order: the header's fields are columns of their own (read as they are,
 * no JSON to parse: a new process reads every row of its root).
 */
export const COLUMNS = 'path, session_id, dir_name, identity, created_at, cwd, parent_session, origin, agent_preset, '
  + 'title_revision, title_identity, title, title_bytes'

/**
 * A row as the index reads it, from its values in {@link COLUMNS} order; `undefined` for a row that does not
 * hold a usable header (then the log is read again). Every value is checked (`headerOf`): a row is a cache
 * entry, never a fact.
 */
function rowOf(values: readonly unknown[]): CorpusRow | undefined {
  // Indexed, not destructured: a new process's first call runs this cold, once per row, and an array pattern
  // walks the array's iterator until the function is optimised.
  const header = headerOf(values[1], values[4], values[5], values[6], values[7], values[8])
  const path = values[0]
  const dirName = values[2]
  const identity = values[3]
  if (header === undefined || typeof path !== 'string' || typeof dirName !== 'string' || typeof identity !== 'string') return undefined
  const titleRevision = values[9]
  const titleIdentity = values[10]
  const title = values[11]
  const titleBytes = values[12]
  const cached = typeof titleRevision === 'string' && typeof titleIdentity === 'string' && typeof titleBytes === 'number'
    ? { revision: titleRevision, identity: titleIdentity, value: typeof title === 'string' ? title : undefined, completeBytes: titleBytes }
    : undefined
  return { path, sessionId: header.id, dirName, identity, header, title: cached }
}

/** A statement that can hand rows as arrays (`setReturnArrays`, Node ≥ 22.16). */
type ArrayStatement = StatementSync & { setReturnArrays?: (on: boolean) => void }

/** Whether `statement` now hands rows as arrays (switched on where this Node can). */
function asArrays(statement: ArrayStatement): boolean {
  if (typeof statement.setReturnArrays !== 'function') return false
  statement.setReturnArrays(true)
  return true
}

/**
 * The usable rows one query of {@link COLUMNS} finds. Rows are read as arrays where this Node can (measured 1.5–2.5
 * times faster than one object per row at 100,000 rows); each statement text is its own (suffixed), so the array
 * mode never leaks to another query.
 * @param text - `SELECT {@link COLUMNS} FROM corpus_logs WHERE …`.
 */
export function readRows(sql: (text: string) => StatementSync, text: string, ...params: string[]): CorpusRow[] {
  const statement: ArrayStatement = sql(`${text} -- as arrays`)
  const arrays = asArrays(statement)
  const out: CorpusRow[] = []
  for (const raw of statement.all(...params)) {
    const row = rowOf(arrays ? raw as unknown as unknown[] : Object.values(raw as object))
    if (row !== undefined) out.push(row)
  }
  return out
}

/** Rows read per statement by {@link eachRow}. */
export const ALL_ROWS_CHUNK = 5000

/**
 * Hand every usable row of `root` to `visit`, read {@link ALL_ROWS_CHUNK} rows at a time in `rowid` order inside
 * one read transaction (one snapshot: a row rewritten meanwhile by another process is read once). Why chunks and a
 * visitor: one `statement.all()` of every row, or an array of every row, keeps them all alive until the last is
 * read, and at 100,000 rows the young-generation collections copying them cost more than the reads
 * (docs/performance.md "A new process's first list"). @returns the rows visited.
 */
export function eachRow(sql: (text: string) => StatementSync, root: string, visit: (row: CorpusRow) => void): number {
  const statement = sql(`SELECT ${COLUMNS}, rowid FROM corpus_logs WHERE root = ? AND rowid > ? ORDER BY rowid LIMIT ${ALL_ROWS_CHUNK}`)
  const arrays = asArrays(statement)
  let visited = 0
  // A deferred transaction reads one snapshot and takes no lock another process waits for (WAL).
  sql('BEGIN').run()
  let read = false
  try {
    for (let after = 0; ;) {
      const chunk = statement.all(root, after) as unknown[]
      for (let index = 0; index < chunk.length; index++) {
        const values = arrays ? chunk[index] as unknown[] : Object.values(chunk[index] as object)
        after = values[13] as number
        const row = rowOf(values)
        if (row === undefined) continue
        visited++
        visit(row)
      }
      if (chunk.length < ALL_ROWS_CHUNK) break
    }
    read = true
  } finally {
    try {
      sql('COMMIT').run()
    } catch (error: unknown) {
      // After a failed read SQLite may have ended the transaction itself: the read's own error is the one to report.
      if (read) throw error
    }
  }
  return visited
}
