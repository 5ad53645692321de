/**
 * The corpus index's shared rows in the home store (table `corpus_logs`,
 * docs/architecture.md §8): one row per session log of a JSONL root, keyed
 * by the log's path, with the session id, the file identity its header was
 * read at and the log revision its title was folded at
 * (`index/shared-rows.ts` says why a row is a cache entry, never a fact).
 *
 * Table `corpus_surfaces` keeps the folded surface of a few large logs, each
 * at one log revision (`index/surface-cache.ts` says when it is used); a
 * log gone from the root takes its surface with it.
 *
 * Writes are `BEGIN IMMEDIATE` transactions of at most {@link CORPUS_BATCH_ROWS}
 * rows (a process killed mid-write leaves each row as it was or as written);
 * reads take no lock (WAL).
 *
 * @module dsh-cross-session/home/store-corpus
 */

import type { StatementSync } from 'node:sqlite'
import type { CorpusChanges, CorpusRow, CorpusRows } from '../index/shared-rows.js'
import { headerOf } from '../model/sessions.js'

/** Table `corpus_surfaces` (part of the store's schema, `home/store-schema.ts`). */
export const CORPUS_SURFACES_SCHEMA = `CREATE TABLE IF NOT EXISTS corpus_surfaces (
  path TEXT PRIMARY KEY, root TEXT NOT NULL, session_id TEXT NOT NULL,
  identity TEXT NOT NULL, revision TEXT NOT NULL, surface BLOB NOT NULL, written INTEGER NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS corpus_surfaces_by_root ON corpus_surfaces (root, written);
`

/** A `corpus_surfaces` row as read. */
interface SurfaceRow {
  readonly path: string
  readonly session_id: string
  readonly identity: string
  readonly revision: string
  readonly surface: unknown
}

/**
 * The columns a row is read from, in this order: the header's fields are columns of their own (read as they are,
 * no JSON to parse: a new process reads every row of its root).
 */
const COLUMNS = 'path, session_id, dir_name, identity, created_at, cwd, parent_session, origin, agent_preset, '
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

/** Rows written per transaction: about 25 ms of write lock each (a 100,000-row write held it 2.65 s in one). */
export const CORPUS_BATCH_ROWS = 1000

/** The statements and transaction of the store connection this runs on. */
interface Connection {
  sql(text: string): StatementSync
  tx<T>(work: () => T): T
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
function eachRow(sql: (text: string) => StatementSync, root: string, visit: (row: CorpusRow) => void): number {
  const statement = sql(`SELECT ${COLUMNS}, rowid FROM corpus_logs WHERE root = ? AND rowid > ? ORDER BY rowid LIMIT ${ALL_ROWS_CHUNK}`)
  const arrays = typeof (statement as { setReturnArrays?: unknown }).setReturnArrays === 'function'
  if (arrays) (statement as StatementSync & { setReturnArrays: (on: boolean) => void }).setReturnArrays(true)
  let visited = 0
  // A deferred transaction reads one snapshot and takes no lock another process waits for (WAL).
  sql('BEGIN').run()
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
      if (chunk.length < ALL_ROWS_CHUNK) return visited
    }
  } finally {
    sql('COMMIT').run()
  }
}

