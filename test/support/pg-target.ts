/**
 * The PostgreSQL server a unit test file runs against (`test/support/pg-global.ts`):
 * its URL, or — where none could be started — a skip with one line saying
 * why, except under CI (`CI=true`), where a missing server fails the file:
 * a run that never reached PostgreSQL must not pass as if it had.
 *
 * @module test/support/pg-target
 */
import { inject } from 'vitest'

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
