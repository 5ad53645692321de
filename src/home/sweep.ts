/**
 * Sweep old leftovers of the home at start-up (issue 8 §1: stale entries
 * never block; this only keeps the directories small): presence entries of
 * dead processes once the open-turn exemption no longer needs them, receipts
 * no sender read, and abandoned temp or moved-aside files. Each is removed
 * only past its age bound, judged by a pure function.
 *
 * @module dsh-cross-session/home/sweep
 */

import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { OPEN_TURN_RECENT_MS } from './open-turn.js'
import { readEntries, unlinkQuietly, type HomeLayout } from './paths.js'
import { readBoard } from './presence.js'
import { isAlive } from './process-tag.js'

/** Stale presence entries older than this are swept at start (the open-turn exemption no longer needs them), ms. */
export const STALE_PRESENCE_SWEEP_MS = OPEN_TURN_RECENT_MS
/** Receipts nobody read (the sender gave up) are swept after this, ms. */
export const RECEIPT_SWEEP_MS = 24 * 60 * 60_000

/** Pure: whether a leftover may be swept. */
export function sweepable(kind: 'presence-stale' | 'receipt' | 'temp', ageMs: number): boolean {
  if (kind === 'presence-stale') return ageMs > STALE_PRESENCE_SWEEP_MS
  if (kind === 'receipt') return ageMs > RECEIPT_SWEEP_MS
  return ageMs > 60 * 60_000
}

function ageOf(path: string, now: number): number | undefined {
  try {
    return now - lstatSync(path).mtimeMs
  } catch {
    return undefined
  }
}

/** Remove old leftovers: dead processes' presence, unread receipts, abandoned temp files. */
export function sweep(layout: HomeLayout, now: number): void {
  const remove = (dir: string, name: string, kind: 'presence-stale' | 'receipt' | 'temp'): void => {
    const path = join(dir, name)
    const age = ageOf(path, now)
    if (age !== undefined && sweepable(kind, age)) unlinkQuietly(path)
  }
  for (const entry of readBoard(layout.presence)) if (!isAlive(entry.holder)) remove(layout.presence, entry.name, 'presence-stale')
  for (const dir of [layout.mailbox, layout.receipts, layout.leases]) {
    for (const name of readEntries(dir, name => name)) {
      if (name.startsWith('.tmp-') || name.includes('.stale-')) remove(dir, name, 'temp')
      else if (dir === layout.receipts) remove(dir, name, 'receipt')
    }
  }
}
