/**
 * The PostgreSQL server a unit test file runs against (`test/support/pg-global.ts`):
 * its URL, or — where none could be started — a skip with one line saying
 * why, except under CI (`CI=true`), where a missing server fails the file:
 * a run that never reached PostgreSQL must not pass as if it had; and a
 * schema of a test's own on it.
 *
 * @module test/support/pg-target
 */
import pg from 'pg'
import { inject } from 'vitest'
import { preparePgStore } from '../../src/home/pg/pg-schema.js'

/** Whether this run is a CI run (`CI` set to anything but empty, `0` or `false`). */
function isCi(): boolean {
  const value = process.env.CI?.trim().toLowerCase()
  return value !== undefined && value !== '' && value !== '0' && value !== 'false'
}

/** The server's URL, or `undefined` (with the reason printed once) when the PostgreSQL tests skip. Throws under CI. */
export function pgUrl(): string | undefined {
  const url = inject('pgUrl')
  if (url !== '') return url
  const why = inject('pgMissing')
  if (isCi()) throw new Error(`CI=${process.env.CI}: the PostgreSQL store tests cannot run: ${why}`)
  console.log(`skipping the PostgreSQL store tests: ${why}`)
  return undefined
}

let schemas = 0

/** A schema of one test's own on the test server, and an admin pool on it. */
export interface TestSchema {
  readonly schema: string
  readonly admin: pg.Pool
  /** Drop the schema and end the pool. */
  drop(): Promise<void>
}

/**
 * A fresh schema on the server at `url` (`<prefix>_<pid>_<n>`: files running at once never share one), with the
 * store's tables when `prepared` (`home/pg/pg-schema.ts`). The caller registers {@link TestSchema.drop} as a clean-up.
 */
export async function testSchema(url: string, prefix: string, prepared = true): Promise<TestSchema> {
  const schema = `${prefix}_${process.pid}_${++schemas}`
  const admin = new pg.Pool({ connectionString: url, max: 1 })
  if (prepared) await preparePgStore(admin, schema)
  return {
    schema,
    admin,
    drop: async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await admin.end()
    },
  }
}
