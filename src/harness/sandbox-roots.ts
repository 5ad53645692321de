/**
 * Whether the home lies where rc.8's sandbox lets a session's shell write.
 * In `workspace-write` mode the sandbox grants the session workspace, `/tmp`
 * and the system temp directory (`@deepseek-ai/dsh-sandbox@0.1.0-rc.8`
 * lib/index.js `writableRoots`, used by `@deepseek-ai/dsh-sandbox-local`).
 * A store there can be written by any session's shell, so a peer could
 * forge messages (docs/tools.md, "Who can decide a held message"). The
 * temp roots are known at start; a workspace is per session
 * (../home/home-reach.ts checks each session's).
 * @module dsh-cross-session/harness/sandbox-roots
 */

import { realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { resolve, sep } from 'node:path'

/** The canonical form of a path (its real path when it exists, else as resolved). */
export function canonicalPath(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/** The temp roots rc.8's sandbox grants for writing, canonical, without duplicates. */
export function sandboxTempRoots(): readonly string[] {
  return [...new Set(['/tmp', tmpdir()].map(canonicalPath))]
}

/**
 * The first of `roots` that contains `home` (or is it), compared as given.
 * Pure: `writableRootOf('/tmp/x/home', ['/tmp'])` is `'/tmp'`;
 * `writableRootOf('/tmpfoo', ['/tmp'])` is `undefined`.
 */
export function writableRootOf(home: string, roots: readonly string[]): string | undefined {
  return roots.find(root => home === root || home.startsWith(root.endsWith(sep) ? root : `${root}${sep}`))
}

/** The temp root containing the home (canonical paths), or `undefined`. */
export function sandboxRootOfHome(home: string): string | undefined {
  return writableRootOf(canonicalPath(home), sandboxTempRoots())
}
