/**
 * The wake lease: before this package resumes a cold session it takes an
 * exclusive lease on it, so two processes racing to wake one session wake it
 * once (issue 8 §2).
 *
 * `leases/<session_id>.lease` is created with `O_CREAT|O_EXCL|O_NOFOLLOW`
 * (0600): the kernel lets exactly one creator win, and never follows a
 * planted link. The file holds the holder's tag as JSON. The holder keeps it
 * while it holds the woken session and removes it on release.
 *
 * A lease whose holder is dead (pid + start time) is stale and taken over:
 * it is first renamed to a name unique to the taker (one rename wins), then
 * the renamed file is checked to be the very lease judged stale; if a live
 * lease was moved instead (another taker replaced it in between), it is
 * linked back (`link` never overwrites). The rc.8 settings writer lock
 * (`@deepseek-ai/dsh-atomic-write` `withFileLock`, `wx` create) is the model;
 * it has no stale takeover, which a SIGKILLed holder needs here.
 *
 * @module dsh-cross-session/home/lease
 */

import { closeSync, constants, linkSync, lstatSync, openSync, readFileSync, readSync, renameSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { formatTag, isSafeSessionId, readNoFollow, sameProcess, unlinkQuietly, type ProcessTag } from './paths.js'

/** Largest lease file read, bytes. */
const MAX_LEASE_BYTES = 512

/** What a lease file holds. */
interface LeaseRecord {
  readonly pid: number
  readonly start: number
  /** Unique per acquisition, so a taker can tell two leases of one process apart. */
  readonly nonce: string
  /** Acquisition time, Unix epoch ms. */
  readonly at: number
}

/** Parse a lease file's text; `undefined` when malformed. */
export function parseLease(text: string): LeaseRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<LeaseRecord>
    if (typeof value.pid === 'number' && Number.isSafeInteger(value.pid) && value.pid > 0
      && typeof value.start === 'number' && Number.isSafeInteger(value.start)
      && typeof value.nonce === 'string' && typeof value.at === 'number') {
      return { pid: value.pid, start: value.start, nonce: value.nonce, at: value.at }
    }
  } catch {
    // Malformed: handled by the caller.
  }
  return undefined
}

/** How long a malformed lease (a writer killed between create and write) blocks, ms. */
export const MALFORMED_LEASE_GRACE_MS = 5000

/**
 * Pure verdict on an existing lease: `held` by a live process (maybe this
 * one), or `stale` (holder dead; or malformed and older than the grace).
 */
export function judgeLease(record: LeaseRecord | undefined, ageMs: number, isAlive: (tag: ProcessTag) => boolean): 'held' | 'stale' {
  if (record === undefined) return ageMs > MALFORMED_LEASE_GRACE_MS ? 'stale' : 'held'
  return isAlive({ pid: record.pid, start: record.start }) ? 'held' : 'stale'
}

/** A lease this process holds. */
export interface Lease {
  readonly sessionId: string
  /** Remove the lease if it is still ours (idempotent). */
  release(): void
}

/** Result of {@link acquireLease}. */
type LeaseResult =
  | { readonly ok: true, readonly lease: Lease }
  | { readonly ok: false, readonly holder: ProcessTag | undefined }

function readRecord(path: string): { record: LeaseRecord | undefined, text: string } | undefined {
  return readNoFollow(path, fd => {
    const buffer = Buffer.alloc(MAX_LEASE_BYTES)
    const length = readSync(fd, buffer, 0, MAX_LEASE_BYTES, 0)
    const text = buffer.subarray(0, length).toString('utf8')
    return { record: parseLease(text), text }
  })
}

/**
 * Take the wake lease on `sessionId`, or say who holds it.
 * @param dir - the `leases` directory.
 * @param self - this process's tag.
 * @param isAlive - liveness of another process's tag.
 */
export function acquireLease(dir: string, sessionId: string, self: ProcessTag, isAlive: (tag: ProcessTag) => boolean): LeaseResult {
  if (!isSafeSessionId(sessionId)) return { ok: false, holder: undefined }
  const path = join(dir, `${sessionId}.lease`)
  for (let attempt = 0; attempt < 3; attempt++) {
    const record: LeaseRecord = { pid: self.pid, start: self.start, nonce: randomBytes(8).toString('hex'), at: Date.now() }
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
      try {
        writeSync(fd, JSON.stringify(record))
      } finally {
        closeSync(fd)
      }
      return { ok: true, lease: ownedLease(path, sessionId, record) }
    } catch (error: unknown) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error
    }
    const existing = readRecord(path)
    if (existing === undefined) continue // removed meanwhile: try again
    let ageMs = 0
    try {
      ageMs = Date.now() - lstatSync(path).mtimeMs
    } catch {
      continue
    }
    const holder = existing.record === undefined ? undefined : { pid: existing.record.pid, start: existing.record.start }
    if (judgeLease(existing.record, ageMs, isAlive) === 'held') {
      // This process's own lease (another send of ours is waking it) also counts as held.
      return { ok: false, holder: holder ?? undefined }
    }
    if (!takeOver(path, existing.text, formatTag(self))) return { ok: false, holder }
  }
  return { ok: false, holder: undefined }
}

/** Move a stale lease aside; `false` when what moved was not the stale one. */
function takeOver(path: string, staleText: string, selfName: string): boolean {
  const aside = `${path}.stale-${selfName}-${randomBytes(4).toString('hex')}`
  try {
    renameSync(path, aside)
  } catch {
    return true // gone already: retry the create
  }
  let moved = ''
  try {
    moved = readFileSync(aside, 'utf8')
  } catch {
    // unreadable: treat as the stale one
    moved = staleText
  }
  if (moved === staleText) {
    unlinkQuietly(aside)
    return true
  }
  // A live lease was moved by mistake: put it back unless a new one exists.
  try {
    linkSync(aside, path)
  } catch {
    // A lease exists again; the moved one's holder will find its lease gone
    // only on release, which removes nothing of another's (see ownedLease).
  }
  unlinkQuietly(aside)
  return false
}

function ownedLease(path: string, sessionId: string, record: LeaseRecord): Lease {
  let released = false
  return {
    sessionId,
    release() {
      if (released) return
      released = true
      // Remove only our own lease: after a takeover the file may be another's.
      const current = readRecord(path)?.record
      if (current !== undefined && current.nonce === record.nonce && sameProcess(current, record)) unlinkQuietly(path)
    },
  }
}
