/**
 * Whether session shells can write the home, as the host learns it: the
 * temp roots at start, and the workspace of each session this process runs
 * (rc.8 `@deepseek-ai/dsh-sandbox-policy@0.1.0-rc.8` lib/index.js `resolve`:
 * a session's `workspace-write` root is its header's `cwd`). Each finding is
 * logged once; the settings card shows the first (channel `home.get`).
 * docs/tools.md, "Who can decide a held message".
 * @module dsh-cross-session/home/home-reach
 */

import { canonicalPath, sandboxRootOfHome, writableRootOf } from '../harness/sandbox-roots.js'

/** Which kind of root the home lies in. */
export type ReachKind = 'temp' | 'workspace'

/** What `home.get` answers. */
export interface HomeReachView {
  readonly path: string
  readonly sandboxRoot: string | undefined
  readonly kind: ReachKind | undefined
}

/** The log line for a home a session's shell can write (once per root). */
export function sandboxWarning(home: string, root: string, kind: ReachKind = 'temp'): string {
  const who = kind === 'temp'
    ? 'which rc.8\'s sandbox lets every session\'s shell write'
    : 'the workspace of a session in this process, which rc.8\'s sandbox lets that session\'s shell write'
  return `DSH_HOME (${home}) lies inside ${root}, ${who}: any session's shell that can write it can write the cross-session store and `
    + `forge messages from any session. Move the home outside ${root} and every workspace (set DSH_HOME, e.g. to ~/.dsh) and restart dsh.`
}

/** The session's workspace: its header's `cwd`, when it has one. */
export function workspaceOf(header: unknown): string | undefined {
  const cwd = (header as { cwd?: unknown } | null | undefined)?.cwd
  return typeof cwd === 'string' && cwd.length > 0 ? cwd : undefined
}

/** One home's reach, per process. */
export class HomeReach {
  private found: { root: string, kind: ReachKind } | undefined
  private readonly seen = new Set<string>()
  private readonly canonicalHome: string
  private readonly home: string
  private readonly log: (message: string) => void

  /** Checks the temp roots now and logs a finding. */
  constructor(home: string, log: (message: string) => void) {
    this.home = home
    this.log = log
    this.canonicalHome = canonicalPath(home)
    const temp = sandboxRootOfHome(home)
    if (temp !== undefined) this.note(temp, 'temp')
  }

  /** A session runs in `workspace`: log (once per workspace) if the home lies inside it. */
  seeWorkspace(workspace: string | undefined): void {
    if (workspace === undefined || this.seen.has(workspace)) return
    this.seen.add(workspace)
    const root = writableRootOf(this.canonicalHome, [canonicalPath(workspace)])
    if (root !== undefined) this.note(root, 'workspace')
  }

  /** The home and the first root found, if any. */
  view(): HomeReachView {
    return { path: this.home, sandboxRoot: this.found?.root, kind: this.found?.kind }
  }

  private note(root: string, kind: ReachKind): void {
    this.found ??= { root, kind }
    this.log(sandboxWarning(this.home, root, kind))
  }
}
