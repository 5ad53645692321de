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
 * no JSON to parse: a new process reads every row of its root). Not `dir_name`: the session directory's name is
 * part of the path ({@link sessionDirOf}).
 */
export const COLUMNS = 'path, session_id, identity, created_at, cwd, parent_session, origin, agent_preset, '
  + 'title_revision, title_identity, title, title_bytes'

/** Strings {@link one} keeps per read at most (a home has a few workspaces, presets and origins, repeated by every session). */
const KEPT_STRINGS = 4096

/**
 * A row as the index reads it, from its values in {@link COLUMNS} order; `undefined` for a row that does not
 * hold a usable header (then the log is read again). Every value is checked (`headerOf`): a row is a cache
 * entry, never a fact.
 * @param kept - one copy of each workspace, origin and preset read so far ({@link one}): a first list holds every
 *   stored session, and these repeat.
 */
function rowOf(values: readonly unknown[], kept?: Map<string, string>): CorpusRow | undefined {
  // Indexed, not destructured: a new process's first call runs this cold, once per row, and an array pattern
  // walks the array's iterator until the function is optimised.
  const header = headerOf(values[1], values[3], one(values[4], kept), values[5], one(values[6], kept), one(values[7], kept))
  const path = values[0]
  const dirName = typeof path === 'string' ? sessionDirOf(path) : undefined
  const identity = values[2]
  if (header === undefined || typeof path !== 'string' || dirName === undefined || typeof identity !== 'string') return undefined
  const titleRevision = values[8]
  const titleIdentity = values[9]
  const title = values[10]
  const titleBytes = values[11]
  const cached = typeof titleRevision === 'string' && typeof titleIdentity === 'string' && typeof titleBytes === 'number'
    ? {
        revision: titleRevision,
        // The file the title was folded from is nearly always the one the header was read from: one string.
        identity: titleIdentity === identity ? identity : titleIdentity,
        value: typeof title === 'string' ? title : undefined,
        completeBytes: titleBytes,
      }
    : undefined
  return { path, sessionId: header.id, dirName, identity, header, title: cached }
}

/**
 * The session directory's name in a log's path (`<root>/<project>/<session directory>/<log file>`, rc.8's JSONL
 * layout, `index/jsonl-layout.ts`), as a slice of the path (no copy); `undefined` when the path has no such part.
 */
function sessionDirOf(path: string): string | undefined {
  const end = path.lastIndexOf('/')
  const start = end < 1 ? -1 : path.lastIndexOf('/', end - 1)
  return start < 0 || end - start < 2 ? undefined : path.slice(start + 1, end)
}

/** `value`, or the equal string `kept` already holds (kept from here when there is room). */
function one(value: unknown, kept: Map<string, string> | undefined): unknown {
  if (kept === undefined || typeof value !== 'string') return value
  const first = kept.get(value)
  if (first !== undefined) return first
  if (kept.size < KEPT_STRINGS) kept.set(value, value)
  return value
}

/** A statement that can hand rows as arrays (`setReturnArrays`, Node ≥ 22.16). */
export type ArrayStatement = StatementSync & { setReturnArrays?: (on: boolean) => void }

/** Whether `statement` now hands rows as arrays (switched on where this Node can). */
export function asArrays(statement: ArrayStatement): boolean {
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
  const kept = new Map<string, string>()
  inSnapshot(sql, () => {
    for (let after = 0; ;) {
      const chunk = statement.all(root, after) as unknown[]
      for (let index = 0; index < chunk.length; index++) {
        const values = arrays ? chunk[index] as unknown[] : Object.values(chunk[index] as object)
        after = values[12] as number
        const row = rowOf(values, kept)
        if (row === undefined) continue
        visited++
        visit(row)
      }
      if (chunk.length < ALL_ROWS_CHUNK) break
    }
  })
  return visited
}

/**
 * `read()` inside one deferred read transaction: one snapshot, and no lock another process waits for (WAL).
 * @throws what `read` throws; else what the `COMMIT` throws.
 */
export function inSnapshot<T>(sql: (text: string) => StatementSync, read: () => T): T {
  sql('BEGIN').run()
  let done = false
  try {
    const value = read()
    done = true
    return value
  } finally {
    try {
      sql('COMMIT').run()
    } catch (error: unknown) {
      // After a failed read SQLite may have ended the transaction itself: the read's own error is the one to report.
      if (done) throw error
    }
  }
}
