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

let databases = 0

/** A database of one test's own on the test server (the store's fixed schema in it), and an admin pool on it. */
export interface TestDatabase {
  /** The server's URL with this database's name. */
  readonly url: string
  readonly admin: pg.Pool
  /** End the pool and drop the database (every connection to it ended first). */
  drop(): Promise<void>
}

/** A fresh database on the server at `url` (`<prefix>_<pid>_<n>`); the caller registers {@link TestDatabase.drop}. */
export async function testDatabase(url: string, prefix: string): Promise<TestDatabase> {
  const name = `${prefix}_${process.pid}_${++databases}`
  const server = new pg.Client({ connectionString: url })
  await server.connect()
  await server.query(`CREATE DATABASE ${name}`)
  await server.end()
  const at = new URL(url)
  at.pathname = `/${name}`
  const admin = new pg.Pool({ connectionString: at.href, max: 1 })
  return {
    url: at.href,
    admin,
    drop: async () => {
      await admin.end()
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    },
  }
}
