/**
 * The owner's side of a mailbox delivery (issue 8 §3): admit a claimed
 * message into the live session here, then write its receipt once the log
 * holds it (or the bound runs out), so the sender can say what happened.
 *
 * @module dsh-cross-session/home/owner-delivery
 */

import { renameSync } from 'node:fs'
import { join } from 'node:path'
import { relayMessage } from '../adapters/controller.js'
import type { HostAgents } from '../host.js'
import { mailboxRefusals } from '../presentation/send.js'
import { findRecorded, waitUntilRecorded } from '../recorded.js'
import { parseMessage, readBounded, writeReceipt, type MailboxEntry, type MailboxReceipt } from './mailbox.js'
import { unlinkQuietly, type HomeLayout } from './paths.js'

/** How long the owner waits for a delivered message to be recorded before writing its receipt anyway, ms. */
const OWNER_RECORD_WAIT_MS = 30_000

/** What the owner's delivery needs from its runtime. */
interface Owner {
  readonly layout: HomeLayout
  readonly agents: HostAgents
  readonly log: (message: string) => void
  /** The runtime's lifetime: a stop ends the wait for the record. */
  readonly signal: AbortSignal
}

/** Admit one claimed message (file `claimedName`) into `sessionId`, live here. */
export function admitClaimed(owner: Owner, sessionId: string, entry: MailboxEntry, claimedName: string): void {
  const path = join(owner.layout.mailbox, claimedName)
  const parsed = parseMessage(readBounded(path))
  const refuse = (reason: string): void => {
    receipt(owner, { v: 1, messageId: entry.messageId, stage: 'refused', running: false, reason, at: Date.now() })
    unlinkQuietly(path)
    owner.log(`mailbox message ${entry.messageId} for ${sessionId} refused: ${reason}`)
  }
  if (!parsed.ok) return refuse(parsed.reason)
  const message = parsed.message
  if (message.sessionId !== sessionId || message.messageId !== entry.messageId) return refuse(mailboxRefusals.misaddressed)
  const agent = owner.agents.get(sessionId)
  if (agent === undefined) {
    // Went cold between claim and admission: put it back for the next holder.
    try {
      renameSync(path, join(owner.layout.mailbox, `${sessionId}~${entry.messageId}.msg`))
    } catch {
      // Left claimed by this process; re-claimed once this process is gone.
    }
    return
  }
  const running = agent.status === 'running'
  if (findRecorded(agent.session.events, message.requestId) === undefined) {
    // The sender's recorded provenance becomes the relay source, as for a local send (issue 11 §5).
    const delivered = relayMessage(message.requestId, message.text, { senderSessionId: message.fromSessionId, hop: message.hop })
    if (message.mode === 'queue') agent.followup(delivered)
    else agent.steer(delivered)
  }
  void confirm(owner, sessionId, message.requestId, entry.messageId, path, { running, settleForInbox: message.mode === 'queue' && running })
}

async function confirm(owner: Owner, sessionId: string, requestId: string, messageId: string, path: string, at: { running: boolean, settleForInbox: boolean }): Promise<void> {
  const found = await waitUntilRecorded(() => owner.agents.get(sessionId)?.session.events, requestId, {
    timeoutMs: OWNER_RECORD_WAIT_MS,
    signal: owner.signal,
    from: 0,
    settleForInbox: at.settleForInbox,
  })
  // Stopping before it was recorded: leave the claim, so the next holder
  // re-claims it (the log check then prevents a second delivery).
  if (owner.signal.aborted && found?.stage !== 'conversation') return
  receipt(owner, {
    v: 1,
    messageId,
    stage: found?.stage ?? 'admitted',
    ...(found === undefined ? {} : { seq: found.seq }),
    running: at.running,
    at: Date.now(),
  })
  unlinkQuietly(path)
}

function receipt(owner: Owner, receipt: MailboxReceipt): void {
  try {
    writeReceipt(owner.layout.receipts, receipt)
  } catch (error: unknown) {
    owner.log(`writing the receipt of ${receipt.messageId} failed: ${String(error)}`)
  }
}
