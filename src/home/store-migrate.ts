/**
 * Bring a store written by an earlier release of this package up to this
 * release's schema in place, inside the transaction that opens it, so every
 * session's own `inbound` choice, every held message and every message
 * still pending or claimed is kept (docs/architecture.md §8, "When the store
 * fails").
 *
 * Every release so far only added tables, columns and indexes
 * (`home/store-schema.ts`): the tables this release has and the file lacks
 * are created by the schema itself (`CREATE TABLE IF NOT EXISTS`); a column
 * this release has and the file's table lacks is added with
 * `ALTER TABLE … ADD COLUMN` (a `NOT NULL` column without a default gets
 * `0` or `''`: SQLite refuses to add it otherwise, sqlite.org/lang_altertable.html).
 * The corpus tables are a cache of the session logs: when theirs differ,
 * the rows are copied into this release's table where the older rows hold
 * what it keeps in another form ({@link CACHE_REWRITES}); otherwise the
 * table is dropped and made again, and the index fills it from the logs.
 *
 * The columns this release expects are read from the schema applied to an
 * in-memory database (`PRAGMA table_info`), never from a hand-kept list.
 *
 * @module dsh-cross-session/home/store-migrate
 */

import { createHash } from 'node:crypto'
import type { DatabaseSync } from 'node:sqlite'
import { loadSqlite } from '../harness/sqlite-module.js'
import { SCHEMA, STORE_VERSION } from './store-schema.js'

/** What `meta.schema` holds: this release's schema text, hashed (a store whose version and schema match needs no write to open). */
export const SCHEMA_HASH = createHash('sha256').update(SCHEMA).digest('hex').slice(0, 16)

/**
 * Whether the store at `db` is already this release's (version and schema), read without a lock.
 * @throws what SQLite throws reading `meta` (no such table, a damaged file, a lock, an I/O error).
 */
export function readsCurrent(db: DatabaseSync): boolean {
  const rows = db.prepare('SELECT key, value FROM meta WHERE key IN (\'version\', \'schema\')')
    .all() as Array<{ key: string, value: string }>
  const meta = new Map(rows.map(row => [row.key, row.value]))
  return meta.get('version') === STORE_VERSION && meta.get('schema') === SCHEMA_HASH
}

/** {@link readsCurrent}, with any error read as no. */
export function isCurrent(db: DatabaseSync): boolean {
  try {
    return readsCurrent(db)
  } catch {
    return false
  }
}

/** One column as `PRAGMA table_info` gives it. */
interface Column {
  readonly name: string
  readonly type: string
  readonly notnull: number
  readonly dflt_value: string | null
  readonly pk: number
}

/**
 * Columns whose value on the rows of an older store cannot be known, and
 * the statement that sets the safe one when the column is added:
 * `messages.claimed` (a claim handed back before the upgrade left no trace:
 * every message still waiting counts as claimed, so none is withdrawn that
 * may be in its target's log, `home/store-withdraw.ts`).
 */
const BACKFILL: Readonly<Record<string, string>> = {
  'messages.claimed': 'UPDATE messages SET claimed = 1',
}

/** Tables that only cache what the session logs hold: rewritten ({@link CACHE_REWRITES}) or rebuilt rather than migrated. */
const CACHE_TABLES: ReadonlySet<string> = new Set(['corpus_logs', 'corpus_surfaces'])

/** A non-empty string field of the JSON text in column `header`, else `NULL` (`model/sessions.ts` `readHeader`'s check). */
const headerText = (field: string): string => `CASE WHEN json_type(header, '$.${field}') = 'text' `
  + `AND json_extract(header, '$.${field}') <> '' THEN json_extract(header, '$.${field}') END`

/**
 * Cache tables whose older rows hold what this release keeps, in another form, so an upgrade keeps them (a home of
 * 100,000 sessions is not read again): the older columns the rewrite needs, which older rows it keeps (the rest
 * cost the index a re-read of their logs), and the expression over an older row of each column of this release
 * that is not an older column of the same name.
 *
 * - `corpus_logs`, up to schema 6: the session header as JSON text (`header`); from schema 7 its fields are columns
 *   (`home/store-corpus.ts`), read with SQLite's JSON functions (sqlite.org/json1.html) under the checks
 *   `readHeader` makes (a header whose id is not the row's session id is dropped, as the index did).
 */
