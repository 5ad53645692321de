/**
 * How big the home store gets, and whether its sweep keeps it bounded
 * (docs/architecture.md §8: recorded and refused messages are kept
 * `RETAIN_MS`, then dropped by `sweep`).
 *
 * One process on a temporary `DSH_HOME` plays both sides through the store
 * port, as the two processes of a delivery would: it holds the target live
 * (`markLive`), posts each message (`post`, as a sender), and, as its
 * holder does when it notices them, claims what is pending (`claim`, at most
 * {@link CLAIM_EVERY} at a time: a burst), records each at its seq
 * (`record`) and marks them answered at the turn's end (`answered`). The
 * texts are real frames (src/framing.ts) of a short body.
 *
 * After a batch: bytes on disk (`store.bytes()`: database + WAL), rows by
 * table and state, read through a second, read-only connection to the same
 * file; then `sweep` at the real time (nothing is older than the retention:
 * nothing may go), then `sweep` one retention later (every recorded message
 * must go). A second batch then shows whether the space the sweep freed is
 * used again.
 *
 * @module bench/home/store-size
 */

import { mkdtempSync, rmSync, statSync } from 'node:fs'
import type { DatabaseSync } from 'node:sqlite'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildFrame } from '../../src/framing.js'
import { isAlive, selfTag } from '../../src/harness/process-tag.js'
import { RETAIN_MS } from '../../src/home/runtime.js'
import { openHomeStore, storePaths } from '../../src/home/store-open.js'
import { countStore, perItem, type StoreCounts } from './instrument.js'

/** Most messages posted before the holder claims (one claim takes them all, as after a burst). */
export const CLAIM_EVERY = 16

/** Bytes of the store's files. */
export interface StoreBytes {
  db: number
  wal: number
  /** `store.bytes()`: database + WAL. */
  total: number
}

/** Rows in the store, by table (messages by state). */
export interface StoreRows {
  pending: number
  claimed: number
  recorded: number
  refused: number
  holders: number
  processes: number
  /** Pages of the database file, and how many of them are free (reusable). */
  pages: number
  freePages: number
}

/** One batch of messages through the store. */
export interface StoreBatch {
  messages: number
  /** Wall time of the batch (posts, claims, records, answers), ms. */
  ms: number
  /** What the batch asked of the store, per message. */
  perMessage: StoreCounts
  full: { bytes: StoreBytes, rows: StoreRows }
  /** `sweep(now, RETAIN_MS)`: messages dropped (none is older than the retention). */
  droppedNow: number
  /** `sweep(now + RETAIN_MS + 1, RETAIN_MS)`: messages dropped, and its wall time, ms. */
  droppedLater: number
  sweepMs: number
  swept: { bytes: StoreBytes, rows: StoreRows }
}

/** Result of {@link runStoreSizeBench}. */
export interface StoreSizeResult {
  textChars: number
  batches: StoreBatch[]
}

function bytesOf(file: string, total: number): StoreBytes {
  const size = (path: string): number => {
    try {
      return statSync(path).size
    } catch {
      return 0
    }
  }
  return { db: size(file), wal: size(`${file}-wal`), total }
}

function rowsOf(reader: DatabaseSync): StoreRows {
  const count = (sql: string): number => Number((reader.prepare(sql).get() as { n: number }).n)
  const states = Object.fromEntries((reader.prepare('SELECT state, COUNT(*) AS n FROM messages GROUP BY state').all() as Array<{ state: string, n: number }>).map(row => [row.state, Number(row.n)]))
  return {
    pending: states.pending ?? 0,
    claimed: states.claimed ?? 0,
    recorded: states.recorded ?? 0,
    refused: states.refused ?? 0,
    holders: count('SELECT COUNT(*) AS n FROM holders'),
    processes: count('SELECT COUNT(*) AS n FROM processes'),
    pages: count('SELECT page_count AS n FROM pragma_page_count()'),
    freePages: count('SELECT freelist_count AS n FROM pragma_freelist_count()'),
  }
}

/** Run the bench: `batches` batches of `messages` messages each. */
export async function runStoreSizeBench(options: { messages: number, batches: number, log: (line: string) => void }): Promise<StoreSizeResult> {
  const home = mkdtempSync(join(tmpdir(), 'xs-bench-store-'))
  const { file } = storePaths(home)
  const counted = countStore(openHomeStore(home, selfTag(), isAlive, options.log))
  const { store } = counted
  const sqlite = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite')
  const reader = new sqlite.DatabaseSync(file, { readOnly: true })
  const target = 'session-bench-store-target'
  const sender = 'session-bench-store-sender'
  const body = 'Please re-run the failing migration check and report what changed since the last green build; keep it short.'
  const textChars = buildFrame({ fromSessionId: sender, fromTitle: 'Store size bench sender', mode: 'queue', hop: 1, body }).text.length
  try {
    store.join(true)
    if (!store.markLive(target).ok) throw new Error('bench: could not hold the store bench target')
    const batches: StoreBatch[] = []
    let seq = 0
    for (let batch = 0; batch < options.batches; batch++) {
      options.log(`store size: batch ${batch + 1}, ${options.messages} messages posted, claimed, recorded, answered`)
      counted.reset()
      const started = performance.now()
      let pending = 0
      for (let index = 0; index < options.messages; index++) {
        const messageId = `cross-session:${sender}:call_${batch}_${index}:${index.toString(16).padStart(16, '0')}`
        const text = buildFrame({ fromSessionId: sender, fromTitle: 'Store size bench sender', mode: 'queue', hop: 1, body }).text
        const posted = store.post({ messageId, target, sender, hop: 1, mode: 'queue', text, mayWake: true })
        if (!posted.ok || posted.duplicate) throw new Error(`bench: post ${index} refused or duplicate`)
        if (++pending < CLAIM_EVERY && index < options.messages - 1) continue
        pending = 0
        for (const message of store.claim(target)) {
          if (!store.record(message.messageId, ++seq, false)) throw new Error(`bench: ${message.messageId} not recorded`)
        }
        store.answered(target, ++seq)
      }
      const ms = performance.now() - started
      const perMessage = perItem(counted.counts(), options.messages)
      const full = { bytes: bytesOf(file, store.bytes()), rows: rowsOf(reader) }
      const droppedNow = store.sweep(Date.now(), RETAIN_MS)
      const sweepStarted = performance.now()
      const droppedLater = store.sweep(Date.now() + RETAIN_MS + 1, RETAIN_MS)
      const sweepMs = performance.now() - sweepStarted
      batches.push({ messages: options.messages, ms, perMessage, full, droppedNow, droppedLater, sweepMs, swept: { bytes: bytesOf(file, store.bytes()), rows: rowsOf(reader) } })
    }
    return { textChars, batches }
  } finally {
    reader.close()
    store.leave('released')
    store.close()
    rmSync(home, { recursive: true, force: true })
  }
}

/** Markdown lines above the table. */
export function storeSizeNotes(result: StoreSizeResult): string[] {
  return [`Store size: the real \`SqliteHomeStore\` on a temporary home, ${result.batches.length} batches of ${result.batches[0]?.messages.toLocaleString('en-US') ?? 0} messages (frames of ${result.textChars} chars), each posted, claimed after every ${CLAIM_EVERY} posts, recorded and answered; then \`sweep\` at the real time and one retention (${RETAIN_MS / 60_000} min) later. Bytes are \`store.bytes()\` (database + WAL); rows and pages through a second, read-only connection.`]
}
