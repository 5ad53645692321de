/**
 * Open the home store of one `DSH_HOME`: `$DSH_HOME/cross-session/store.sqlite`.
 *
 * - The directory is created 0700 and must be a real directory; the
 *   database file is created 0600 before SQLite opens it (SQLite gives its
 *   `-wal` and `-shm` files the database file's mode) and must not be a
 *   symlink.
 * - `journal_mode = WAL` (readers never block the writer), `busy_timeout`
 *   (a transition waits for another process's transaction instead of
 *   failing), `synchronous = FULL` (a committed transition survives a power
 *   loss, not only a crash).
 * - A file that is not a database, or is corrupt, or of another schema
 *   version, is moved aside (`store.sqlite.broken-<ms>`) and a new one is
 *   made: the store is this package's own, and the harness's session logs
 *   stay the record of what was delivered.
 *
 * `node:sqlite` is loaded here, on first open (`home/sqlite-module.ts`:
 * its experimental warning on one line), so a process that never opens the
 * store never loads it.
 *
 * @module dsh-cross-session/home/store-open
 */

import { closeSync, constants, lstatSync, mkdirSync, openSync, renameSync } from 'node:fs'
import type { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import type { ProcessTag } from '../harness/dsh-home.js'
import { loadSqlite } from '../harness/sqlite-module.js'
import { SCHEMA, STORE_VERSION } from './store-schema.js'
import { SqliteHomeStore } from './store-sqlite.js'

/** The `meta` table alone (as in the schema, idempotent): read for the version before the schema runs. */
const META_SCHEMA = 'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;'

/** How long a transition waits for another process's write lock, ms. */
export const BUSY_TIMEOUT_MS = 5000

/** The store's directory and file under `home`. */
export function storePaths(home: string): { dir: string, file: string } {
  const dir = join(home, 'cross-session')
  return { dir, file: join(dir, 'store.sqlite') }
}

function plainDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stat = lstatSync(dir)
  if (!stat.isDirectory() || stat.isSymbolicLink()) throw new Error(`${dir} is not a plain directory; refusing to use it`)
}

function createOwnerOnly(file: string): void {
  // O_NOFOLLOW: a symlink planted in the file's place is refused, never written through.
  const fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600)
  closeSync(fd)
  if (!lstatSync(file).isFile()) throw new Error(`${file} is not a regular file; refusing to use it`)
}

function connect(file: string): DatabaseSync {
  const db = new (loadSqlite().DatabaseSync)(file)
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('PRAGMA synchronous = FULL')
    // A checkpoint truncates the WAL back to this size (bytes), so a large sweep does not leave it grown.
    db.exec('PRAGMA journal_size_limit = 1048576')
    db.exec('BEGIN IMMEDIATE')
    // The version is read before the schema runs: this version's indexes name
    // columns an older store lacks, and running them first would fail with
    // "no such column" instead of rebuilding the store.
    db.exec(META_SCHEMA)
    const version = db.prepare('SELECT value FROM meta WHERE key = \'version\'').get() as { value: string } | undefined
    if (version !== undefined && version.value !== STORE_VERSION) {
      db.exec('ROLLBACK')
      throw Object.assign(new Error(`store schema ${version.value}, expected ${STORE_VERSION}`), { storeMismatch: true })
    }
    db.exec(SCHEMA)
    if (version === undefined) db.prepare('INSERT INTO meta (key, value) VALUES (\'version\', ?)').run(STORE_VERSION)
    db.exec('COMMIT')
    return db
  } catch (error: unknown) {
    try {
      db.close()
    } catch {
      // Closing a half-open database is best effort.
    }
    throw error
  }
}

/** Whether an open error means the file is not a usable store of this version (then it is rebuilt). */
function isBroken(error: unknown): boolean {
  const { errcode, storeMismatch } = error as { errcode?: unknown, storeMismatch?: unknown }
  // SQLITE_CORRUPT (11), SQLITE_NOTADB (26).
  return storeMismatch === true || errcode === 11 || errcode === 26
}

/**
 * Open (creating if needed) the store of `home`.
 * @param self - this process.
 * @param alive - liveness of another process (pid + start time).
 * @param log - where a rebuilt store is reported.
 * @param now - clock, ms (tests inject one).
 * @throws when the directory or file is unsafe (a symlink, not a directory) or SQLite cannot open it.
 */
export function openHomeStore(home: string, self: ProcessTag, alive: (tag: ProcessTag) => boolean, log: (message: string) => void = () => undefined, now: () => number = Date.now): SqliteHomeStore {
  const { dir, file } = storePaths(home)
  plainDirectory(dir)
  createOwnerOnly(file)
  let db: DatabaseSync
  try {
    db = connect(file)
  } catch (error: unknown) {
    if (!isBroken(error)) throw error
    const aside = `${file}.broken-${Date.now()}`
    // The WAL and shared-memory files belong to the broken database: never replayed into the new one.
    for (const suffix of ['', '-wal', '-shm']) {
      try {
        renameSync(`${file}${suffix}`, `${aside}${suffix}`)
      } catch {
        // Absent (no WAL yet).
      }
    }
    log(`the cross-session store ${file} could not be used (${String(error)}); moved to ${aside} and started a new one`)
    createOwnerOnly(file)
    db = connect(file)
  }
  return new SqliteHomeStore(db, file, self, alive, now)
}
