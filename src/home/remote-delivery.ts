/**
 * The sender's side of a mailbox delivery (issue 8 §3): post the message for
 * a session live in another dsh process, then wait, bounded, for that
 * process's receipt, else say whether it was claimed or is still pending.
 *
 * @module dsh-cross-session/home/remote-delivery
 */

import { join } from 'node:path'
import type { Admitted, ControllerOutcome, ControllerPort, MailboxStage, RecordWaitOptions, ResolvedTarget } from '../ports.js'
import { deliveryReasons } from '../presentation/send.js'
import type { Recorded } from '../recorded.js'
import { newMessageId, parseReceipt, postMessage, readBounded } from './mailbox.js'
import { unlinkQuietly, type HomeLayout } from './paths.js'
import { waitInDirectory } from './watch.js'

/** Fallback poll while a sender waits for a receipt, ms. */
const RECEIPT_POLL_MS = 100

/** Post one prompt to the mailbox; the message id comes back with the admission. */
export function postRemote(layout: HomeLayout, target: ResolvedTarget, prompt: Parameters<ControllerPort['admit']>[1]): ControllerOutcome<Admitted> {
  const messageId = newMessageId()
  try {
    postMessage(layout.mailbox, {
      v: 1,
      messageId,
      sessionId: target.sessionId,
      requestId: prompt.requestId,
      fromSessionId: prompt.provenance.senderSessionId,
      hop: prompt.provenance.hop,
      mode: prompt.mode,
      text: prompt.text,
      createdAt: Date.now(),
    })
  } catch (error: unknown) {
    // The file system's code only: paths and raw messages stay out of the model's text.
    const code = (error as { code?: unknown } | null)?.code
    // Errors without a code are this package's own (size bound, unsafe id) and safe to show.
    const why = typeof code === 'string' ? code : error instanceof Error ? error.message : 'write failed'
    return { ok: false, reason: deliveryReasons.mailboxWriteFailed(why) }
  }
  return { ok: true, value: { mode: prompt.mode, running: false, mailboxMessageId: messageId } }
}

/** Wait for the receipt of the message posted under `options.mailboxMessageId`. */
export async function waitRemote(layout: HomeLayout, target: ResolvedTarget, options: RecordWaitOptions): Promise<Recorded | MailboxStage | undefined> {
  const messageId = options.mailboxMessageId
  if (messageId === undefined) return undefined
  const receiptPath = join(layout.receipts, `${messageId}.json`)
  const receipt = await waitInDirectory(layout.receipts, () => parseReceipt(readBounded(receiptPath)), {
    timeoutMs: options.timeoutMs,
    pollMs: RECEIPT_POLL_MS,
    signal: options.signal,
  })
  if (receipt !== undefined) {
    unlinkQuietly(receiptPath)
    if ((receipt.stage === 'conversation' || receipt.stage === 'inbox') && receipt.seq !== undefined) {
      return { seq: receipt.seq, stage: receipt.stage, running: receipt.running }
    }
    return receipt.stage === 'refused' ? { stage: 'refused', reason: receipt.reason ?? 'no reason given' } : { stage: 'claimed' }
  }
  const pending = readBounded(join(layout.mailbox, `${target.sessionId}~${messageId}.msg`)) !== undefined
  return { stage: pending ? 'pending' : 'claimed' }
}
