/**
 * The pure parts of the PostgreSQL store: the `store` setting's value
 * (`src/settings/store-url.ts`, never showing a password), which `pg@8` errors
 * are faults of the server (`home/pg/pg-fault.ts`), and whose liveness
 * counts (`home/pg/lease.ts`).
 *
 * @module test/unit/pg-pure
 */
import { describe, expect, it } from 'vitest'
import { storeFaultWhy } from '../../src/testing.js'
import { isAlive, sameProcess } from '../../src/home/pg/lease.js'
import { asStoreError, isRetryable, pgFaultWhy } from '../../src/home/pg/pg-fault.js'
import { MAX_STORE_CHARS, shownStore, storePlace } from '../../src/settings/store-url.js'
import { isSchemaName } from '../../src/home/pg/pg-schema.js'

describe('the store setting', () => {
  it('empty or sqlite is the SQLite file of this DSH_HOME', () => {
    expect(storePlace('')).toEqual({ kind: 'sqlite' })
    expect(storePlace('  sqlite ')).toEqual({ kind: 'sqlite' })
  })

  it('a postgres URL is kept whole for the driver and shown without its password', () => {
    expect(storePlace('postgres://ann:s3cret@db.example:5432/dsh?sslmode=require')).toEqual({
      kind: 'postgres',
      url: 'postgres://ann:s3cret@db.example:5432/dsh?sslmode=require',
      shown: 'postgres://ann:***@db.example:5432/dsh?sslmode=require',
    })
    expect(storePlace('postgresql://db.example/dsh?password=s3cret')).toMatchObject({ shown: 'postgresql://db.example/dsh?password=***' })
    expect(storePlace('postgres://ann@db.example/dsh')).toMatchObject({ shown: 'postgres://ann@db.example/dsh' })
  })

  it('anything else is refused with a sentence that never holds the password', () => {
    const other = storePlace('mysql://ann:s3cret@db/dsh')
    expect(other).toEqual({ error: 'store must be sqlite or a postgres:// URL; mysql: is another scheme' })
    const garbled = storePlace('ann:s3cret@db')
    expect(garbled).toHaveProperty('error')
    expect(JSON.stringify(garbled)).not.toContain('s3cret')
    expect(JSON.stringify(storePlace('post gres://ann:s3cret@db'))).not.toContain('s3cret')
    // Credentials that break the URL's own syntax (a `/`, a second `:` or `@` in the password): nothing of them shown.
    for (const text of ['postgres://app:s3/cr3t@db/x', 'postgres://app:s3:cr3t@db:port/x', 'postgres://app:s3@cr3t@db:port/x']) {
      const shown = JSON.stringify(storePlace(text))
      expect(shown).not.toMatch(/s3|cr3t/)
    }
    // A `password` parameter of a text that is not a URL (here a port out of range), however its name is spelt.
    for (const text of ['postgres://db:99999999/x?password=s3cret', 'postgres://u@db:99999999/x?sslmode=require&pass%77ord=s3cret']) {
      const refused = storePlace(text)
      expect(refused).toHaveProperty('error')
      expect(JSON.stringify(refused)).not.toContain('s3cret')
      expect(shownStore(text)).not.toContain('s3cret')
    }
  })

  it('refuses an overlong value and a control character (the URL parser would drop a line break the driver then reads)', () => {
    const long = `postgres://db/${'x'.repeat(MAX_STORE_CHARS)}`
    expect(storePlace(long)).toEqual({ error: `store must be at most 2000 characters; this one has ${MAX_STORE_CHARS + 14}` })
    expect(storePlace(`postgres://db/${'x'.repeat(MAX_STORE_CHARS - 14)}`)).toMatchObject({ kind: 'postgres' })
    expect(storePlace('postgres://d\nb/x')).toEqual({ error: 'store must be sqlite or a postgres:// URL on one line; this one holds a control character' })
  })

  it('shows any value without its password: a URL masked, sqlite and empty as they are, garbage masked', () => {
    expect(shownStore(' postgres://ann:s3cret@db/x ')).toBe('postgres://ann:***@db/x')
    expect(shownStore('postgres://db/x?password=s3cret&sslmode=require')).toBe('postgres://db/x?password=***&sslmode=require')
    expect(shownStore('sqlite')).toBe('sqlite')
    expect(shownStore('')).toBe('')
    expect(shownStore('ann:s3cret@db')).toBe('***@db')
  })
})

