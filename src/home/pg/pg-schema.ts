/**
 * The tables of the PostgreSQL store (docs/architecture.md §8 "Several
 * machines"), in a PostgreSQL schema of their own (`cross_session` unless
 * told otherwise), so the store shares a database with anything else.
 *
 * - `meta`: the schema version;
 * - `machines`: one row per `DSH_HOME` that joined the store — its stable
 *   id, its name, and when it was last seen (database clock);
 * - `processes`: one row per process of this package on any machine, with
 *   its lease (`home/pg/lease.ts`);
 * - `holders`: one row per session ever held, as the SQLite store's
 *   `holders` (`home/store-schema.ts`) plus the machine of the holder and
 *   of the one that last let go;
 * - `messages`: as the SQLite store's (`n` the posting order), with the
 *   claimer's machine;
 * - `watches`, `inbound`, `approvals`, `traffic`: as the SQLite store's;
 * - `directory`: the sessions each machine publishes for the others to list
 *   (`home/pg/pg-directory.ts`);
 * - `reads`: a read of a session asked of its machine, and its answer
 *   (`home/pg/pg-reads.ts`).
 *
 * Created in one transaction under an advisory lock, so several processes
 * starting at once never race on `CREATE TABLE`.
 *
 * @module dsh-cross-session/home/pg/pg-schema
 */

import type { Pool } from 'pg'
import { storeFault } from '../store-fault.js'
import { inTransaction } from './pg-tx.js'

/** Schema version kept in `meta`; a store of a newer release is left alone (a store fault). */
export const PG_STORE_VERSION = '1'

/**
 * A PostgreSQL schema name this package accepts: lower-case letters, digits and `_`, at most 55 (an unquoted
 * identifier, with room for the `_changed` of its notify channel in PostgreSQL's 63).
 */
export function isSchemaName(name: string): boolean {
  return /^[a-z_][a-z0-9_]{0,54}$/.test(name)
}

/** The `LISTEN`/`NOTIFY` channel on which every transition that changed a row of schema `schema` says so. */
export function changeChannel(schema: string): string {
  return `${schema}_changed`
}

/** The tables, idempotent, in schema `schema` (a name {@link isSchemaName} accepted). */
export function pgSchema(schema: string): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${schema};
CREATE TABLE IF NOT EXISTS ${schema}.meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS ${schema}.machines (
  id text PRIMARY KEY, name text NOT NULL, seen_at timestamptz NOT NULL, inbound text);
CREATE TABLE IF NOT EXISTS ${schema}.processes (
  machine text NOT NULL REFERENCES ${schema}.machines (id),
  pid integer NOT NULL, start bigint NOT NULL,
  long_lived boolean NOT NULL, joined_at timestamptz NOT NULL, lease_until timestamptz NOT NULL, boot text NOT NULL,
  PRIMARY KEY (machine, pid, start));
CREATE TABLE IF NOT EXISTS ${schema}.holders (
  session_id text PRIMARY KEY,
  machine text, pid integer, start bigint,
  state text NOT NULL CHECK (state IN ('waking', 'live', 'free')),
  woke boolean NOT NULL DEFAULT false,
  since timestamptz NOT NULL,
  let_go text, let_go_machine text, let_go_pid integer, let_go_at bigint);
CREATE INDEX IF NOT EXISTS holders_by_process ON ${schema}.holders (machine, pid, start);
CREATE TABLE IF NOT EXISTS ${schema}.messages (
  n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id text NOT NULL UNIQUE,
  target text NOT NULL, sender text NOT NULL, hop integer NOT NULL,
  mode text NOT NULL CHECK (mode IN ('queue', 'steer')),
  text text NOT NULL, may_wake boolean NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'claimed', 'recorded', 'refused')),
  claimer_machine text, claimer_pid integer, claimer_start bigint,
  seq integer, running boolean, reason text,
  answered_seq integer, reoffered boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL, updated_at bigint NOT NULL,
  notice text, expires_at bigint, claimed boolean NOT NULL DEFAULT false,
  for_machine text NOT NULL);
