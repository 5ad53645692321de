/**
 * The home store as the previous release of this package wrote it, for the
 * e2e proof that this release opens it and keeps what it holds
 * (docs/architecture.md §8, "When the store fails": an earlier schema is
 * migrated in place, never moved aside).
 *
 * The previous release is commit 3d73f13 of this repository (package
 * 0.1.0, before the store failed closed): {@link PREVIOUS_SCHEMA} is its
 * `src/home/store-schema.ts` `SCHEMA` with its `src/home/store-corpus.ts`
 * `CORPUS_SURFACES_SCHEMA`, copied verbatim (`git show 3d73f13:<file>`), and
 * {@link PREVIOUS_VERSION} its `STORE_VERSION`. It wrote the version into
 * `meta` as `('version', '5')` when it made a store.
 *
 * {@link OLDER_SCHEMA} is the release before it that already kept inbound
 * choices and held messages: commit b8749b0, schema 4, the same tables
 * without `corpus_surfaces` (added with schema 5 by 8a67f6d); this release
 * migrates such a store in place.
 *
 * Copies, on purpose: the proof is that a file made by the old code is read
 * by the new code, so the old schema must not follow the new one.
 * @module test/e2e/support/previous-store
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import type { DshHome } from './harness.ts'
import { storeFile } from './store.ts'

/** `STORE_VERSION` of the previous release (3d73f13 src/home/store-schema.ts). */
export const PREVIOUS_VERSION = '5'

/** The previous release's schema (3d73f13 src/home/store-schema.ts `SCHEMA`, src/home/store-corpus.ts `CORPUS_SURFACES_SCHEMA`). */
export const PREVIOUS_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS processes (
  pid INTEGER NOT NULL, start INTEGER NOT NULL,
  long_lived INTEGER NOT NULL, joined_at INTEGER NOT NULL,
  PRIMARY KEY (pid, start)) STRICT;
CREATE TABLE IF NOT EXISTS holders (
  session_id TEXT PRIMARY KEY,
  pid INTEGER, start INTEGER,
  state TEXT NOT NULL CHECK (state IN ('waking', 'live', 'free')),
  woke INTEGER NOT NULL DEFAULT 0,
  since INTEGER NOT NULL,
  let_go TEXT, let_go_pid INTEGER, let_go_at INTEGER) STRICT;
CREATE TABLE IF NOT EXISTS messages (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id TEXT NOT NULL UNIQUE,
  target TEXT NOT NULL, sender TEXT NOT NULL, hop INTEGER NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('queue', 'steer')),
  text TEXT NOT NULL, may_wake INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'claimed', 'recorded', 'refused')),
  claimer_pid INTEGER, claimer_start INTEGER,
  seq INTEGER, running INTEGER, reason TEXT,
  answered_seq INTEGER, reoffered INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  notice TEXT, expires_at INTEGER) STRICT;
CREATE TABLE IF NOT EXISTS watches (
  message_id TEXT PRIMARY KEY,
  sender TEXT NOT NULL, target TEXT NOT NULL, hop INTEGER NOT NULL,
  may_wake INTEGER NOT NULL, max_hops INTEGER NOT NULL, per_minute INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('watching', 'noticed', 'dropped')),
  reason TEXT, notice_id TEXT, turn_end_seq INTEGER, outcome TEXT,
  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, updated_at INTEGER NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS watches_watching ON watches (target, created_at) WHERE state = 'watching';
CREATE INDEX IF NOT EXISTS messages_notices ON messages (sender, target, created_at) WHERE notice IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_by_target ON messages (target, state, n);
CREATE INDEX IF NOT EXISTS messages_waiting ON messages (target) WHERE state IN ('pending', 'claimed');
CREATE INDEX IF NOT EXISTS messages_by_claimer ON messages (claimer_pid, claimer_start) WHERE state = 'claimed';
CREATE INDEX IF NOT EXISTS messages_done ON messages (updated_at) WHERE state IN ('recorded', 'refused');
CREATE INDEX IF NOT EXISTS holders_by_pid ON holders (pid, start);
CREATE TABLE IF NOT EXISTS corpus_logs (
  path TEXT PRIMARY KEY,
  root TEXT NOT NULL, session_id TEXT NOT NULL, dir_name TEXT NOT NULL,
  identity TEXT NOT NULL, header TEXT NOT NULL,
  title_revision TEXT, title_identity TEXT, title TEXT, title_bytes INTEGER) STRICT;
