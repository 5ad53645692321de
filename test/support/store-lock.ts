/**
 * Another program locks a home's store, over a second real connection.
 * `write`: it holds the write lock (a transaction open), so readers still
 * read (WAL) and every transition meets SQLITE_BUSY (a user's `sqlite3`,
 * another process's transaction). `exclusive`: it holds the file itself
 * (`locking_mode = EXCLUSIVE`, as a tool that opens the file alone does),
 * so nothing can even be read.
 *
 * @module test/support/store-lock
 */
import { DatabaseSync } from 'node:sqlite'
import { storePaths } from '../../src/testing.js'

/** Lock the store of `home` until `release()` (also pushed to `cleanups`, so a failed test lets go too). */
export function lockStore(home: string, how: 'write' | 'exclusive', cleanups: Array<() => void>): { release(): void } {
  const db = new DatabaseSync(storePaths(home).file)
  if (how === 'exclusive') db.exec('PRAGMA locking_mode = EXCLUSIVE')
  db.exec(how === 'exclusive' ? 'BEGIN EXCLUSIVE' : 'BEGIN IMMEDIATE')
  let held = true
  const release = (): void => {
    if (!held) return
    held = false
    db.exec('COMMIT')
    db.close()
  }
  cleanups.push(release)
  return { release }
}
