/**
 * `sessions_send`'s refusals, and the reasons the delivery path gives when
 * the controller, the cross-process guard or the open-turn check refuses.
 *
 * Source: docs/tools.md#refusals-and-their-order (each code's next step),
 * docs/architecture.md §8 (the home store, open turns), and what to do per
 * controller `RemoteError` code (`@deepseek-ai/dsh-api-session-controller`
 * 0.1.2-alpha.2 `RemoteErrorDetailsMap`).
 *
 * @module dsh-cross-session/presentation/send
 */

import { clipLine, oneLine } from '../core/text.js'
import type { DeliveryReason, HolderRefusal, ReleaseOutcome } from '../ports.js'
import type { SendRefusal } from '../refusals.js'
import { failureText } from './failures.js'
import { commonRefusals, shownId, type Refusal } from './common.js'
import { TOOL_NAMES } from '../model/tool-names.js'
import { inboundRefused } from './inbound.js'

/** Refusals only `sessions_send` returns. */
export const sendRefusals = {
  notMessageable: (sessionId: string, owner: string | undefined): Refusal => ({
    code: 'not-messageable',
    cause: owner === undefined
      ? `${shownId(sessionId)} is a subagent session`
      : `${shownId(sessionId)} is a subagent session owned by ${shownId(owner)}`,
    next: 'It is owned by another agent; there is no supported way to message it from here.'
      + (owner === undefined ? '' : ` You may message its owner ${shownId(owner)} instead.`),
  }),
  resumeDisabled: (sessionId: string): Refusal => ({
    code: 'resume-disabled',
    cause: `${shownId(sessionId)} is cold and waking sessions is disabled (allowResume: false)`,
    next: 'The session was left untouched; either target a live session or ask the user to enable waking.',
  }),
  emptyBody: (): Refusal => ({
    code: 'empty-body',
    cause: 'the message is empty after trimming white space',
    next: 'Supply a body.',
  }),
  selfTarget: (sessionId: string): Refusal => ({
    code: 'self-target',
    cause: `${shownId(sessionId)} is this session; a session cannot message itself`,
    next: 'Pick a peer id from sessions_list (this session is the row marked "this session").',
  }),
  hopLimit: (hop: number, maxHops: number, chain: string): Refusal => ({
    code: 'rate-limited',
    cause: `this would be hop ${hop} of a relay chain limited to ${maxHops} hops (chain: ${clipLine(oneLine(chain), 400)})`,
    next: 'Stop relaying: answer from what you have and report to your user instead of messaging another session.',
  }),
  pairRate: (target: string, count: number, perMinute: number, retryInMs: number): Refusal => ({
    code: 'rate-limited',
    cause: `${count} messages were already sent to ${shownId(target)} in the last minute (limit ${perMinute} per minute)`,
    next: `Wait about ${Math.ceil(retryInMs / 1000)} s, or combine what you have into one message.`,
  }),
  duplicate: (target: string, agoMs: number): Refusal => ({
    code: 'rate-limited',
    cause: `the same message was already delivered to ${shownId(target)} ${Math.max(1, Math.round(agoMs / 1000))} s ago`,
    next: 'It is not delivered twice. Read the target with sessions_read to see whether it answered.',
  }),
  /** The home store could not be used: nothing that depends on another process's state is done (docs/architecture.md §8). */
  storeUnavailable: (why: string): Refusal => ({
    code: 'rejected',
    cause: `the cross-session store is unavailable (${clipLine(oneLine(why), 120)})`,
    next: 'No session was woken. Try again shortly; if it keeps failing, tell your user (the store is cross-session/store.sqlite under DSH_HOME).',
  }),
  /** A delivery step failed; `reason` is this package's own text or a failure-table row. */
  rejected: (reason: string, step: string): Refusal => ({
    code: 'rejected',
    cause: `${step} failed: ${reason}`,
    next: 'The reason above is the backend\'s own; try again later or tell your user.',
  }),
} as const

/** The text of one refusal of `sessions_send`'s checks (`src/refusals.ts` `decideSend`). */
export function sendRefusalText(refusal: SendRefusal): Refusal {
  switch (refusal.code) {
    case 'invalid-arguments': return commonRefusals.invalidArguments(refusal.problem, TOOL_NAMES.send)
    case 'rejected':
      if (refusal.reason === 'no-caller') return commonRefusals.noCaller()
      return refusal.reason === 'store-unavailable' ? sendRefusals.storeUnavailable(refusal.why) : inboundRefused(refusal.targetId)
    case 'empty-body': return sendRefusals.emptyBody()
    case 'self-target': return sendRefusals.selfTarget(refusal.targetId)
    case 'not-found': return commonRefusals.notFound(refusal.targetId)
    case 'not-messageable': return sendRefusals.notMessageable(refusal.targetId, refusal.owner)
    case 'resume-disabled': return sendRefusals.resumeDisabled(refusal.targetId)
    case 'rate-limited': {
      const { limit } = refusal
      if (limit.kind === 'hop-limit') return sendRefusals.hopLimit(limit.hop, limit.maxHops, limit.chain)
      if (limit.kind === 'pair-rate') return sendRefusals.pairRate(refusal.targetId, limit.count, limit.perMinute, limit.retryInMs)
      return sendRefusals.duplicate(refusal.targetId, limit.agoMs)
    }
  }
}

