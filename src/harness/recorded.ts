/**
 * "Accepted means recorded": find a delivered message in a session's durable
 * log, and wait (bounded) until it is there.
 *
 * The rule: docs/tools.md#sessions_send, "Accepted means recorded". Why:
 * measured in rc.8, a send
 * that wakes a cold session in a one-shot headless run could return before
 * the target's log held the message, and the message was lost with the
 * process. Measured again end to end: the inbox insertion
 * (`agent/inbox/spliced`) is written at once, but a session torn down before
 * its next step splices the message back out and never sees it. So a message
 * counts as *recorded* only once its own `user/message` event (the message
 * id is the request id) is in the log — the step that claims it has started;
 * an inbox-only record is reported as such.
 *
 * @module dsh-cross-session/harness/recorded
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
  // `rpcId`: the 0.1.2-alpha.2 controller's prompt() gives the message a
  // fresh id and records the request id as `source.rpcId`
  // (`@deepseek-ai/dsh-api-session-controller@0.1.2-alpha.2` lib/index.js
  // `SessionCommandController.prompt`).
  if (record.id === messageId || record.requestId === messageId || record.rpcId === messageId) return true
  for (const key of Object.keys(record)) {
    const nested = record[key]
    if (typeof nested === 'object' && nested !== null && carries(nested, messageId, depth + 1)) return true
  }
  return false
}

/** Where a delivered message was found: in the conversation, or only in the inbox. */
export interface Recorded {
  readonly seq: number
  /**
   * `conversation`: a `user/message` event with the message id — part of the
   * target's history, replayed on resume. `inbox`: only the durable inbox
   * insertion — measured in rc.8, a session torn down before its next step
   * splices it back out, so it is not yet durable.
   */
  readonly stage: 'conversation' | 'inbox'
  /** For a mailbox delivery: whether the target was running a turn when its process admitted it. */
  readonly running?: boolean
  /** For a mailbox delivery: nobody living held the target any more, so the sender's process woke it and delivered it. */
  readonly takenOver?: boolean
}

/**
 * Whether an event is the message's own `user/message` (it joined the
 * conversation): its id is `messageId`, or its source's `rpcId` is (a
 * message admitted through the 0.1.2-alpha.2 controller's `prompt`, which
 * writes `source: { kind: 'user', rpcId: <requestId> }` under a fresh id;
 * lib/index.js `SessionCommandController.prompt`).
 */
function isConversationRecord(event: unknown, messageId: string): boolean {
  if (typeof event !== 'object' || event === null) return false
  const { type, data } = event as { type?: unknown, data?: { id?: unknown, source?: { rpcId?: unknown } | null } | null }
  if (type !== 'user/message' || typeof data !== 'object' || data === null) return false
  return data.id === messageId || (typeof data.source === 'object' && data.source !== null && data.source.rpcId === messageId)
}

function seqOf(event: unknown, index: number): number {
  const seq = (event as { seq?: unknown }).seq
  return typeof seq === 'number' ? seq : index
}

/**
 * Scan `events` from index `from`: the conversation record if present, else
 * the first inbox record, else `undefined`.
 */
export function findRecorded(events: readonly unknown[], messageId: string, from = 0): Recorded | undefined {
  let inbox: Recorded | undefined
  for (let index = Math.max(0, from); index < events.length; index++) {
    const event = events[index]
    if (isConversationRecord(event, messageId)) return { seq: seqOf(event, index), stage: 'conversation' }
    if (inbox === undefined && eventCarriesMessage(event, messageId)) inbox = { seq: seqOf(event, index), stage: 'inbox' }
  }
  return inbox
}

/** First poll interval while waiting for a message to be recorded, ms; it doubles up to {@link RECORD_POLL_MAX_MS}. */
const RECORD_POLL_MS = 25
/**
 * Longest poll interval, ms. With doubling, a wait of the default 5,000 ms
 * reads the log about 14 times, where a fixed 25 ms interval would read it
 * (and call `agents.get`) about 200 times (docs/performance.md,
 * "Controller-line host and frame parsing"). A recorded message ends the
 * wait at the first look.
 */
const RECORD_POLL_MAX_MS = 500

/**
 * Wait until `readEvents()` holds the message in the conversation, at most
 * `timeoutMs`; with `settleForInbox`, return as soon as the inbox holds it
 * (a queued message to a busy session joins the conversation only when its
 * current turn ends). Only events appended since the last look (or since
 * `from`) are scanned. With `appended` (the session's own events,
 * `harness/session-events.ts`) it looks again at each append, with
 * {@link RECORD_POLL_MAX_MS} as a backstop only; without it, it polls from
 * {@link RECORD_POLL_MS} doubling. Timers are unref'd so a pending wait
 * never keeps a host process alive.
 * @returns the best record seen by the bound (conversation, else inbox), or
 *   `undefined` when the log holds neither (or could no longer be read).
 */
export async function waitUntilRecorded(
  readEvents: () => readonly unknown[] | undefined,
  messageId: string,
  options: {
    timeoutMs: number
    signal: AbortSignal
    from?: number
    settleForInbox?: boolean
    appended?: (timeoutMs: number, signal: AbortSignal) => Promise<unknown>
  },
): Promise<Recorded | undefined> {
  const deadline = Date.now() + options.timeoutMs
  // The message cannot precede its admission: start at the log length then.
  let scanned = options.from ?? 0
  let inbox: Recorded | undefined
  let interval = RECORD_POLL_MS
  for (;;) {
    const events = readEvents()
    if (events === undefined) return inbox
    const found = findRecorded(events, messageId, scanned)
    if (found?.stage === 'conversation') return found
    inbox ??= found
    if (inbox !== undefined && options.settleForInbox === true) return inbox
    scanned = events.length
    const remaining = deadline - Date.now()
    if (remaining <= 0 || options.signal.aborted) return inbox
    if (options.appended !== undefined) {
      await options.appended(Math.min(RECORD_POLL_MAX_MS, remaining), options.signal)
      continue
    }
    await sleep(Math.min(interval, remaining), options.signal)
    interval = Math.min(interval * 2, RECORD_POLL_MAX_MS)
  }
}

/** An unref'd pause of `ms`, cut short by `signal` (never rejects). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
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
