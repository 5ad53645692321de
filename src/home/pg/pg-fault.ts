/**
 * Which errors of node-postgres (`pg@8`) mean "the PostgreSQL store cannot
 * be used now", and the short reason a refusal or the log gives for one —
 * the PostgreSQL half of `home/store-fault.ts`. A fault found here is
 * rethrown as that module's store fault, so every caller's refusal and
 * retry is the one it has for a SQLite store that is down.
 *
 * Read from what `pg` throws (`pg@8.23.1` lib/client.js, lib/connection.js;
 * `pg-protocol` lib/parser.js): a server error carries its SQLSTATE as
 * `code` (postgresql.org/docs/current/errcodes-appendix.html); a socket
 * error carries Node's `code` (`ECONNREFUSED`, …); a connection lost or a
 * pool that could not connect in time throws with a message only.
 *
 * Pure; never throws. A reason never holds a password or a URL.
 *
 * @module dsh-cross-session/home/pg/pg-fault
 */

import { storeFault } from '../store-fault.js'

/** SQLSTATE classes (first two characters) of a server that cannot serve now. */
const FAULT_CLASSES: Readonly<Record<string, string>> = {
  '08': 'the PostgreSQL connection failed',
  '53': 'the PostgreSQL server is out of resources',
  '57': 'the PostgreSQL server is shutting down or starting',
  '58': 'the PostgreSQL server has a system error',
  'XX': 'the PostgreSQL server has an internal error',
}

/** SQLSTATEs with a reason of their own, before their class's. */
const OWN: Readonly<Record<string, string>> = {
  '57014': 'a PostgreSQL statement took too long and was cancelled',
  '25P03': 'a PostgreSQL transaction stayed idle too long and was ended',
}

/** SQLSTATEs of a server that refuses this client (a setting to fix, not a moment to wait out). */
const REFUSED: Readonly<Record<string, string>> = {
  '28000': 'the PostgreSQL server refused the login',
  '28P01': 'the PostgreSQL server refused the password',
  '3D000': 'the PostgreSQL database does not exist',
  '42501': 'the PostgreSQL user may not use the store\'s tables',
}

/** Socket codes of a server that cannot be reached. */
const SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  'ECONNABORTED'])

/** Messages `pg` throws without a code when a connection is lost or cannot be had in time. */
const LOST = [/connection terminated/i, /not queryable/i, /timeout exceeded when trying to connect/i, /connection timeout/i,
  /Client was closed/i, /query read timeout/i]

/** Why `error` makes the PostgreSQL store unusable now, or `undefined` for any other error (a bug: rethrown as it was). */
export function pgFaultWhy(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const { code, message } = error as { code?: unknown, message?: unknown }
  if (typeof code === 'string') {
    if (SOCKET.has(code)) return `the PostgreSQL server cannot be reached (${code})`
    const own = OWN[code] ?? REFUSED[code]
    if (own !== undefined) return `${own} (${code})`
    const known = /^[0-9A-Z]{5}$/.test(code) ? FAULT_CLASSES[code.slice(0, 2)] : undefined
    if (known !== undefined) return `${known} (${code})`
  }
  if (typeof message === 'string' && LOST.some(pattern => pattern.test(message))) return 'the PostgreSQL connection was lost'
  return undefined
}

/** Whether `error` is a conflict PostgreSQL asks the client to retry (serialization failure `40001`, deadlock `40P01`). */
export function isRetryable(error: unknown): boolean {
  const code = (typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined)
  return code === '40001' || code === '40P01'
}

/** `error` as thrown to callers: a store fault (`home/store-fault.ts`) when it is one, else as it was. */
export function asStoreError(error: unknown): unknown {
  const why = pgFaultWhy(error)
  return why === undefined ? error : storeFault(`the cross-session store is unavailable (${why})`, why)
}
