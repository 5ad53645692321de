/**
 * Presence: which top-level sessions each process holds live (issue 8 §1).
 *
 * One empty file per (session, process): `presence/<session_id>@<pid>.<start>`.
 * The name carries everything, so reading the whole board is one directory
 * read (issue 8 §6: "A list pays one directory read for presence"). Creating
 * and removing a name are single atomic directory operations; no file is
 * ever rewritten in place, so a reader never sees a half-written entry.
 *
 * An entry whose process is dead (pid gone, or the pid reused: start time
 * differs) is stale: it never counts as live and may be removed by anyone.
 * A SIGKILLed process therefore leaves nothing that blocks others.
 *
 * @module dsh-cross-session/home/presence
 */

import { closeSync, constants, openSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { formatTag, isSafeSessionId, parseTag, readEntries, sameProcess, type ProcessTag } from './paths.js'

/** One parsed presence entry. */
interface PresenceEntry {
  readonly sessionId: string
  readonly holder: ProcessTag
  /** The entry's file name (for removal). */
  readonly name: string
}

/** Entry name of `sessionId` held by `holder`. */
export function presenceName(sessionId: string, holder: ProcessTag): string {
  return `${sessionId}@${formatTag(holder)}`
}

/** Parse an entry name; `undefined` for anything else (temp files, junk). */
export function parsePresenceName(name: string): PresenceEntry | undefined {
  const at = name.lastIndexOf('@')
  if (at <= 0) return undefined
  const sessionId = name.slice(0, at)
  const holder = parseTag(name.slice(at + 1))
  return holder !== undefined && isSafeSessionId(sessionId) ? { sessionId, holder, name } : undefined
}

/** Where a session is live, as far as presence tells. */
export interface Elsewhere {
  readonly holder: ProcessTag
}

/**
 * Pure: from all entries, the sessions live in a process other than `self`
 * (alive per `isAlive`), and the stale entries to remove.
 */
export function judgePresence(entries: readonly PresenceEntry[], self: ProcessTag, isAlive: (tag: ProcessTag) => boolean): { elsewhere: Map<string, Elsewhere>, stale: PresenceEntry[] } {
  const elsewhere = new Map<string, Elsewhere>()
  const stale: PresenceEntry[] = []
  const verdicts = new Map<string, boolean>()
  for (const entry of entries) {
    if (sameProcess(entry.holder, self)) continue
    const key = formatTag(entry.holder)
    let alive = verdicts.get(key)
    if (alive === undefined) {
      alive = isAlive(entry.holder)
      verdicts.set(key, alive)
    }
    if (alive) elsewhere.set(entry.sessionId, { holder: entry.holder })
    else stale.push(entry)
  }
  return { elsewhere, stale }
}

/** Read every entry of the board (one directory read). */
export function readBoard(dir: string): PresenceEntry[] {
  return readEntries(dir, parsePresenceName)
}

/**
 * Sessions live in other processes right now; stale entries found on the way
 * are removed (best effort: a dead process cannot come back).
 */
export function liveElsewhere(dir: string, self: ProcessTag, isAlive: (tag: ProcessTag) => boolean): Map<string, Elsewhere> {
  const { elsewhere, stale } = judgePresence(readBoard(dir), self, isAlive)
  for (const entry of stale) {
    try {
      unlinkSync(join(dir, entry.name))
    } catch {
      // Another process removed it first: fine.
    }
  }
  return elsewhere
}

/** This process's own entries: publish and withdraw. */
export class PresencePublisher {
  private readonly held = new Set<string>()
  private readonly dir: string
  private readonly self: ProcessTag

  constructor(dir: string, self: ProcessTag) {
    this.dir = dir
    this.self = self
  }

  /** Publish `sessionId` as live here (idempotent). Unsafe ids are skipped. */
  publish(sessionId: string): void {
    if (this.held.has(sessionId) || !isSafeSessionId(sessionId)) return
    const path = join(this.dir, presenceName(sessionId, this.self))
    // O_EXCL|O_NOFOLLOW: never write through a planted link; EEXIST is ours already.
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600))
    } catch (error: unknown) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error
    }
    this.held.add(sessionId)
  }

  /** Withdraw `sessionId` (idempotent). */
  withdraw(sessionId: string): void {
    if (!this.held.delete(sessionId)) return
    try {
      unlinkSync(join(this.dir, presenceName(sessionId, this.self)))
    } catch {
      // Already gone.
    }
  }

  /** Whether this process published `sessionId`. */
  holds(sessionId: string): boolean {
    return this.held.has(sessionId)
  }

  /** Withdraw everything (plugin disposal, process exit). */
  withdrawAll(): void {
    for (const sessionId of [...this.held]) this.withdraw(sessionId)
  }
}