CREATE INDEX IF NOT EXISTS messages_by_target ON ${schema}.messages (target, state, n);
CREATE INDEX IF NOT EXISTS messages_waiting ON ${schema}.messages (target) WHERE state IN ('pending', 'claimed');
CREATE INDEX IF NOT EXISTS messages_by_claimer ON ${schema}.messages (claimer_machine, claimer_pid, claimer_start) WHERE state = 'claimed';
CREATE INDEX IF NOT EXISTS messages_done ON ${schema}.messages (updated_at) WHERE state IN ('recorded', 'refused');
CREATE INDEX IF NOT EXISTS messages_notices ON ${schema}.messages (sender, target, created_at) WHERE notice IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${schema}.watches (
  message_id text PRIMARY KEY,
  sender text NOT NULL, target text NOT NULL, hop integer NOT NULL,
  may_wake boolean NOT NULL, max_hops integer NOT NULL, per_minute integer NOT NULL,
  state text NOT NULL CHECK (state IN ('watching', 'noticed', 'dropped')),
  reason text, notice_id text, turn_end_seq integer, outcome text,
  created_at bigint NOT NULL, expires_at bigint NOT NULL, updated_at bigint NOT NULL,
  machine text NOT NULL);
CREATE INDEX IF NOT EXISTS watches_watching ON ${schema}.watches (target, created_at) WHERE state = 'watching';
CREATE TABLE IF NOT EXISTS ${schema}.inbound (
  session_id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('accept', 'hold', 'refuse')),
  updated_at bigint NOT NULL);
CREATE TABLE IF NOT EXISTS ${schema}.approvals (
  n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id text NOT NULL UNIQUE,
  target text NOT NULL, sender text NOT NULL, sender_title text NOT NULL, hop integer NOT NULL,
  mode text NOT NULL CHECK (mode IN ('queue', 'steer')),
  text text NOT NULL, body text NOT NULL, may_wake boolean NOT NULL, notify boolean NOT NULL,
  state text NOT NULL CHECK (state IN ('held', 'delivered', 'refused', 'expired')),
  created_at bigint NOT NULL, expires_at bigint NOT NULL, decided_at bigint, reason text);
CREATE INDEX IF NOT EXISTS approvals_held ON ${schema}.approvals (target, n) WHERE state = 'held';
CREATE TABLE IF NOT EXISTS ${schema}.traffic (
  n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id text NOT NULL UNIQUE,
  target text NOT NULL, sender text NOT NULL, hop integer NOT NULL,
  mode text NOT NULL CHECK (mode IN ('queue', 'steer')),
  state text NOT NULL CHECK (state IN ('pending', 'recorded', 'refused')),
  seq integer, answered_seq integer, reason text,
  created_at bigint NOT NULL, updated_at bigint NOT NULL);
CREATE INDEX IF NOT EXISTS traffic_by_target ON ${schema}.traffic (target, state);
CREATE TABLE IF NOT EXISTS ${schema}.directory (
  machine text NOT NULL REFERENCES ${schema}.machines (id),
  session_id text NOT NULL,
  created_at bigint NOT NULL, cwd text, parent_session text, origin text, agent_preset text, title text,
  live boolean NOT NULL, updated_at bigint NOT NULL,
  PRIMARY KEY (machine, session_id));
CREATE TABLE IF NOT EXISTS ${schema}.reads (
  id text PRIMARY KEY,
  machine text NOT NULL, session_id text NOT NULL, request text NOT NULL,
  asker text NOT NULL,
  state text NOT NULL CHECK (state IN ('asked', 'taken', 'answered', 'abandoned')),
  taker text, answer text,
  created_at bigint NOT NULL, updated_at bigint NOT NULL);
CREATE INDEX IF NOT EXISTS reads_asked ON ${schema}.reads (machine, created_at) WHERE state = 'asked';`
}

/**
 * Create the tables when missing and check the version. @throws a store
 * fault when the schema is of a newer release, or the server cannot be used.
 */
export async function preparePgStore(pool: Pool, schema: string): Promise<void> {
  if (!isSchemaName(schema)) throw new Error(`not a schema name: ${schema}`)
  await inTransaction(pool, async query => {
    // One key per schema name: processes preparing other schemas do not wait on each other.
    await query('SELECT pg_advisory_xact_lock(hashtext($1))', [`dsh-cross-session:${schema}`])
    await query(pgSchema(schema))
    const rows = await query<{ value: string }>(`SELECT value FROM ${schema}.meta WHERE key = 'version'`)
    const version = rows[0]?.value
    if (version === undefined) {
      await query(`INSERT INTO ${schema}.meta (key, value) VALUES ('version', $1)`, [PG_STORE_VERSION])
    } else if (version !== PG_STORE_VERSION) {
      throw storeFault(`the PostgreSQL store's schema ${schema} is at version ${version}; this release reads ${PG_STORE_VERSION}`,
        'the PostgreSQL store is of another release')
    }
  })
}
