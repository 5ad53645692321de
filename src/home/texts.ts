/**
 * Result texts of a send delivered through the mailbox to a session live in
 * another dsh process (issue 8 §3: "The result text is honest about each
 * outcome (recorded, claimed but not yet recorded, still pending)").
 *
 * @module dsh-cross-session/home/texts
 */

import type { MailboxStage, RecordedAt, SendMode } from '../ports.js'

/** What {@link renderRemoteTail} needs. */
export interface RemoteOutcome {
  readonly pid: number
  readonly mode: SendMode
  readonly recorded: RecordedAt | MailboxStage | undefined
  readonly recordWaitMs: number
  readonly waitCancelled: boolean
}

/**
 * The head suffix and body of a mailbox delivery.
 * @returns `head` to append to `accepted for … | hop N`, and the body lines.
 */
export function renderRemoteTail(outcome: RemoteOutcome): { head: string, body: string } {
  const { recorded } = outcome
  let head = ` | live in another dsh process (pid ${outcome.pid}); delivered through the mailbox`
  if (recorded?.stage === 'conversation') head += ` | recorded at seq ${recorded.seq}`
  else if (recorded?.stage === 'inbox') head += ` | in its inbox at seq ${recorded.seq}, not yet in its conversation`
  else if (recorded?.stage === 'claimed') head += ` | claimed by that process, not yet recorded after ${outcome.recordWaitMs} ms`
  else if (recorded?.stage === 'refused') head += ` | refused by that process: ${recorded.reason}`
  else if (outcome.waitCancelled) head += ' | posted; pickup not confirmed (wait cancelled)'
  else head += ` | still pending in the mailbox after ${outcome.recordWaitMs} ms`

  const running = recorded !== undefined && 'running' in recorded ? recorded.running : undefined
  let body: string
  if (outcome.mode === 'queue') {
    body = running === true
      ? 'The message is queued in that session\'s inbox in its own process; it becomes its next turn after the current one ends.'
      : 'The message goes to that session\'s inbox in its own process and becomes its next turn (at once if it is idle).'
  } else {
    body = running === true
      ? 'The message was inserted into the turn that session is running in its own process.'
      : 'The message steers that session in its own process (an idle session starts a new turn with it).'
  }
  if (recorded?.stage === 'pending' || recorded === undefined) {
    body += ' It is kept in the mailbox under DSH_HOME: that process delivers it when it picks it up, or the next process that holds the session delivers it before any newer message.'
  } else if (recorded.stage !== 'conversation' && recorded.stage !== 'refused') {
    body += ' It is delivered once; if that process ends before recording it, the next process that holds the session delivers it.'
  }
  return { head, body }
}
