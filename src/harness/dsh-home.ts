/**
 * Where this package's cross-process state lives, and how a process is named.
 *
 * `DSH_HOME` is resolved the way the harness does it
 * (`@deepseek-ai/dsh-home-paths@0.1.0-rc.8` `resolveDshHome`: `$DSH_HOME`
 * unless empty or blank, else `~/.dsh`; a leading `~` expanded). The store
 * is `$DSH_HOME/cross-session/store.sqlite` (`home/store-open.ts`).
 *
 * @module dsh-cross-session/harness/dsh-home
 */

import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/** Resolve `DSH_HOME` as rc.8's `resolveDshHome` does. */
export function resolveHome(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.DSH_HOME
  const selected = fromEnv !== undefined && fromEnv.trim().length > 0 ? fromEnv : join(homedir(), '.dsh')
  const expanded = selected === '~' ? homedir() : selected.startsWith('~/') ? join(homedir(), selected.slice(2)) : selected
  return resolve(expanded)
}

/** A process: pid plus its start time (pids are reused). */
export interface ProcessTag {
  readonly pid: number
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22), or `0` where unknown. */
  readonly start: number
}
