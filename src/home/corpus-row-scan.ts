/**
 * A new process's first list over the corpus index's shared rows (table `corpus_logs`, docs/performance.md "What a
 * new process reads"): every row's key, creation time and whether its header passes the list's filters (computed
 * by SQLite, {@link passesSql}), read as arrays in chunks with no row or header built, then the whole rows of the few
 * it shows, all from one snapshot.
 *
 * @module dsh-cross-session/home/corpus-row-scan
 */

import type { StatementSync } from 'node:sqlite'
import type { HeaderFilter } from '../model/list-filter.js'
import type { CorpusRow, RowVisitor } from '../index/shared-rows.js'
import { ALL_ROWS_CHUNK, asArrays, COLUMNS, inSnapshot, readRows, type ArrayStatement } from './corpus-row-read.js'

/** A subagent's row, as `model/sessions.ts` `isSubagent` reads its header (an empty string is no value: `headerOf`). */
const SUBAGENT = `((parent_session IS NOT NULL AND parent_session <> '') OR origin IS 'subagent')`

/**
 * `model/list-filter.ts` `headerPasses` as an SQL expression over a `corpus_logs` row, with its parameters: `IS`
 * compares NULLs as values, so a missing field never makes the whole expression NULL. Kept equal to `headerPasses`
 * by test/unit/newest-list.test.ts ("the filter in SQL").
 */
export function passesSql(filter: HeaderFilter): { sql: string, params: string[] } {
  const { caller, visibility } = filter
  // `isVisible`: every session, or the caller's own and (when the caller has a workspace) those of its workspace.
  const visible = visibility === 'all' ? '1' : caller.cwd === undefined ? 'session_id IS ?' : '(session_id IS ? OR cwd IS ?)'
  const params = visibility === 'all' ? [] : caller.cwd === undefined ? [caller.id] : [caller.id, caller.cwd]
  const scope = filter.scope === 'all' ? '1' : filter.scope === 'subagents' ? SUBAGENT : `NOT ${SUBAGENT}`
  return { sql: `CASE WHEN ${visible} AND ${scope} THEN 1 ELSE 0 END`, params }
}

/** The columns scanned, in this order (`rowid` last: the chunks' cursor); the filter's value is fourth. */
export const SCAN_COLUMNS = 'path, dir_name, created_at, rowid'

/**
 * `CorpusRows.scan` over one connection: every row of `root` with a usable session id (the rows `eachRow`,
 * ./corpus-row-read.ts, reads have one), then the rows of the paths `pick` names.
 * @returns the picked rows that are still usable, in `pick`'s order.
 * @throws the store's errors (locked, closed, I/O), after ending the read transaction.
 */
export function scanRows(sql: (text: string) => StatementSync, root: string, filter: HeaderFilter, visit: RowVisitor,
  pick: () => readonly string[]): CorpusRow[] {
  const passes = passesSql(filter)
  const statement: ArrayStatement = sql(`SELECT path, dir_name, created_at, ${passes.sql}, rowid FROM corpus_logs `
    + `WHERE root = ? AND session_id <> '' AND rowid > ? ORDER BY rowid LIMIT ${ALL_ROWS_CHUNK} -- scan`)
  const arrays = asArrays(statement)
  return inSnapshot(sql, () => {
    for (let after = 0; ;) {
      const chunk = statement.all(...passes.params, root, after) as unknown[]
      for (let index = 0; index < chunk.length; index++) {
        const values = arrays ? chunk[index] as unknown[] : Object.values(chunk[index] as object)
        after = values[4] as number
        const path = values[0]
        const dirName = values[1]
        const createdAt = values[2]
        if (typeof path !== 'string' || typeof dirName !== 'string') continue
        visit(path, dirName, typeof createdAt === 'number' && Number.isFinite(createdAt) ? createdAt : 0, values[3] === 1)
      }
      if (chunk.length < ALL_ROWS_CHUNK) break
    }
    const rows: CorpusRow[] = []
    for (const path of pick()) {
      const row = readRows(sql, `SELECT ${COLUMNS} FROM corpus_logs WHERE path = ?`, path)[0]
      if (row !== undefined) rows.push(row)
    }
    return rows
  })
}
