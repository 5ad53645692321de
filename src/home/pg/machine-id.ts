/**
 * This `DSH_HOME` as a machine of the PostgreSQL store (docs/architecture.md
 * §8 "Several machines"): a stable id, made once and kept in
 * `$DSH_HOME/cross-session/machine-id` (owner-only, never through a
 * symlink, `home/store-files.ts`), and the name shown beside its sessions on
 * other machines (the `machine` setting, src/settings/machine-name.ts; the
 * host name when it is empty).
 *
 * Two processes starting at once make one id: each writes its own draft
 * whole, then links it into place; the link of the second fails (`EEXIST`)
 * and it reads the first's.
 *
 * @module dsh-cross-session/home/pg/machine-id
 */

import { closeSync, constants, linkSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { nanoid } from 'nanoid'
import { fittedMachineName, machineNameProblem } from '../../settings/machine-name.js'
import { plainDirectory, storePaths } from '../store-files.js'

/** A machine id this package made: `m-` and 21 nanoid characters. */
const MACHINE_ID = /^m-[A-Za-z0-9_-]{21}$/

/**
 * This home's machine id, made on first use. @throws a file-system error when
 * the directory cannot be made or read, or `Error` when the file holds
 * something that is not an id (never replaced: another release may own it).
 */
export function machineId(home: string): string {
  const { dir } = storePaths(home)
  plainDirectory(dir)
  const file = join(dir, 'machine-id')
  const made = `m-${nanoid()}`
  // Written whole under a name of its own, then linked into place: the link either makes the file, whole, or finds
  // one another process linked first (`EEXIST`), which is then the id.
  const draft = join(dir, `machine-id.${process.pid}.${made}`)
  writeFileSync(draft, `${made}\n`, { flag: 'wx', mode: 0o600 })
  try {
    linkSync(draft, file)
    return made
  } catch (error: unknown) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error
  } finally {
    rmSync(draft, { force: true })
  }
  const text = readOwn(file).trim()
  if (!MACHINE_ID.test(text)) throw new Error(`${file} does not hold a machine id`)
  return text
}

/** A file's text, never through a symlink (`O_NOFOLLOW`: a link at the path fails with `ELOOP`). */
function readOwn(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

/**
 * The name other machines see (pure): the `machine` setting, trimmed, when
 * the setting's rule (src/settings/machine-name.ts) takes it and it is not
 * empty; else the host name, fitted to the same rule; else `unnamed`.
 * The resolver has already replaced a setting the rule refuses (with a note).
 */
export function machineName(setting: string, host: string = hostname()): string {
  const name = setting.trim()
  const taken = machineNameProblem(name) === undefined ? name : ''
  return taken || fittedMachineName(host) || 'unnamed'
}
