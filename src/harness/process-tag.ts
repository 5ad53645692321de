/**
 * Is the process behind an entry still the one that wrote it? By pid and
 * process start time, because pids are reused: an entry whose process has
 * died is stale and never blocks anything (docs/architecture.md §8,
 * "Transitions").
 *
 * On Linux the start time is field 22 of `/proc/<pid>/stat` (clock ticks
 * since boot, proc(5)); it is read after the last `)` because the command
 * name (field 2) may itself hold spaces and parentheses. Elsewhere it is
 * unknown (`0`) and liveness falls back to the pid alone. A zombie (field
 * 3, state `Z`, or `X` dead) is dead: it has exited and runs nothing, only
 * its parent has not reaped it yet (proc(5)).
 *
 * @module dsh-cross-session/harness/process-tag
 */

import { readFileSync } from 'node:fs'
import type { ProcessTag } from './dsh-home.js'

/** Field 22 of a `/proc/<pid>/stat` line, or `undefined` when malformed. */
export function parseStartTime(stat: string): number | undefined {
  const close = stat.lastIndexOf(')')
  if (close < 0) return undefined
  // Fields after the name start at field 3 (state); starttime is field 22.
  const fields = stat.slice(close + 2).split(' ')
  const value = Number(fields[22 - 3])
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined
}

/** Field 3 (the state letter: `R`, `S`, `Z`, …) of a `/proc/<pid>/stat` line, or `undefined` when malformed. */
export function parseState(stat: string): string | undefined {
  const close = stat.lastIndexOf(')')
  const state = close < 0 ? undefined : stat.slice(close + 2).split(' ')[0]
  return state === undefined || state.length !== 1 ? undefined : state
}

/** `/proc/<pid>/stat` of `pid`, or `undefined` when it has none (dead, or not Linux). */
function readStat(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
}

/** Start time of `pid`, or `undefined` when it has no `/proc` entry (dead, or not Linux). */
export function readStartTime(pid: number): number | undefined {
  const stat = readStat(pid)
  return stat === undefined ? undefined : parseStartTime(stat)
}

let self: ProcessTag | undefined

/** This process's tag (computed once). */
export function selfTag(): ProcessTag {
  self ??= { pid: process.pid, start: readStartTime(process.pid) ?? 0 }
  return self
}

/** What a liveness probe observed about one pid. */
interface Probe {
  /** `process.kill(pid, 0)`: `alive` (or EPERM: exists, not ours), `dead` (ESRCH). */
  readonly signal: 'alive' | 'dead'
  /** Its current start time, when readable. */
  readonly start: number | undefined
  /** Its `/proc` state letter, when readable (`Z`: a zombie, `X`: dead). */
  readonly state?: string | undefined
}

/**
 * Pure verdict: the tagged process is alive only if the pid exists, is no
 * zombie, and, when both start times are known, they are equal (else the
 * pid was reused).
 */
export function judgeAlive(tag: ProcessTag, probe: Probe): boolean {
  if (probe.signal === 'dead' || probe.state === 'Z' || probe.state === 'X') return false
  if (tag.start === 0 || probe.start === undefined) return true
  return probe.start === tag.start
}

/** Probe `pid` now. */
function probe(pid: number): Probe {
  let signal: Probe['signal'] = 'alive'
  try {
    process.kill(pid, 0)
  } catch (error: unknown) {
    if ((error as { code?: unknown }).code === 'ESRCH') signal = 'dead'
  }
  const stat = signal === 'dead' ? undefined : readStat(pid)
  return { signal, start: stat === undefined ? undefined : parseStartTime(stat), state: stat === undefined ? undefined : parseState(stat) }
}

/** Whether the process named by `tag` is alive (this process always is). */
export function isAlive(tag: ProcessTag): boolean {
  const me = selfTag()
  if (tag.pid === me.pid) return tag.start === me.start || tag.start === 0
  return judgeAlive(tag, probe(tag.pid))
}
