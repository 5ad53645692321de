/**
 * A folder for test homes outside every root rc.8's sandbox lets a session's
 * shell write (`/tmp` and the system temp directory): this checkout's `.tmp/`,
 * or, when the checkout itself lies under one of them (a CI clone under
 * `/tmp`), `~/.cache/dsh-cross-session-tests`.
 *
 * @module test/support/outside-temp
 */
import { mkdirSync, realpathSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'

function underTemp(path: string): boolean {
  const real = realpathSync(path)
  return ['/tmp', tmpdir()].some(root => {
    const base = realpathSync(root)
    return real === base || real.startsWith(`${base}/`)
  })
}

/** The folder (made if missing) under which `name` is created; absolute. */
export function outsideTemp(checkout: string, name: string): string {
  const base = underTemp(checkout) ? join(homedir(), '.cache', 'dsh-cross-session-tests') : join(checkout, '.tmp')
  const dir = join(base, name)
  mkdirSync(dir, { recursive: true })
  return dir
}
