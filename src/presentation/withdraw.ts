/**
 * The texts of `sessions_send` with `withdraw: true`
 * (docs/tools.md#withdrawing-a-message), all in one place: withdrawn, too
 * late (and where the message is), and the refusals of a withdraw.
 *
 * One word per state, as the web rows say them: `withdrawn` (final, never
 * delivered), `too late` with where the message is instead.
 *
 * @module dsh-cross-session/presentation/withdraw
 */

import type { Whereabouts, WithdrawOutcome } from '../model/withdraw.js'
import { REFUSAL_CATALOG } from '../refusals.js'
import { displayId } from './common.js'
import { holderRefusals } from './send.js'
import type { HolderRefusal } from '../ports.js'

/** What a refused withdraw did not do. */
export const NOTHING_WITHDRAWN = 'Nothing was withdrawn.'

/** The refusals only a withdraw returns (texts of `src/refusals/catalog.ts`). */
export const withdrawRefusals = {
  nothing: REFUSAL_CATALOG['nothing-to-withdraw'].texts.nothingToWithdraw,
  storeUnavailable: REFUSAL_CATALOG.rejected.texts.withdrawStoreUnavailable,
} as const

/** Where a message is that could not be withdrawn, as the text after `too late: `. */
export function whereaboutsText(where: Whereabouts, targetId: string): string {
  const target = displayId(targetId)
  switch (where.kind) {
    case 'recorded': {
      const answered = where.answeredSeq === undefined ? '' : `, answered by the turn that ended at seq ${where.answeredSeq}`
      return `recorded at seq ${where.seq} in ${target}'s log${answered}`
    }
    case 'claimed': return `process ${where.pid} holds ${target} and is putting it into its log`
    case 'handed-back': return `a process took it for ${target} and let that session go before confirming it; it may already be in its `
      + `log, and the next process to hold ${target} delivers it or finds it there`
    case 'delivered-here': return `delivered by this dsh process to ${target}, live here; it never waited`
    case 'expired': return `it was held for ${target}'s user and expired undecided; it was never delivered`
    case 'refused': return where.reason === 'user'
      ? `${target}'s user refused it; it was never delivered`
      : where.reason === 'inbound'
        ? `${target} takes no messages from peers; it was never delivered`
        : `refused by that process: ${holderRefusals[where.reason as HolderRefusal] ?? holderRefusals.unknown}`
  }
}

/** What a withdraw the store answered returns (src/presentation/results.ts): withdrawn, or too late and where the message is. */
export interface WithdrawValue {
  readonly kind: 'withdraw'
  readonly outcome: Exclude<WithdrawOutcome, { reason: 'unknown' }>
}

/** The value of a withdraw the store answered. */
export function withdrawValue(outcome: Exclude<WithdrawOutcome, { reason: 'unknown' }>): WithdrawValue {
  return { kind: 'withdraw', outcome }
}

/** The result of a withdraw the store answered (a repeat gives the same text). */
export function renderWithdraw({ outcome }: WithdrawValue): string {
  if (!outcome.ok) {
    return `too late: ${whereaboutsText(outcome.where, outcome.target)}\nThe message was not withdrawn (id ${outcome.messageId}).`
  }
  const was = outcome.was === 'held' ? 'held for its user\'s approval' : 'waiting in the cross-session store; no process had taken it'
  return `withdrawn: the message to ${displayId(outcome.target)} (id ${outcome.messageId})\nIt was ${was}. It will never be delivered, `
    + `and no notice will come for it.`
}
