/**
 * A message admitted into a session live in the sending process, with a row
 * in the home store (docs/architecture.md §8, "Delivery from the log").
 *
 * The row is posted already claimed by this process, in one transaction,
 * just before the admission (`followup` / `steer` through the inner port),
 * and the holder awaits it like a message it claimed: recorded once the log
 * holding it is on disk, back to `pending` if its insertion is cancelled or
 * this process dies first, so the next holder delivers it once, in posting
 * order (`home/owner-delivery.ts` `admitClaimed`). So a message accepted for
 * a session live here survives this process's death like one sent from
 * another process, and keeps its place behind what its sender posted
 * earlier. A message waiting in the store for the target, not yet claimed
 * here, is delivered first: the holder drains it, then the row is posted.
 *
 * One store transaction per admission (the post); the record is the
 * holder's, as for every stored message.
 *
 * @module dsh-cross-session/home/local-delivery
 */

import type { Admitted, AdmitPrompt, ControllerOutcome, ControllerPort, ResolvedTarget } from '../ports.js'
import { tryPost } from './remote-delivery.js'
import type { HomeRuntime } from './runtime.js'
import type { NewMessage } from './store.js'
import { retryInBackground, waitOutLock } from './store-retry.js'

/**
 * Admit `prompt` into `target`, live here, through `inner`; with a store row
 * when this process holds the target in the store (else as the inner port
 * does, no row: a session the store has not taken yet, docs/architecture.md
 * §8 "What remains unprotected").
 * @returns the inner port's admission (`stored: true` with a row), or the
 *   refusal `store-full` / `store-write-failed`; a store fault is thrown
 *   (`home/fail-closed.ts` tries again, then refuses).
 */
export async function admitLocal(runtime: HomeRuntime, inner: ControllerPort, target: ResolvedTarget, prompt: AdmitPrompt,
  log: (message: string) => void): Promise<ControllerOutcome<Admitted>> {
  const { store } = runtime
  const sessionId = target.sessionId
  const message: NewMessage = {
    messageId: prompt.requestId, target: sessionId, sender: prompt.provenance.senderSessionId, hop: prompt.provenance.hop,
    mode: prompt.mode, text: prompt.text, mayWake: prompt.mayWake ?? false,
  }
  if (runtime.awaited(sessionId) === undefined) return await inner.admit(target, prompt)
  // A drain under way may have claimed messages it has not admitted yet (its claim runs off the event loop): it ends
  // first. Nothing runs between the end of the drains queued so far and the post below.
  await runtime.drain(sessionId)
  if (runtime.awaited(sessionId) === undefined) return await inner.admit(target, prompt)
  let posted = tryPost(() => store.postClaimed(message, 'wait'))
  if (posted.ok && !posted.value.ok && posted.value.reason === 'behind') {
    // What waits for the target goes first (per-target posting order); one the holder could not admit now is passed.
    await runtime.drain(sessionId)
    if (runtime.awaited(sessionId) === undefined) return await inner.admit(target, prompt)
    posted = tryPost(() => store.postClaimed(message, 'jump'))
  }
  if (!posted.ok) return posted
  if (!posted.value.ok) return { ok: false, reason: { kind: 'store-full' } }
  // The same request id posted before (a retried call): that row is delivered (still waiting: by the drain here), never a second.
  if (posted.value.duplicate) {
    void runtime.drain(sessionId)
    return { ok: true, value: { mode: prompt.mode, running: target.running, stored: true } }
  }
  // Awaited before the admission (nothing runs in between): the holder's next look at the log finds its `user/message`.
  runtime.awaited(sessionId)?.add(message.messageId)
  let admitted: ControllerOutcome<Admitted>
  try {
    admitted = await inner.admit(target, prompt)
  } catch (error: unknown) {
    await notAdmitted(runtime, sessionId, message.messageId, log)
    throw error
  }
  // Refused: nothing was delivered, so no row stays (dropped before the refusal is answered).
  if (!admitted.ok) await notAdmitted(runtime, sessionId, message.messageId, log)
  return admitted.ok ? { ok: true, value: { ...admitted.value, stored: true } } : admitted
}

/**
 * Drop the row of a message that was not admitted. A lock is waited out
 * (`home/store-retry.ts` `waitOutLock`, up to 2 s); past it (or with the
 * store down) the drop goes on in the background, and until it lands the row is this live process's
 * claim, which no other process delivers (docs/architecture.md §8, "What
 * remains unprotected": only this process dying before the drop lands would
 * hand it back to `pending`).
 */
async function notAdmitted(runtime: HomeRuntime, sessionId: string, messageId: string, log: (message: string) => void): Promise<void> {
  runtime.awaited(sessionId)?.delete(messageId)
  const drop = (): void => runtime.store.unpost(messageId)
  try {
    await waitOutLock(drop)
  } catch (error: unknown) {
    log(`dropping the row of ${messageId}, which was not admitted, is still failing (${String(error)}); trying in the background`)
    try {
      retryInBackground(drop, () => true, log)
    } catch (again: unknown) {
      log(`dropping the row of ${messageId}, which was not admitted, failed: ${String(again)}`)
    }
  }
}
