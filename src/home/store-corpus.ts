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
 * Writes are `BEGIN IMMEDIATE` transactions of at most `WRITE_BATCH` (`index/write-turns.ts`)
 * rows (a process killed mid-write leaves each row as it was or as written);
 * reads take no lock (WAL).
 *
 * @module dsh-cross-session/home/store-corpus
 */

import type { StatementSync } from 'node:sqlite'
import type { CorpusChanges, CorpusRow, CorpusRows } from '../index/shared-rows.js'
import { COLUMNS, eachRow, readRows } from './corpus-row-read.js'
import { scanRows } from './corpus-row-scan.js'
import { WRITE_BATCH } from '../index/write-turns.js'

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

/** The columns a row is written to (a row is read from {@link COLUMNS}, `dir_name` left out). */
const WRITE_COLUMNS = 'path, session_id, dir_name, identity, created_at, cwd, parent_session, origin, agent_preset, '
  + 'title_revision, title_identity, title, title_bytes'

/** The statements and transaction of the store connection this runs on. */
interface Connection {
  sql(text: string): StatementSync
  tx<T>(work: () => T): T
}

/** {@link CorpusRows} over one store connection. */
export function storeCorpusRows(connection: Connection): CorpusRows {
  const { sql, tx } = connection
  const read = (text: string, ...params: string[]): CorpusRow[] => readRows(sql, text, ...params)
  return {
    all(root) {
      const out: CorpusRow[] = []
      eachRow(sql, root, row => out.push(row))
      return out
    },
    each(root, visit) {
      return eachRow(sql, root, visit)
    },
    scan(root, filter, visit, pick) {
      return scanRows(sql, root, filter, visit, pick)
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
        sql(`INSERT INTO corpus_logs (root, ${WRITE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
      for (let at = 0; at < steps.length; at += WRITE_BATCH) {
        tx(() => {
          for (const step of steps.slice(at, at + WRITE_BATCH)) step()
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
