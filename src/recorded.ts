/**
 * "Accepted means recorded": find a delivered message in a session's durable
 * log, and wait (bounded) until it is there.
 *
 * Source: PRODUCT.md §4 "Accepted means recorded" — measured in rc.8, a send
 * that wakes a cold session in a one-shot headless run could return before
 * the target's log held the message, and the message was lost with the
 * process. A message counts as recorded once any log event carries its id:
 * the inbox's durable insertion (rc.8 `Inbox.append` "durably record[s] the
 * insertion") or the `user/message` event of the turn that claimed it.
 *
 * @module dsh-cross-session/recorded
 */

/** Most nested levels {@link eventCarriesMessage} descends into an event's data. */
const MAX_DEPTH = 4

/**
 * Whether one log event carries the message with id `messageId`: its `data`
 * (or something nested a few levels inside it, such as an inbox splice's
 * inserted messages) is an object whose `id` or `requestId` is `messageId`.
 * Pure; never throws on malformed events.
 */
export function eventCarriesMessage(event: unknown, messageId: string): boolean {
  if (typeof event !== 'object' || event === null) return false
  return carries((event as { data?: unknown }).data, messageId, 0)
}

function carries(value: unknown, messageId: string, depth: number): boolean {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return false
  if (Array.isArray(value)) return value.some(item => carries(item, messageId, depth + 1))
  const record = value as Record<string, unknown>
  if (record.id === messageId || record.requestId === messageId) return true
  for (const key of Object.keys(record)) {
    const nested = record[key]
    if (typeof nested === 'object' && nested !== null && carries(nested, messageId, depth + 1)) return true
  }
  return false
}

/** Seq of the first event in `events` (from index `from`) that carries the message. */
export function findRecordedSeq(events: readonly unknown[], messageId: string, from = 0): number | undefined {
  for (let index = Math.max(0, from); index < events.length; index++) {
    const event = events[index]
    if (eventCarriesMessage(event, messageId)) {
      const seq = (event as { seq?: unknown }).seq
      return typeof seq === 'number' ? seq : index
    }
  }
  return undefined
}

/** Poll interval while waiting for a message to be recorded, ms. */
export const RECORD_POLL_MS = 25

/**
 * Wait until `readEvents()` holds the message, at most `timeoutMs`.
 * Only events appended since the last look (or since `from`) are scanned. Timers are unref'd
 * so a pending wait never keeps a host process alive.
 * @returns the seq where it was recorded, or `undefined` when the bound passed
 *   (or the signal aborted, or the events could no longer be read).
 */
export async function waitUntilRecorded(
  readEvents: () => readonly unknown[] | undefined,
  messageId: string,
  options: { timeoutMs: number, signal: AbortSignal, from?: number },
): Promise<number | undefined> {
  const deadline = Date.now() + options.timeoutMs
  // The message cannot precede its admission: start at the log length then.
  let scanned = options.from ?? 0
  for (;;) {
    const events = readEvents()
    if (events === undefined) return undefined
    const seq = findRecordedSeq(events, messageId, scanned)
    if (seq !== undefined) return seq
    scanned = events.length
    const remaining = deadline - Date.now()
    if (remaining <= 0 || options.signal.aborted) return undefined
    await sleep(Math.min(RECORD_POLL_MS, remaining), options.signal)
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const onAbort = (): void => {
      clearTimeout(timer)
      resolve()
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    timer.unref?.()
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
