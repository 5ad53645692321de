/**
 * One store per home (`src/home/store-users.ts`, `StoreConnection.useStore`
 * in `src/home/store-connection.ts`): each process records which store it
 * coordinates on in the home's real SQLite store; one set otherwise than a
 * living process of the home is refused; dead processes' records go.
 * @module test/unit/store-users
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openHomeStore, type ProcessTag } from '../../src/testing.js'
import { judgeChoices, storeUserKey, storeUserOf } from '../../src/home/store-users.js'

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})

describe('one store per home', () => {
  it('a process set to another store than a living process of the home is refused, and nothing is recorded for it', () => {
    const home = mkdtempSync(join(tmpdir(), 'xs-users-'))
    homes.push(home)
    const living = new Set<number>([1, 2, 3])
    const alive = (tag: ProcessTag): boolean => living.has(tag.pid)
    const first = openHomeStore(home, { pid: 1, start: 10 }, alive)
    const second = openHomeStore(home, { pid: 2, start: 20 }, alive)
    const third = openHomeStore(home, { pid: 3, start: 30 }, alive)
    try {
      expect(first.useStore('sqlite')).toBeUndefined()
      expect(second.useStore('postgres://dev@db.internal:5432/dsh')).toBe('sqlite')
      // The same choice again is fine, and so is a third process set alike.
      expect(first.useStore('sqlite')).toBeUndefined()
      expect(third.useStore('sqlite')).toBeUndefined()
      // Once every process on SQLite is gone (one left, one died), the PostgreSQL one may start.
      first.leaveStoreUsers()
      living.delete(3)
      expect(second.useStore('postgres://dev@db.internal:5432/dsh')).toBeUndefined()
      // And now a process set to SQLite is the one refused.
      living.add(4)
      const fourth = openHomeStore(home, { pid: 4, start: 40 }, alive)
      expect(fourth.useStore('sqlite')).toBe('postgres://dev@db.internal:5432/dsh')
      fourth.close()
    } finally {
      first.close()
      second.close()
      third.close()
    }
  })

  it('judges recorded choices: its own row aside, dead rows to drop, the first other living choice', () => {
    const rows = [
      { key: storeUserKey({ pid: 7, start: 1 }), value: 'sqlite' },
      { key: storeUserKey({ pid: 8, start: 2 }), value: 'postgres://a@b/c' },
      { key: storeUserKey({ pid: 9, start: 3 }), value: 'postgres://x@y/z' },
      { key: 'rebuilt', value: '{}' },
    ]
    expect(judgeChoices(rows, 'sqlite', { pid: 7, start: 1 }, tag => tag.pid !== 8)).toEqual({ dead: [rows[1]!.key], other: 'postgres://x@y/z' })
    expect(judgeChoices(rows, 'postgres://x@y/z', { pid: 9, start: 3 }, tag => tag.pid === 9)).toEqual({ dead: [rows[0]!.key, rows[1]!.key] })
    expect(storeUserOf('store-user:12:34')).toEqual({ pid: 12, start: 34 })
    expect(storeUserOf('store-user:12')).toBeUndefined()
  })
})