/** {@link CorpusRows} over one store connection. */
export function storeCorpusRows(connection: Connection): CorpusRows {
  const { sql, tx } = connection
  // Every statement reads rows as arrays where this Node can (`setReturnArrays`, Node ≥ 22.16; measured 1.5–2.5
  // times faster than one object per row at 100,000 rows); each statement text is its own, so the array mode
  // never leaks to another query.
  const read = (text: string, ...params: string[]): CorpusRow[] => {
    const statement = sql(`${text} -- as arrays`) as StatementSync & { setReturnArrays?: (on: boolean) => void }
    const arrays = typeof statement.setReturnArrays === 'function'
    if (arrays) statement.setReturnArrays!(true)
    const out: CorpusRow[] = []
    for (const raw of statement.all(...params)) {
      const row = rowOf(arrays ? raw as unknown as unknown[] : Object.values(raw as object))
      if (row !== undefined) out.push(row)
    }
    return out
  }
  return {
    all(root) {
      const out: CorpusRow[] = []
      eachRow(sql, root, row => out.push(row))
      return out
    },
    each(root, visit) {
      return eachRow(sql, root, visit)
    },
    bySession(root, sessionId) {
      return read(`SELECT ${COLUMNS} FROM corpus_logs WHERE session_id = ? AND root = ?`, sessionId, root)[0]
    },
    byPath(path) {
      return read(`SELECT ${COLUMNS} FROM corpus_logs WHERE path = ?`, path)[0]
    },
    write(root, changes) {
      const remove = (path: string): void => {
        sql('DELETE FROM corpus_logs WHERE path = ?').run(path)
        sql('DELETE FROM corpus_surfaces WHERE path = ?').run(path)
      }
      const insert = (row: CorpusRow): void => {
        const { header, title } = row
        sql(`INSERT INTO corpus_logs (root, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (path) DO UPDATE SET root = excluded.root, session_id = excluded.session_id, dir_name = excluded.dir_name,
            identity = excluded.identity, created_at = excluded.created_at, cwd = excluded.cwd,
            parent_session = excluded.parent_session, origin = excluded.origin, agent_preset = excluded.agent_preset,
            title_revision = excluded.title_revision, title_identity = excluded.title_identity, title = excluded.title,
            title_bytes = excluded.title_bytes`)
          .run(root, row.path, row.sessionId, row.dirName, row.identity, header.createdAt, header.cwd ?? null,
            header.parentSession ?? null, header.origin ?? null, header.agentPreset ?? null,
            title?.revision ?? null, title?.identity ?? null, title?.value ?? null, title?.completeBytes ?? null)
      }
      // A title is kept only on the row of the file it was folded from.
      const retitle = ({ path, title }: CorpusChanges['titles'][number]): void => {
        sql('UPDATE corpus_logs SET title_revision = ?, title_identity = ?, title = ?, title_bytes = ? WHERE path = ? AND identity = ?')
          .run(title.revision, title.identity, title.value ?? null, title.completeBytes, path, title.identity)
      }
      const steps = [...changes.removed.map(path => () => remove(path)), ...changes.headers.map(row => () => insert(row)),
        ...changes.titles.map(each => () => retitle(each))]
      // Small transactions: other processes wait for the write lock at most one batch (docs/architecture.md §8, "The store").
      for (let at = 0; at < steps.length; at += CORPUS_BATCH_ROWS) {
        tx(() => {
          for (const step of steps.slice(at, at + CORPUS_BATCH_ROWS)) step()
        })
      }
    },
    surface(path) {
      const raw = sql('SELECT path, session_id, identity, revision, surface FROM corpus_surfaces WHERE path = ?')
        .get(path) as SurfaceRow | undefined
      return raw === undefined || !(raw.surface instanceof Uint8Array)
        ? undefined
        : { path: raw.path, sessionId: raw.session_id, identity: raw.identity, revision: raw.revision, surface: raw.surface }
    },
    keepSurface(root, surface, keep) {
      tx(() => {
        // `written` orders the rows of a root; it only has to grow within one store.
        const { next } = sql('SELECT COALESCE(MAX(written), 0) + 1 AS next FROM corpus_surfaces').get() as { next: number }
        sql(`INSERT INTO corpus_surfaces (path, root, session_id, identity, revision, surface, written) VALUES (?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (path) DO UPDATE SET root = excluded.root, session_id = excluded.session_id, identity = excluded.identity,
            revision = excluded.revision, surface = excluded.surface, written = excluded.written`)
          .run(surface.path, root, surface.sessionId, surface.identity, surface.revision, surface.surface, next)
        sql('DELETE FROM corpus_surfaces WHERE root = ? AND written <= (SELECT written FROM corpus_surfaces WHERE root = ? '
          + 'ORDER BY written DESC LIMIT 1 OFFSET ?)')
          .run(root, root, keep)
      })
    },
  }
}
