/**
 * node-postgres (`pg`), loaded only when the `store` setting names a
 * PostgreSQL server (docs/architecture.md §8 "Several machines"): it is an
 * optional peer dependency, so a one-machine install never needs it.
 *
 * @module dsh-cross-session/home/pg/pg-module
 */

import type Pg from 'pg'

/** The loaded module, or why it could not be loaded (one line, for a refusal or the log). */
export type PgModule = { readonly ok: true, readonly pg: typeof Pg } | { readonly ok: false, readonly why: string }

let loaded: Promise<PgModule> | undefined

/**
 * Load `pg` once per process. Never throws: a missing or broken module is a
 * reason, `the PostgreSQL store needs the pg package (npm install pg@8): …`.
 */
export async function loadPg(): Promise<PgModule> {
  loaded ??= import('pg').then(
    (module): PgModule => ({ ok: true, pg: module.default }),
    (error: unknown): PgModule => ({ ok: false, why: `the PostgreSQL store needs the pg package (npm install pg@8): ${firstLine(error)}` }),
  )
  return await loaded
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''
}