const CACHE_REWRITES: Readonly<Record<string, { needs: readonly string[], keep: string, columns: Readonly<Record<string, string>> }>> = {
  corpus_logs: {
    needs: ['header', 'session_id'],
    keep: 'CASE WHEN json_valid(header) THEN json_type(header, \'$.id\') = \'text\' '
      + 'AND json_extract(header, \'$.id\') = session_id ELSE 0 END',
    columns: {
      created_at: 'CASE WHEN json_type(header, \'$.createdAt\') IN (\'integer\', \'real\') '
        + 'THEN json_extract(header, \'$.createdAt\') ELSE 0 END',
      cwd: headerText('cwd'),
      parent_session: headerText('parentSession'),
      origin: headerText('origin'),
      agent_preset: headerText('agentPreset'),
    },
  },
}

/**
 * Copy the rows of cache table `table` of `db` into this release's table (schema from `target`) by its
 * {@link CACHE_REWRITES} entry, in a savepoint; a table it has none for, or that cannot be rewritten, is dropped.
 * @returns how the table was brought to this release, in words.
 */
function rewriteCache(db: DatabaseSync, target: DatabaseSync, table: string, have: ReadonlySet<string>): string {
  const name = JSON.stringify(table)
  const rewrite = CACHE_REWRITES[table]
  const wanted = columns(target, table).map(column => column.name)
  const from = (column: string): string | undefined => rewrite?.columns[column] ?? (have.has(column) ? JSON.stringify(column) : undefined)
  if (rewrite !== undefined && rewrite.needs.every(column => have.has(column)) && wanted.every(column => from(column) !== undefined)) {
    const before = JSON.stringify(`${table}_before`)
    const create = (target.prepare('SELECT sql FROM sqlite_master WHERE type = \'table\' AND name = ?').get(table) as { sql: string }).sql
    db.exec('SAVEPOINT rewrite')
    try {
      // Renamed aside (its indexes go with it, and with it when dropped: the schema makes this release's again).
      db.exec(`ALTER TABLE ${name} RENAME TO ${before}`)
      db.exec(create)
      db.exec(`INSERT INTO ${name} (${wanted.map(column => JSON.stringify(column)).join(', ')})
        SELECT ${wanted.map(column => from(column)).join(', ')} FROM ${before} WHERE ${rewrite.keep}`)
      db.exec(`DROP TABLE ${before}`)
      db.exec('RELEASE rewrite')
      return `${table}: rewritten, its rows kept`
    } catch {
      // Rows SQLite cannot rewrite (a JSON function refusing one): the cache is made again from the logs instead.
      db.exec('ROLLBACK TO rewrite')
      db.exec('RELEASE rewrite')
    }
  }
  db.exec(`DROP TABLE ${name}`)
  return `${table} rebuilt (a cache of the logs)`
}

function tables(db: DatabaseSync): string[] {
  return (db.prepare('SELECT name FROM sqlite_master WHERE type = \'table\' AND name NOT LIKE \'sqlite_%\'')
    .all() as Array<{ name: string }>).map(row => row.name)
}

function columns(db: DatabaseSync, table: string): Column[] {
  return db.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as unknown as Column[]
}

/** The `ADD COLUMN` definition of one column of this release. */
function columnDefinition(column: Column): string {
  const fallback = column.dflt_value ?? (column.notnull === 1 ? (column.type === 'TEXT' ? '\'\'' : '0') : null)
  const notNull = column.notnull === 1 ? ' NOT NULL' : ''
  return `${JSON.stringify(column.name)} ${column.type}${notNull}${fallback === null ? '' : ` DEFAULT ${fallback}`}`
}

/**
 * Add to `db` (an open transaction on an older store) what this release's
 * schema has and it lacks; the caller then runs the schema and writes the
 * new version.
 * @returns the changes made, in words (for the log).
 */
export function migrateInPlace(db: DatabaseSync): string[] {
  const target = new (loadSqlite().DatabaseSync)(':memory:')
  const done: string[] = []
  try {
    target.exec(SCHEMA)
    const present = new Set(tables(db))
    for (const table of tables(target)) {
      if (!present.has(table)) continue
      const have = new Set(columns(db, table).map(column => column.name))
      const missing = columns(target, table).filter(column => !have.has(column.name))
      if (missing.length === 0) continue
      if (CACHE_TABLES.has(table)) {
        done.push(rewriteCache(db, target, table, have))
        continue
      }
      for (const column of missing) {
        // A key column cannot be added; no release so far added one.
        if (column.pk > 0) throw new Error(`cannot add key column ${table}.${column.name}`)
        db.exec(`ALTER TABLE ${JSON.stringify(table)} ADD COLUMN ${columnDefinition(column)}`)
        const backfill = BACKFILL[`${table}.${column.name}`]
        if (backfill !== undefined) db.exec(backfill)
      }
      done.push(`${table}: added ${missing.map(column => column.name).join(', ')}`)
    }
    return done
  } finally {
    target.close()
  }
}
