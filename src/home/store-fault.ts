/**
 * A home store that cannot be used right now, as data: which thrown errors
 * are faults of the store itself (locked past the wait, full, an I/O error,
 * a file that cannot be opened, a read-only file system, an unsafe path, a
 * schema of a newer release), and the short reason a refusal or the log
 * gives for one (docs/architecture.md §8, "When the store fails"), and the
 * lines the log says when the store goes down, comes back or moves.
 *
 * The reason is SQLite's own fixed text (`errstr`, e.g. `database is
 * locked`; a `node:sqlite` error carries SQLite's extended result code as
 * `errcode` and its text as `errstr`, Node 22 `node:sqlite` docs), a
 * file-system code, or this package's words; never a path.
 *
 * An error a worker thread's connection threw crosses to its process with
 * those fields kept ({@link carryError}, `home/off-loop.ts`).
 *
 * Pure; never throws.
 *
 * @module dsh-cross-session/home/store-fault
 */

/** Thrown by the supervised store (`home/store-supervisor.ts`) while no store is open. */
export class StoreUnavailableError extends Error {
  /** Why, in a few words (no path). */
  readonly why: string

  constructor(why: string) {
    super(`the cross-session store is unavailable (${why})`)
    this.name = 'StoreUnavailableError'
    this.why = why
  }
}

/** SQLite primary result codes that mean "the store cannot be used now" (sqlite.org/rescode.html). */
const SQLITE_FAULTS: Readonly<Record<number, string>> = {
  5: 'database is locked',
  6: 'database table is locked',
  8: 'attempt to write a readonly database',
  10: 'disk I/O error',
  13: 'database or disk is full',
  14: 'unable to open database file',
  15: 'locking protocol error',
}

/** File-system codes of opening the store's directory and file. */
const FS_FAULTS: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'ENOENT', 'ENOTDIR', 'ELOOP', 'ENOSPC', 'EDQUOT', 'EROFS', 'EIO',
  'EMFILE', 'ENFILE', 'EBUSY', 'EAGAIN'])

/**
 * Why a thrown value makes the store unusable now, or `undefined` when it
 * is no store fault (a bug, a closed connection: rethrown as it was).
 */
export function storeFaultWhy(error: unknown): string | undefined {
  try {
    if (error instanceof StoreUnavailableError) return error.why
    if (typeof error !== 'object' || error === null) return undefined
    const { errcode, errstr, code, storeFault } = error as { errcode?: unknown, errstr?: unknown, code?: unknown, storeFault?: unknown }
    if (typeof storeFault === 'string') return storeFault
    if (typeof errcode === 'number') {
      // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE, …) keep the primary code in the low byte.
      const known = SQLITE_FAULTS[errcode & 0xff]
      if (known !== undefined) return typeof errstr === 'string' && errstr.length <= 80 ? errstr : known
    }
    if (typeof code === 'string' && FS_FAULTS.has(code)) return code
    return undefined
  } catch {
    return undefined
  }
}

/** Whether `error` is a fault of the store (see {@link storeFaultWhy}). */
export function isStoreFault(error: unknown): boolean {
  return storeFaultWhy(error) !== undefined
}

/**
 * Whether `error` is another connection's lock met past the short wait (`SQLITE_BUSY`, `SQLITE_LOCKED`): gone in a
 * moment, tried again without a word.
 */
export function isBusy(error: unknown): boolean {
  const { errcode } = (typeof error === 'object' && error !== null ? error : {}) as { errcode?: unknown }
  return typeof errcode === 'number' && ((errcode & 0xff) === 5 || (errcode & 0xff) === 6)
}

/** A store fault raised by this package (an unsafe path, a newer schema): `why` is what the refusal says. */
export function storeFault(message: string, why: string): Error {
  return Object.assign(new Error(message), { storeFault: why })
}

/** What the log says when the store cannot be used, can be used again, or moved to the file now at its path. */
export const storeLogLines = {
  down: (why: string, error: unknown): string => `the cross-session store is unavailable (${why}): sends to other sessions are refused, `
    + 'and sessions live here are not shown to other dsh processes, until it can be used; '
    + `retrying in the background (${String(error)})`,
  up: 'the cross-session store can be used again: cross-process coordination is on',
  moved: (file: string): string => 'the cross-session store file was deleted or replaced while in use; '
    + `this process now uses the file at ${file} (what only the old file held is not seen)`,
} as const

/** A thrown error as it crosses threads: what `home/store-fault.ts` reads of it. */
export interface CarriedError {
  readonly message: string
  readonly errcode?: number
  readonly errstr?: string
  readonly code?: string
  readonly storeFault?: string
}

/** An error as it crosses threads (`node:sqlite` errors carry `errcode`/`errstr`, Node 22 docs; a structured clone would drop them). */
export function carryError(error: unknown): CarriedError {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>
  const pick = <T>(key: string, type: string): T | undefined => typeof fields[key] === type ? fields[key] as T : undefined
  const carried: Record<string, unknown> = { message: error instanceof Error ? error.message : String(error) }
  for (const [key, type] of [['errcode', 'number'], ['errstr', 'string'], ['code', 'string'], ['storeFault', 'string']] as const) {
    const value = pick(key, type)
    if (value !== undefined) carried[key] = value
  }
  return carried as unknown as CarriedError
}

/** The error {@link carryError} carried, rebuilt with the same fields. */
export function rebuildError(carried: CarriedError): Error {
  const { message, ...fields } = carried
  return Object.assign(new Error(message), fields)
}
