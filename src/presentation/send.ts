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
import { REFUSAL_CATALOG, type SendRefusal } from '../refusals.js'
import { failureText } from './failures.js'
import { commonRefusals, shownId, type Refusal } from './common.js'
import { TOOL_NAMES } from '../model/tool-names.js'
import { inboundRefused } from './inbound.js'

/** Refusals only `sessions_send` returns (texts of `src/refusals/catalog.ts`). */
export const sendRefusals = {
  notMessageable: REFUSAL_CATALOG['not-messageable'].texts.notMessageable,
  resumeDisabled: REFUSAL_CATALOG['resume-disabled'].texts.resumeDisabled,
  emptyBody: REFUSAL_CATALOG['empty-body'].texts.emptyBody,
  selfTarget: REFUSAL_CATALOG['self-target'].texts.selfTarget,
  hopLimit: REFUSAL_CATALOG['rate-limited'].texts.hopLimit,
  pairRate: REFUSAL_CATALOG['rate-limited'].texts.pairRate,
  duplicate: REFUSAL_CATALOG['rate-limited'].texts.duplicate,
  storeUnavailable: REFUSAL_CATALOG.rejected.texts.storeUnavailable,
  rejected: REFUSAL_CATALOG.rejected.texts.rejected,
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
  return REFUSAL_CATALOG.rejected.texts.controller(code, reason, step)
}

/** Texts of the delivery path's reasons (they become the cause of a `rejected` refusal). */
export const deliveryReasons = {
  notLive: 'the session is not live and waking it is not allowed (allowResume: false); it was left untouched',
  wentCold: 'the session went cold before delivery and waking it is not allowed; it was left untouched',
  wentColdAfterWake: 'the session went cold again right after it was woken, before delivery',
  /** @param why - SQLite's error text or code (never a path). */
  storeWriteFailed: (why: string): string =>
    `the message could not be written to the cross-session store under DSH_HOME (${why}); nothing was posted`,
  /** @param why - SQLite's error text or this package's words (never a path). */
  storeUnavailable: (why: string): string => `the cross-session store is unavailable (${why}); no session was woken. Try again shortly`,
  storeFull: 'that session already has 256 messages waiting for it in the cross-session store; nothing was posted. Wait until it has '
    + 'read them (check with sessions_read) before sending more',
  /** A recent open turn blocks the wake (docs/architecture.md §8, `src/home/open-turn.ts`). */
  openTurn: (ageMs: number): string => {
    const seconds = Math.round(ageMs / 1000)
    return `its log ends in a turn that is still open (last written ${seconds} s ago): another dsh process without dsh-cross-session `
      + `may be running it, and waking it here would fork its log. `
      + 'It was left untouched. Do not retry at once: read it later with sessions_read, '
      + 'or ask the user to install dsh-cross-session in every dsh profile they run'
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
  'withdrawn': 'its sender withdrew it before that session took it; it was never delivered',
  'unknown': 'no reason given',
}

/** What happened to a session a failed send woke (`src/adapters/woken.ts` `giveUp`), in words. */
export const releaseTexts: Readonly<Record<ReleaseOutcome | 'release-failed', string>> = {
  'not-held': 'the session this call woke is no longer held by this plugin',
  'claimed-by-another': 'the session this call woke was left live for another send that is delivering to it',
  'delivered-by-another': 'the session this call woke was left live: another message was delivered to it',
  'kept-by-controller': 'the session this call woke stays live: it was woken through the host\'s session controller, '
    + 'which keeps it; this plugin holds no handle to put it back to sleep',
  'put-back-to-sleep': 'the session this call woke was put back to sleep (its handle was disposed)',
  'release-failed': 'the woken session could not be released and may stay live until the host stops',
}