CREATE INDEX IF NOT EXISTS corpus_logs_by_root ON corpus_logs (root);
CREATE INDEX IF NOT EXISTS corpus_logs_by_session ON corpus_logs (session_id);
CREATE TABLE IF NOT EXISTS inbound (
  session_id TEXT PRIMARY KEY,
  mode TEXT NOT NULL CHECK (mode IN ('accept', 'hold', 'refuse')),
  updated_at INTEGER NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS approvals (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id TEXT NOT NULL UNIQUE,
  target TEXT NOT NULL, sender TEXT NOT NULL, sender_title TEXT NOT NULL, hop INTEGER NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('queue', 'steer')),
  text TEXT NOT NULL, body TEXT NOT NULL, may_wake INTEGER NOT NULL, notify INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('held', 'delivered', 'refused', 'expired')),
  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, decided_at INTEGER) STRICT;
CREATE INDEX IF NOT EXISTS approvals_held ON approvals (target, n) WHERE state = 'held';
CREATE TABLE IF NOT EXISTS traffic (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id TEXT NOT NULL UNIQUE,
  target TEXT NOT NULL, sender TEXT NOT NULL, hop INTEGER NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('queue', 'steer')),
  state TEXT NOT NULL CHECK (state IN ('pending', 'recorded', 'refused')),
  seq INTEGER, answered_seq INTEGER, reason TEXT,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS traffic_by_target ON traffic (target, state);
CREATE TABLE IF NOT EXISTS corpus_surfaces (
  path TEXT PRIMARY KEY, root TEXT NOT NULL, session_id TEXT NOT NULL,
  identity TEXT NOT NULL, revision TEXT NOT NULL, surface BLOB NOT NULL, written INTEGER NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS corpus_surfaces_by_root ON corpus_surfaces (root, written);
`

/** `STORE_VERSION` of the release before (b8749b0 src/home/store-schema.ts). */
export const OLDER_VERSION = '4'

/** Schema 4 (b8749b0 src/home/store-schema.ts `SCHEMA`): schema 5 without `corpus_surfaces`. */
export const OLDER_SCHEMA = PREVIOUS_SCHEMA.slice(0, PREVIOUS_SCHEMA.indexOf('CREATE TABLE IF NOT EXISTS corpus_surfaces'))

/** A `sqlite` value a row may hold. */
type Value = string | number | null

/**
 * Replace the store of `h` (no `dsh` process may be running on it) with one
 * made by an earlier release's schema (default: the previous release's),
 * holding `rows` (table → rows, each a column → value record). The file is
 * 0600 in a 0700 directory, WAL, as those releases opened it.
 */
export function writePreviousStore(h: DshHome, rows: Record<string, Array<Record<string, Value>>>, release: { schema: string, version: string } = { schema: PREVIOUS_SCHEMA, version: PREVIOUS_VERSION }): void {
  const file = storeFile(h)
  mkdirSync(join(h.home, 'cross-session'), { recursive: true, mode: 0o700 })
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true })
  writeFileSync(file, '', { mode: 0o600 })
  const db = new DatabaseSync(file)
  try {
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('BEGIN IMMEDIATE')
    db.exec(release.schema)
    db.prepare('INSERT INTO meta (key, value) VALUES (\'version\', ?)').run(release.version)
    for (const [table, list] of Object.entries(rows)) {
      for (const row of list) {
        const columns = Object.keys(row)
        db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(...columns.map(column => row[column] ?? null))
      }
    }
    db.exec('COMMIT')
  } finally {
    db.close()
  }
}
