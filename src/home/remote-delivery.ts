/**
 * The sender's side of a delivery through the home store: post the message
 * for a session held by another process (or handed to a long-lived host to
 * wake), then wait, bounded, until the store says where it is.
 *
 * The wait follows the message's row, not a file: `recorded` (with the seq
 * the target's log holds it at), `refused` (with the holder's reason), or,
 * when the bound runs out, `claimed` or `pending`. The message id is the
 * request id, so a retried call finds the message it posted first.
 *
 * @module dsh-cross-session/home/remote-delivery
 */

import type { Admitted, ControllerOutcome, ControllerPort, MailboxStage, RecordWaitOptions, ResolvedTarget } from '../ports.js'
import type { Recorded } from '../harness/recorded.js'
import type { HomeRuntime } from './runtime.js'
import type { Holder, HomeStore, StoredMessage } from './store.js'
import { isStoreFault } from './store-fault.js'
import type { MachineView } from '../model/sessions.js'

/** How long a message handed to a long-lived host may wait for that host to wake its target before the sender wakes it itself, ms. */
export const HANDOFF_GRACE_MS = 1500

/**
 * A target delivered through the store to the process `pid` (`handoff`: that long-lived host wakes it); `machine`: a
 * session of another machine (./machine-route.ts).
 */
export function remoteTarget(sessionId: string, pid: number, mayWake: boolean,
  how: { readonly handoff?: boolean, readonly runTask?: boolean, readonly machine?: MachineView } = {}): ControllerOutcome<ResolvedTarget> {
  const remote = { pid, mayWake, ...(how.handoff === true ? { handoff: true } : {}), ...(how.runTask === true ? { runTask: true } : {}),
    ...(how.machine === undefined ? {} : { machine: how.machine }) }
  return { ok: true, value: { sessionId, woke: false, running: false, remote } }
}

/**
 * Whether `holder` holds the session of a headless run's own task: it did not wake it, and it joined the store as a
 * process that is not a long-lived host (rc.8 has two hosts of a session: `dsh web`, long-lived, and the one-shot run;
 * ./run-task.ts). A process the store does not know is not judged one.
 */
export function heldForRunTask(store: Pick<HomeStore, 'isLongLived'>, holder: Holder): boolean {
  return !holder.woke && store.isLongLived(holder.tag) === false
}

/**
 * The refusal of a post that failed for another reason than a store fault (SQLite's code only: paths and raw messages
 * stay out of the model's text).
 */
function writeFailed(error: unknown): ControllerOutcome<never> {
  const code = error as { errstr?: unknown, code?: unknown } | null
  const why = typeof code?.errstr === 'string' ? code.errstr : typeof code?.code === 'string' ? code.code : 'write failed'
  return { ok: false, reason: { kind: 'store-write-failed', why } }
}

/**
 * Run one post to the store.
 * @returns its outcome, or the refusal `store-write-failed`; a store that cannot be used now is thrown, to be tried
 *   again, then refused as unavailable (home/fail-closed.ts).
 */
export function tryPost<T>(post: () => T): ControllerOutcome<T> {
  try {
    return { ok: true, value: post() }
  } catch (error: unknown) {
    if (isStoreFault(error)) throw error
    return writeFailed(error)
  }
}

/** {@link tryPost} of a post run off the event loop (`HomeStore.postOffLoop`). */
export async function tryPostOffLoop<T>(post: () => Promise<T>): Promise<ControllerOutcome<T>> {
  try {
    return { ok: true, value: await post() }
  } catch (error: unknown) {
    if (isStoreFault(error)) throw error
    return writeFailed(error)
  }
}

/**
 * Post one prompt to the store (off the event loop, `HomeStore.postOffLoop`); the message id (its request id) comes
 * back with the admission.
 */
export async function postRemote(runtime: HomeRuntime, target: ResolvedTarget,
  prompt: Parameters<ControllerPort['admit']>[1]): Promise<ControllerOutcome<Admitted>> {
  const posted = await tryPostOffLoop(() => runtime.store.postOffLoop({
    messageId: prompt.requestId,
    target: target.sessionId,
    sender: prompt.provenance.senderSessionId,
    hop: prompt.provenance.hop,
    mode: prompt.mode,
    text: prompt.text,
    mayWake: target.remote?.mayWake ?? false,
  }))
  if (!posted.ok) return posted
  if (!posted.value.ok) return { ok: false, reason: { kind: 'store-full' } }
  runtime.watch.poke()
  return { ok: true, value: { mode: prompt.mode, running: false, mailboxMessageId: posted.value.message.messageId } }
}

/** Pure: what a stored message says to its waiting sender, or `undefined` while it is still on its way. */
export function settled(message: StoredMessage | undefined): Recorded | MailboxStage | undefined {
  if (message?.state === 'recorded' && message.seq !== undefined) {
    return { seq: message.seq, stage: 'conversation', ...(message.running === undefined ? {} : { running: message.running }) }
  }
  if (message?.state === 'refused') return { stage: 'refused', reason: message.reason ?? 'unknown' }
  return undefined
}

/**
 * Wait for the message posted under `options.mailboxMessageId`.
 * @param takeOver - called when the message is not yet recorded and its target has no living holder any more (the
 * process that was waking it gave up or died, or the host it was handed to is gone): wakes it here, if the sender
 * allows waking; `undefined` for a session this process can never wake (another machine's).
 */
export async function waitRemote(runtime: HomeRuntime, options: RecordWaitOptions,
  takeOver: ((message: StoredMessage) => Promise<void>) | undefined): Promise<Recorded | MailboxStage | undefined> {
  const messageId = options.mailboxMessageId
  if (messageId === undefined) return undefined
  let tookOver = false
  const since = Date.now()
  // From a short-lived process, a long-lived host adopts the session first (it
  // answers there); the sender wakes it only if no such host is alive or it lets it wait.
  const mayTakeOver = (): boolean => runtime.isLongLived || Date.now() - since >= HANDOFF_GRACE_MS
    || runtime.store.longLivedHost() === undefined
  const found = await runtime.watch.until(() => {
    const message = runtime.store.message(messageId)
    const done = settled(message)
    if (done !== undefined || message === undefined) return done
    // Claims are only ever the holder's, so with no living holder a claim's claimer is dead too.
    if (takeOver !== undefined && !tookOver && message.mayWake && runtime.store.view(message.target).holder === undefined
      && mayTakeOver()) {
      tookOver = true
      void takeOver(message)
    }
    return undefined
  }, options.timeoutMs, options.signal)
  if (found !== undefined) return tookOver && found.stage === 'conversation' ? { ...found, takenOver: true } : found
  const message = runtime.store.message(messageId)
  return { stage: message?.state === 'claimed' ? 'claimed' : 'pending' }
}
