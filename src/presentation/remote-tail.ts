/**
 * The tail of an accepted send delivered through the store
 * (docs/tools.md#sessions_send): to a session another dsh process of this
 * home holds or wakes ({@link renderRemoteTail}), or to a session of
 * another machine on a shared store ({@link renderMachineTail},
 * docs/architecture.md §8 "Several machines"). Each says where the message
 * went, where it is by the bound, and, while it waits, what it waits for;
 * it promises only what the store said (`recorded at seq N` once the
 * holder recorded it).
 *
 * @module dsh-cross-session/presentation/remote-tail
 */

import type { MailboxStage, SendMode } from '../ports.js'
import type { Recorded } from '../harness/recorded.js'
import { holderRefusals } from './send.js'

/** What {@link renderMachineTail} needs. */
interface MachineOutcome {
  /** The machine as shown (one line, clipped: `presentation/list.ts` `shownMachine`). */
  readonly machine: { readonly name: string, readonly reachable: boolean }
  /** Cold there: posted for that machine's long-lived host to wake. */
  readonly handoff: boolean
  readonly mode: SendMode
  readonly recorded: Recorded | MailboxStage | undefined
  readonly recordWaitMs: number
  readonly waitCancelled: boolean
}

/**
 * The head suffix and body of a send to another machine's session.
 * @returns `head` to append to `accepted for … | hop N`, and the body lines.
 */
export function renderMachineTail(outcome: MachineOutcome): { head: string, body: string } {
  const { recorded, machine } = outcome
  let head = outcome.handoff
    ? ` | cold on machine ${machine.name}; posted to the shared store for a dsh host there to wake it`
    : ` | live on machine ${machine.name}; delivered through the shared store`
  if (recorded?.stage === 'conversation') head += ` | recorded at seq ${recorded.seq}`
  else if (recorded?.stage === 'inbox') head += ` | in its inbox at seq ${recorded.seq}, not yet in its conversation`
  else if (recorded?.stage === 'claimed') head += ` | claimed there, not yet recorded after ${outcome.recordWaitMs} ms`
  else if (recorded?.stage === 'refused') head += ` | refused by that machine: ${holderRefusals[recorded.reason]}`
  else if (outcome.waitCancelled) head += ' | posted; pickup not confirmed (wait cancelled)'
  else head += ` | still pending in the shared store after ${outcome.recordWaitMs} ms`
  const running = recorded !== undefined && 'running' in recorded ? recorded.running : undefined
  let body = outcome.mode === 'queue'
    ? running === true
      ? 'The message is queued in that session\'s inbox on its machine; it becomes its next turn after the current one ends.'
      : 'The message goes to that session\'s inbox on its machine and becomes its next turn (at once if it is idle).'
    : running === true
      ? 'The message was inserted into the turn that session is running on its machine.'
      : 'The message steers that session on its machine (an idle session starts a new turn with it).'
  if (recorded?.stage === 'pending' || recorded === undefined) {
    body += machine.reachable
      ? ' It waits in the shared store for a dsh process of that machine to pick it up; this call did not see it reach that session.'
      : ' No dsh process of that machine is running now: the message waits in the shared store and is delivered once one starts '
        + 'there (a long-lived host, dsh web, wakes the session); this call did not see it reach that session.'
  } else if (recorded.stage !== 'conversation' && recorded.stage !== 'refused') {
    body += ' It is delivered once; if that process ends before recording it, '
      + 'it returns to the store and the next process of that machine that holds the session delivers it.'
  }
  return { head, body }
}

/** What {@link renderRemoteTail} needs. */
interface RemoteOutcome {
  readonly pid: number
  readonly handoff: boolean
  /** The target is the session of a headless run's own task (docs/tools.md "A headless run's own task"). */
  readonly runTask?: boolean
  readonly mode: SendMode
  readonly recorded: Recorded | MailboxStage | undefined
  readonly recordWaitMs: number
  readonly waitCancelled: boolean
}

/**
 * The head suffix and body of a mailbox delivery.
 * @returns `head` to append to `accepted for … | hop N`, and the body lines.
 */
export function renderRemoteTail(outcome: RemoteOutcome): { head: string, body: string } {
  const { recorded } = outcome
  const takenOver = recorded !== undefined && 'takenOver' in recorded && recorded.takenOver === true
  let head = outcome.handoff
    ? ` | handed to the long-lived dsh process pid ${outcome.pid} on this home, which wakes it; delivered through the mailbox`
    : outcome.runTask === true
      ? ` | the task session of a headless run (pid ${outcome.pid}), which takes no peer message while it runs; `
      + 'delivered through the mailbox'
      : ` | live in another dsh process (pid ${outcome.pid}); delivered through the mailbox`
  if (takenOver) head = ` | ${outcome.handoff
    ? `handed to the dsh process pid ${outcome.pid}, which did not take it up`
    : `held by the dsh process pid ${outcome.pid}, which let it go`}; woken in this process and delivered through the mailbox`
  if (recorded?.stage === 'conversation') head += ` | recorded at seq ${recorded.seq}`
  else if (recorded?.stage === 'inbox') head += ` | in its inbox at seq ${recorded.seq}, not yet in its conversation`
  else if (recorded?.stage === 'claimed') head += ` | claimed by that process, not yet recorded after ${outcome.recordWaitMs} ms`
  else if (recorded?.stage === 'refused') head += ` | refused by that process: ${holderRefusals[recorded.reason]}`
  else if (outcome.waitCancelled) head += ' | posted; pickup not confirmed (wait cancelled)'
  else if (outcome.runTask === true && !takenOver) head += ' | pending in the mailbox until that run has ended'
  else head += ` | still pending in the mailbox after ${outcome.recordWaitMs} ms`
  const where = takenOver ? 'in this process' : outcome.handoff ? 'in that process once it has woken it' : 'in its own process'

  const running = recorded !== undefined && 'running' in recorded ? recorded.running : undefined
  let body: string
  if (outcome.mode === 'queue') {
    body = running === true
      ? `The message is queued in that session's inbox ${where}; it becomes its next turn after the current one ends.`
      : `The message goes to that session's inbox ${where} and becomes its next turn (at once if it is idle).`
  } else {
    body = running === true
      ? `The message was inserted into the turn that session is running ${where}.`
      : `The message steers that session ${where} (an idle session starts a new turn with it).`
  }
  if (outcome.runTask === true && !takenOver && (recorded?.stage === 'pending' || recorded === undefined)) {
    body = 'That run prints only its own task\'s answer, so the message waits in the cross-session store under DSH_HOME '
      + 'and becomes that session\'s next turn once the run has ended (the next process that holds the session delivers it); '
      + 'this call did not see it reach that session.'
  } else if (recorded?.stage === 'pending' || recorded === undefined) {
    body += ' It waits in the cross-session store under DSH_HOME for that process, or the next process that holds the session, '
      + 'to pick it up; this call did not see it reach that session.'
  } else if (recorded.stage !== 'conversation' && recorded.stage !== 'refused') {
    body += ' It is delivered once; if that process ends before recording it, '
      + 'it returns to the store and the next process that holds the session delivers it.'
  }
  return { head, body }
}
