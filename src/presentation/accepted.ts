/**
 * The success texts of `sessions_send` (docs/tools.md#sessions_send,
 * "Accepted means recorded", a session live in another dsh process or on
 * another machine, retries): honest wording for `queue` vs `steer`, and
 * each outcome said as it is — recorded, claimed but not yet recorded,
 * still pending, handed over, answered.
 *
 * @module dsh-cross-session/presentation/accepted
 */

import type { AnswerWait, MailboxStage, SendMode } from '../ports.js'
import type { Recorded } from '../harness/recorded.js'
import { displayId } from './common.js'
import { renderMachineTail, renderRemoteTail } from './remote-tail.js'
import { renderHeld, type HeldValue } from './inbound.js'

/**
 * Where a message delivered through the store went: another dsh process of this home (`pid`), or a session of
 * another machine (docs/architecture.md §8 "Several machines": its machine as a list row shows it, no pid).
 */
export type ShownRemote =
  | { readonly pid: number, readonly handoff?: boolean, readonly runTask?: boolean }
  | { readonly machine: { readonly name: string, readonly reachable: boolean }, readonly handoff?: boolean }

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
  readonly remote?: ShownRemote
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
    const { remote } = line
    const tail = 'pid' in remote
      ? renderRemoteTail({ pid: remote.pid, handoff: remote.handoff === true, runTask: remote.runTask === true,
          mode: line.mode, recorded: line.recorded, recordWaitMs: line.recordWaitMs, waitCancelled: line.waitCancelled })
      : renderMachineTail({ machine: remote.machine, handoff: remote.handoff === true, mode: line.mode, recorded: line.recorded,
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
