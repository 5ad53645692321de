/**
 * Where the cross-process state of this package lives under `DSH_HOME`, and
 * the file-name grammar every entry uses (issue 8, PRODUCT.md §8).
 *
 * `DSH_HOME` is resolved the way the harness does it
 * (`@deepseek-ai/dsh-home-paths@0.1.0-rc.8` `resolveDshHome`: `$DSH_HOME`
 * unless empty or blank, else `~/.dsh`; a leading `~` expanded). Layout:
 *
 * ```text
 * $DSH_HOME/cross-session/
 *   presence/<session_id>@<pid>.<start>     one empty file per live session per process
 *   leases/<session_id>.lease               exclusive wake lease (JSON holder)
 *   mailbox/<session_id>~<message>.msg      one pending message (JSON, 0600)
 *   mailbox/<session_id>~<message>.claimed@<pid>.<start>   claimed by that process
 *   receipts/<message>.json                 where the owner recorded it
 * ```
 *
 * Directories are created 0700 and must be real directories (a symlink in
 * their place is refused), so no entry is ever written through a link.
 *
 * @module dsh-cross-session/home/paths
 */

import { randomBytes } from 'node:crypto'
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/** Resolve `DSH_HOME` as rc.8's `resolveDshHome` does. */
export function resolveHome(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.DSH_HOME
  const selected = fromEnv !== undefined && fromEnv.trim().length > 0 ? fromEnv : join(homedir(), '.dsh')
  const expanded = selected === '~' ? homedir() : selected.startsWith('~/') ? join(homedir(), selected.slice(2)) : selected
  return resolve(expanded)
}

/** The four directories of one home. */
export interface HomeLayout {
  readonly root: string
  readonly presence: string
  readonly leases: string
  readonly mailbox: string
  readonly receipts: string
}

/** The layout under `home` (no file system access). */
export function layoutOf(home: string): HomeLayout {
  const root = join(home, 'cross-session')
  return { root, presence: join(root, 'presence'), leases: join(root, 'leases'), mailbox: join(root, 'mailbox'), receipts: join(root, 'receipts') }
}

/**
 * Create the layout (0700) and check each directory is a real directory.
 * @throws when one is a symlink or not a directory (never followed).
 */
export function ensureLayout(layout: HomeLayout): void {
  for (const dir of [layout.root, layout.presence, layout.leases, layout.mailbox, layout.receipts]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const stat = lstatSync(dir)
    if (!stat.isDirectory() || stat.isSymbolicLink()) throw new Error(`${dir} is not a plain directory; refusing to use it`)
  }
}

/**
 * Session ids that may appear in a file name: the harness's `session-<uuid>`
 * and bare UUIDs, and more generally letters, digits, `.`, `_`, `-` (no
 * separator of ours, no path syntax), 1–200 characters.
 */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/

/** Whether `sessionId` is safe to embed in an entry name. */
export function isSafeSessionId(sessionId: string): boolean {
  return SAFE_ID.test(sessionId) && !sessionId.includes('..')
}

/** A process as entries name it: pid plus its start time (pids are reused). */
export interface ProcessTag {
  readonly pid: number
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22), or `0` where unknown. */
  readonly start: number
}

/** `<pid>.<start>`. */
export function formatTag(tag: ProcessTag): string {
  return `${tag.pid}.${tag.start}`
}

/** Parse `<pid>.<start>`; `undefined` when malformed. */
export function parseTag(text: string): ProcessTag | undefined {
  const match = /^(\d{1,10})\.(\d{1,20})$/.exec(text)
  if (match === null) return undefined
  const pid = Number(match[1])
  const start = Number(match[2])
  return pid > 0 && Number.isSafeInteger(start) ? { pid, start } : undefined
}

/**
 * The entries of one directory that `parse` accepts, in one `readdir`;
 * none when the directory cannot be read. Presence, mailbox and the sweep
 * all list this way: an entry's name is its record.
 */
export function readEntries<T>(dir: string, parse: (name: string) => T | undefined): T[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const entries: T[] = []
  for (const name of names) {
    const entry = parse(name)
    if (entry !== undefined) entries.push(entry)
  }
  return entries
}

/** Whether two tags name the same process. */
export function sameProcess(a: ProcessTag, b: ProcessTag): boolean {
  return a.pid === b.pid && a.start === b.start
}

/**
 * Open `path` read-only without following a link, run `read` on the
 * descriptor and close it; `undefined` when it cannot be opened (absent,
 * a link, refused). Files under DSH_HOME may be planted by anyone who can
 * write there (issue 8 §6).
 */
export function readNoFollow<T>(path: string, read: (fd: number) => T): T | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    return read(fd)
  } finally {
    closeSync(fd)
  }
}

/** Write `data` to `dir/final` atomically: exclusive temp file (0600, no links), then rename. */
export function writeAtomic(dir: string, final: string, data: string): void {
  const temp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`)
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
  try {
    writeSync(fd, data)
  } finally {
    closeSync(fd)
  }
  try {
    renameSync(temp, join(dir, final))
  } catch (error: unknown) {
    unlinkQuietly(temp)
    throw error
  }
}

/** Remove a file, ignoring its absence. */
export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // Already gone.
  }
}
