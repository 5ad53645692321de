/**
 * Header lines of many new logs, read in batches (one zstd context each,
 * `LogFiles.readHeaders`) with an event-loop yield between batches, so a
 * first index of a large root never blocks the host for long.
 *
 * @module dsh-cross-session/index/header-batches
 */

import type { SessionHeaderView } from '../ports.js'
import type { LogFiles } from './jsonl-files.js'
import type { ScannedLog } from './plan.js'

/** Header frames decoded per batch (one zstd context each); the loop yields between batches. */
const HEADER_BATCH = 256

/** {@link LogFiles.readHeaders} of `logs` in batches, yielding to the event loop between them; `each` gets every log and its header. */
export async function readHeaderBatches(files: LogFiles, logs: readonly ScannedLog[], signal: AbortSignal, each: (log: ScannedLog, header: SessionHeaderView | undefined) => void): Promise<void> {
  for (let start = 0; start < logs.length; start += HEADER_BATCH) {
    if (start > 0) {
      await new Promise(resolve => setImmediate(resolve))
      signal.throwIfAborted()
    }
    const batch = logs.slice(start, start + HEADER_BATCH)
    const headers = files.readHeaders(batch)
    batch.forEach((log, position) => each(log, headers[position]))
  }
}
