/**
 * The home store's files on disk: where they are, a directory and a file
 * made for the owner only and never through a symlink (docs/architecture.md
 * §8), a file's identity (dev and inode), and the `-wal` and `-shm` of a
 * replaced store set aside.
 *
 * @module dsh-cross-session/home/store-files
 */

import { closeSync, constants, lstatSync, mkdirSync, openSync, renameSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { storeFault } from './store-fault.js'

/** The store's directory and file under `home`. */
export function storePaths(home: string): { dir: string, file: string } {
  const dir = join(home, 'cross-session')
  return { dir, file: join(dir, 'store.sqlite') }
}

/** Make `dir` (0700) and check it is a real directory. */
export function plainDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stat = lstatSync(dir)
  if (!stat.isDirectory() || stat.isSymbolicLink())
    throw storeFault(`${dir} is not a plain directory; refusing to use it`, 'its directory is not a plain directory')
}

/** Create `file` (0600) if needed, never through a symlink, and check it is a regular file. */
export function createOwnerOnly(file: string): void {
  // O_NOFOLLOW: a symlink planted in the file's place is refused, never written through.
  let fd: number
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600)
  } catch (error: unknown) {
    if ((error as { code?: unknown }).code === 'ELOOP')
      throw storeFault(`${file} is a symbolic link; refusing to use it`, 'the store file is a symbolic link')
    throw error
  }
  closeSync(fd)
  if (!lstatSync(file).isFile())
    throw storeFault(`${file} is not a regular file; refusing to use it`, 'the store file is not a regular file')
}

/**
 * A store file replaced (or deleted alone) under running processes leaves the old file's
 * `-wal` and `-shm` at the path, and SQLite would read the new file through
 * the old log (sqlite.org/howtocorrupt.html, "mispairing database files and
 * hot journals"). When the `-wal` at the path is still the one the old
 * connection used (`wal`, its identity then), both are moved aside
 * (`.stale-<ms>`); a log another process made for the new file is left alone.
 */
export function setAsideStaleWal(file: string, wal: string | undefined): void {
  if (wal === undefined || fileIdentity(`${file}-wal`) !== wal) return
  const at = Date.now()
  for (const suffix of ['-wal', '-shm']) {
    try {
      renameSync(`${file}${suffix}`, `${file}${suffix}.stale-${at}`)
    } catch {
      // Gone meanwhile: another process moved it.
    }
  }
}

/** dev and inode of `file`, or `undefined` when it is gone. */
export function fileIdentity(file: string): string | undefined {
  try {
    const stat = statSync(file)
    return `${stat.dev}:${stat.ino}`
  } catch {
    return undefined
  }
}
