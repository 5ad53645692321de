/**
 * The tables of the home store (docs/architecture.md §8); how a row maps
 * to the port's shapes is `home/store-rows.ts`. One database per `DSH_HOME`:
 * `$DSH_HOME/cross-session/store.sqlite`.
 *
 * - `processes`: one row per process of this package on the home (pid +
 *   start time), and whether it is a long-lived host.
 * - `holders`: one row per session ever held, so "at most one holder" is a
 *   primary key; `pid`/`start` are null when nobody holds it, and `let_go*`
 *   say how the last holder let it go.
 * - `messages`: one row per message addressed to a session held elsewhere
 *   (or handed to another process to wake); `n` is the posting order. A
 *   notice (`notice` set: how the watched turn ended) is a message too, from
 *   the watched target to the sender, with an `expires_at`.
 * - `watches`: one row per message whose sender asked for a notice
 *   (`sessions_send` `notify`): `watching` until the target's turn that took
 *   it ends, then `noticed` (the notice posted in the same transaction) or
 *   `dropped` with why (docs/architecture.md §8, "Notices").
 * - `corpus_logs`, `corpus_surfaces`: the corpus index shared by every process (`home/store-corpus.ts`): a log's
 *   header at a file identity, its title and (large logs only) its folded surface at a log revision.
 * - `inbound`: a session's own choice of what peer messages do (`accept`,
 *   `hold`, `refuse`), set by its user; no row follows the `inbound` setting.
 * - `approvals`: one row per message held for its target's user (`held`,
 *   then `delivered` into `messages` in one transaction, `refused`, `expired`).
 * - `traffic`: one row per message a process delivered to a session live
 *   in itself, or refused for its inbound choice (docs/architecture.md §8).
 *
 * @module dsh-cross-session/home/store-schema
 */

import { CORPUS_SURFACES_SCHEMA } from './store-corpus.js'

/** Schema version kept in `meta`; an older store is migrated in place (`home/store-migrate.ts`), a newer one left alone. */
export const STORE_VERSION = '7'

/** The schema, idempotent. */
export const SCHEMA = `
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
  notice TEXT, expires_at INTEGER, claimed INTEGER NOT NULL DEFAULT 0) STRICT;
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
  identity TEXT NOT NULL, created_at REAL NOT NULL,
  cwd TEXT, parent_session TEXT, origin TEXT, agent_preset TEXT,
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
  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, decided_at INTEGER, reason TEXT) STRICT;
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
${CORPUS_SURFACES_SCHEMA}`