/** What the model should do next, per controller error code. */
const NEXT_BY_CODE: Readonly<Record<string, string>> = {
  'session/agent-busy': 'That session refused the message (busy, or owned by subagent routing). Check it with sessions_read and send once more after its current turn; if it is a subagent, message its owner instead.',
  'session/model-unavailable': 'That session\'s model is not served by this host; tell your user to select a model for it. Do not resend until then.',
  'session/steer-unavailable': 'Its current turn no longer accepts steering; send again with mode "queue".',
  'session/queue-item-not-found': 'Its queue changed meanwhile; send again with mode "queue".',
  'session/conflict': 'That session belongs to another workspace in this host; tell your user.',
  'session/workspace-attach-failed': 'That session\'s workspace is not available; tell your user.',
  'workspace/not-found': 'That session\'s workspace is not available; tell your user.',
  'agent-preset/not-found': 'That session\'s agent preset is not available in this host; tell your user.',
  'agent-preset/invalid': 'That session\'s agent preset is not valid in this host; tell your user.',
  'agent-preset/locked': 'That session\'s agent preset is locked; tell your user.',
  'agent-preset/conflict': 'That session\'s agent preset conflicts with this host\'s; tell your user.',
  'gateway/cancelled': 'The host cancelled the request; send again if it is still needed.',
  'gateway/bad-request': 'The host rejected the request as malformed (a plugin or host fault); tell your user.',
  'gateway/internal': 'The host failed internally; try sessions_send once more later, and if it keeps failing, tell your user.',
}

/**
 * The refusal for a controller step that refused.
 * @param code - the controller's error code, if any (`session/agent-busy`, …; `not-found` for a missing session).
 * @param reason - this package's own reason, or a failure-table row.
 * @param targetId - the target as the model gave it.
 * @param step - the step that failed, in words.
 */
export function controllerRefusal(code: string | undefined, reason: string, targetId: string, step: string): Refusal {
  // Worded exactly as the not-found of rc.8's non-waking lookup.
  if (code === 'not-found' || code === 'session/not-found') return commonRefusals.notFound(targetId)
  // Own keys only: a code named like an Object.prototype member is unknown.
  const next = code !== undefined && Object.hasOwn(NEXT_BY_CODE, code) ? NEXT_BY_CODE[code] : undefined
  const base = sendRefusals.rejected(reason, step)
  return next === undefined ? base : { ...base, next }
}

/** Texts of the delivery path's reasons (they become the cause of a `rejected` refusal). */
export const deliveryReasons = {
  notLive: 'the session is not live and waking it is not allowed (allowResume: false); it was left untouched',
  wentCold: 'the session went cold before delivery and waking it is not allowed; it was left untouched',
  wentColdAfterWake: 'the session went cold again right after it was woken, before delivery',
  /** @param why - SQLite's error text or code (never a path). */
  storeWriteFailed: (why: string): string => `the message could not be written to the cross-session store under DSH_HOME (${why}); nothing was posted`,
  /** @param why - SQLite's error text or this package's words (never a path). */
  storeUnavailable: (why: string): string => `the cross-session store is unavailable (${why}); no session was woken. Try again shortly`,
  storeFull: 'that session already has 256 messages waiting for it in the cross-session store; nothing was posted. Wait until it has read them (check with sessions_read) before sending more',
  /** A recent open turn blocks the wake (docs/architecture.md §8, `src/home/open-turn.ts`). */
  openTurn: (ageMs: number): string => {
    const seconds = Math.round(ageMs / 1000)
    return `its log ends in a turn that is still open (last written ${seconds} s ago): another dsh process without dsh-cross-session may be running it, and waking it here would fork its log. `
      + 'It was left untouched. Do not retry at once: read it later with sessions_read, or ask the user to install dsh-cross-session in every dsh profile they run'
  },
} as const

/** The text of one {@link DeliveryReason}: this package's own words, or a failure-table row. */
export function deliveryReasonText(reason: DeliveryReason): string {
  switch (reason.kind) {
    case 'not-live': return deliveryReasons.notLive
    case 'went-cold': return deliveryReasons.wentCold
    case 'went-cold-after-wake': return deliveryReasons.wentColdAfterWake
    case 'store-full': return deliveryReasons.storeFull
    case 'not-found': return `session "${shownId(reason.sessionId)}" not found`
    case 'failure': return failureText(reason.failure)
    case 'open-turn': return deliveryReasons.openTurn(reason.ageMs)
    case 'store-write-failed': return deliveryReasons.storeWriteFailed(clipLine(oneLine(reason.why), 120))
    case 'store-unavailable': return deliveryReasons.storeUnavailable(clipLine(oneLine(reason.why), 120))
  }
}

/** Why the holding process refused a stored message (the sender reads it as `refused by that process: …`). */
export const holderRefusals: Readonly<Record<HolderRefusal, string>> = {
  'misaddressed': 'the message names another session than the one it was claimed for',
  'target-gone': 'that session no longer exists (it was deleted before it could be woken)',
  'expired': 'it expired before that session could take it',
  'inbound-refused': 'its user set it to refuse messages from peers before this one reached it; it was never delivered',
  'unknown': 'no reason given',
}

/** What happened to a session a failed send woke (`src/adapters/woken.ts` `giveUp`), in words. */
export const releaseTexts: Readonly<Record<ReleaseOutcome | 'release-failed', string>> = {
  'not-held': 'the session this call woke is no longer held by this plugin',
  'claimed-by-another': 'the session this call woke was left live for another send that is delivering to it',
  'delivered-by-another': 'the session this call woke was left live: another message was delivered to it',
  'kept-by-controller': 'the session this call woke stays live: it was woken through the host\'s session controller, which keeps it; this plugin holds no handle to put it back to sleep',
  'put-back-to-sleep': 'the session this call woke was put back to sleep (its handle was disposed)',
  'release-failed': 'the woken session could not be released and may stay live until the host stops',
}