describe('faults of the PostgreSQL server', () => {
  it('socket errors, server classes and refusals are faults with a short reason', () => {
    expect(pgFaultWhy(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })))
      .toBe('the PostgreSQL server cannot be reached (ECONNREFUSED)')
    expect(pgFaultWhy({ code: '57P01', message: 'terminating connection due to administrator command' }))
      .toBe('the PostgreSQL server is shutting down or starting (57P01)')
    expect(pgFaultWhy({ code: '53100', message: 'could not extend file' })).toBe('the PostgreSQL server is out of resources (53100)')
    expect(pgFaultWhy({ code: '28P01' })).toBe('the PostgreSQL server refused the password (28P01)')
    expect(pgFaultWhy(new Error('Connection terminated unexpectedly'))).toBe('the PostgreSQL connection was lost')
    expect(pgFaultWhy(new Error('timeout exceeded when trying to connect'))).toBe('the PostgreSQL connection was lost')
    expect(pgFaultWhy(new Error('Query read timeout'))).toBe('the PostgreSQL connection was lost')
    expect(pgFaultWhy({ code: '57014' })).toBe('a PostgreSQL statement took too long and was cancelled (57014)')
    expect(pgFaultWhy({ code: '25P03' })).toBe('a PostgreSQL transaction stayed idle too long and was ended (25P03)')
  })

  it('a bug is no fault: a syntax error, a constraint, a plain error pass through as they were', () => {
    for (const error of [{ code: '42601' }, { code: '23505' }, new Error('boom'), 'text', null]) {
      expect(pgFaultWhy(error)).toBeUndefined()
      expect(asStoreError(error)).toBe(error)
    }
  })

  it('a fault is rethrown as the store fault every caller already reads', () => {
    expect(storeFaultWhy(asStoreError({ code: 'ECONNRESET' }))).toBe('the PostgreSQL server cannot be reached (ECONNRESET)')
  })

  it('only serialization failures and deadlocks are retried', () => {
    expect(isRetryable({ code: '40001' })).toBe(true)
    expect(isRetryable({ code: '40P01' })).toBe(true)
    expect(isRetryable({ code: '23505' })).toBe(false)
    expect(isRetryable(undefined)).toBe(false)
  })

  it('schema names are unquoted lower-case identifiers only, with room for their notify channel\'s `_changed` in 63', () => {
    expect(isSchemaName('cross_session')).toBe(true)
    expect(isSchemaName('x'.repeat(55))).toBe(true)
    for (const name of ['', 'x'.repeat(56), 'Cross', '1st', 'a;drop', 'a"b', 'a b']) expect(isSchemaName(name)).toBe(false)
  })
})

describe('liveness by lease', () => {
  const self = { machine: 'a', pid: 1, start: 7 }
  it('another machine\'s process lives by its lease; this machine\'s by its pid, whatever its lease', () => {
    const probe = (tag: { pid: number }): boolean => tag.pid !== 2
    expect(isAlive({ tag: { machine: 'b', pid: 2, start: 7 }, leased: true }, self, probe)).toBe(true)
    expect(isAlive({ tag: { machine: 'b', pid: 3, start: 7 }, leased: false }, self, probe)).toBe(false)
    expect(isAlive({ tag: { machine: 'a', pid: 2, start: 7 }, leased: true }, self, probe)).toBe(false)
    expect(isAlive({ tag: { machine: 'a', pid: 3, start: 7 }, leased: false }, self, probe)).toBe(true)
  })

  it('the same pid and start on two machines are two processes', () => {
    expect(sameProcess(self, { ...self })).toBe(true)
    expect(sameProcess(self, { ...self, machine: 'b' })).toBe(false)
    expect(sameProcess(self, undefined)).toBe(false)
  })
})
