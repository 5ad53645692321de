/**
 * The success texts of `sessions_send`: where the message was recorded,
 * honest wording for `queue` vs `steer`, a mailbox delivery to another dsh
 * process, and the answer to a retried call.
 *
 * Source: docs/tools.md#sessions_send ("Accepted means recorded", a
 * session live in another dsh process, retries): each outcome is said as
 * it is — recorded, claimed but not yet recorded, still pending, handed
 * over, answered.
 *
 * @module dsh-cross-session/presentation/accepted
 */

import type { AnswerWait, MailboxStage, SendMode } from '../ports.js'
import type { Recorded } from '../harness/recorded.js'
import { displayId } from './common.js'
import { holderRefusals } from './send.js'
import { renderHeld, type HeldValue } from './inbound.js'

/** The value of an accepted (not held) `sessions_send` result; {@link renderAccepted} writes its text. */
export interface AcceptedValue {
  readonly kind: 'accepted'
  readonly targetId: string
  readonly mode: SendMode
  readonly chars: number
  readonly truncatedFrom?: number
  readonly hop: number
  readonly woke: boolean
  readonly running: boolean
  /** Where the message was found by the bound, if anywhere (a mailbox stage for a remote target). */
  readonly recorded?: Recorded | MailboxStage
  /** Admitted into a session live in this process with a row in the home store: it survives this process's death. */
  readonly stored?: boolean
  /**
   * Set when the target is held by another dsh process: delivered through the home store (`handoff`: that long-lived
   * host wakes it; `runTask`: it is a headless run's own task session, which takes it only after that run).
   */
  readonly remote?: { readonly pid: number, readonly handoff?: boolean, readonly runTask?: boolean }
  readonly recordWaitMs: number
  readonly waitCancelled: boolean
  /** A short-lived process that woke the target waited for the turn that took the message. */
  readonly answer?: AnswerWait
  /** `notify` was asked: `ttlMs` when a notice will come, `'unavailable'` when this host cannot watch. */
  readonly notice?: { readonly ttlMs: number } | 'unavailable'
}

const REPLY_LATER = ' Its reply will not return through this call; read it later with sessions_read.'
const STORED = ' It is delivered once; if this process ends before that session\'s log on disk holds it, '
  + 'it waits in the cross-session store under DSH_HOME and the next process that holds the session delivers it.'
const ANSWERED = ' Its answer is in that session\'s log, not in this result; read it with sessions_read.'

/** The notice line of a send with `notify` (docs/tools.md#notices). */
export function noticeLine(notice: AcceptedValue['notice']): string {
  if (notice === undefined) return ''
  if (notice === 'unavailable')
    return '\nNotice: not available in this dsh process (no cross-session store); read its answer later with sessions_read.'
  const hours = notice.ttlMs / 3_600_000
  const ttl = Number.isInteger(hours) ? `${hours} h` : `${Math.round(notice.ttlMs / 60_000)} min`
  return `\nNotice: when the turn that takes this message ends, `
    + `one notice comes to this session (expires in ${ttl}); no need to wait or poll.`
}

/** The success text (the `kind` is not needed to write it). */
export function renderAccepted(line: Omit<AcceptedValue, 'kind'>): string {
  return `${renderAcceptedBody(line)}${noticeLine(line.notice)}`
}

function renderAcceptedBody(line: Omit<AcceptedValue, 'kind'>): string {
  const chars = line.truncatedFrom === undefined ? `chars=${line.chars}` : `chars=${line.chars} (truncated from ${line.truncatedFrom})`
  const cut = line.truncatedFrom === undefined ? '' : ` Only the first ${line.chars} characters were delivered (maxSendChars).`
  const head = `accepted for ${displayId(line.targetId)} | mode=${line.mode} | ${chars} | hop ${line.hop}`
  const ending = line.answer?.ended === true ? ANSWERED : REPLY_LATER
  if (line.remote !== undefined) {
    const tail = renderRemoteTail({ pid: line.remote.pid, handoff: line.remote.handoff === true, runTask: line.remote.runTask === true,
      mode: line.mode, recorded: line.recorded,
      recordWaitMs: line.recordWaitMs, waitCancelled: line.waitCancelled })
    return `${head}${tail.head}${answerHead(line.answer)}\n${tail.body}${cut}${answerBody(line.answer)}${ending}`
  }
  const body = `${localBody(line)}${cut}${durability(line)}${answerBody(line.answer)}${ending}`
  return `${head}${localHead(line)}${answerHead(line.answer)}\n${body}`
}

function answerHead(answer: AnswerWait | undefined): string {
  if (answer === undefined) return ''
  return answer.ended ? ` | its turn ended (${answer.reason}) at seq ${answer.seq}` : ` | still answering after ${answer.waitedMs} ms`
}

function answerBody(answer: AnswerWait | undefined): string {
  if (answer === undefined || answer.ended) return ''
  return ' This dsh process is short-lived (a headless run) and ends with your turn, '
    + 'which cuts that turn off: the message stays recorded, and when that session is next woken it is asked again to answer it.'
}

function localHead(line: Omit<AcceptedValue, 'kind'>): string {
  let head = line.woke ? ' (woke a cold session)' : ''
  if (line.recorded?.stage === 'conversation') head += ` | recorded at seq ${line.recorded.seq}`
  else if (line.recorded?.stage === 'inbox') head += ` | in its inbox at seq ${line.recorded.seq}, not yet in its conversation`
  else if (line.waitCancelled) head += ' | admitted; recording not confirmed (wait cancelled)'
  else head += ` | admitted, not yet recorded after ${line.recordWaitMs} ms`
  return head
}

function localBody(line: Omit<AcceptedValue, 'kind'>): string {
  if (line.mode === 'queue') {
    return line.running
      ? 'The message is queued in that session\'s inbox; it becomes its next turn after the current one ends.'
      : 'The message is queued in that session\'s inbox and starts its next turn now (it was idle).'
  }
  return line.running
    ? 'The message was inserted into the turn that session is running now.'
    : 'That session was idle, so the steering message started a new turn.'
}

function durability(line: Omit<AcceptedValue, 'kind'>): string {
  if (line.recorded?.stage === 'conversation') return ''
  if (line.stored === true) return STORED
  const joins = line.mode === 'queue' ? 'next turn' : 'next step'
  return ` It is not durable until that session's ${joins} starts: if its process ends first, the message may be lost.`
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

/** The value of a retried call (same caller, call id and arguments): its first result, not sent again. */
export interface RetriedValue {
  readonly kind: 'retried'
  readonly first: AcceptedValue | HeldValue
}

/** The text of a retried call: its first result, and that it was not sent again. */
export function renderRetried(value: RetriedValue): string {
  // A first result held again (`(already held)`) reads `delivered`, as it always has.
  const what = value.first.kind === 'held' && !value.first.duplicate ? 'held' : 'delivered'
  const earlier = value.first.kind === 'held' ? renderHeld(value.first) : renderAccepted(value.first)
  return `${earlier}\n(This tool call, same id and arguments, was already ${what} once; it was not ${what} again.)`
}
