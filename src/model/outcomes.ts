/**
 * What a backend step can answer besides success, as closed data: why a
 * controller step refused, what happened to a woken session a failed send
 * let go, why a holder refused a stored message, where a message through
 * the home store stands, and how a woken session's turn ended. Presentation
 * renders each (`presentation/send.ts`, `presentation/accepted.ts`); no
 * backend hands model text through a port.
 *
 * @module dsh-cross-session/model/outcomes
 */

import type { FailureKind } from '../core/failure-kinds.js'

/** Why a controller step refused, as closed data (the text is `presentation/send.ts` `deliveryReasonText`). */
export type DeliveryReason =
  | { readonly kind: 'not-live' | 'store-full' | 'went-cold' | 'went-cold-after-wake' }
  | { readonly kind: 'not-found', readonly sessionId: string }
  /** A backend failure: only its row of the closed failure table is shown. */
  | { readonly kind: 'failure', readonly failure: FailureKind }
  /** The log ends in a recent open turn of a process the home store does not know (docs/architecture.md §8). */
  | { readonly kind: 'open-turn', readonly ageMs: number }
  /** The home store refused the write; `why` is SQLite's error code or text, never a path. */
  | { readonly kind: 'store-write-failed', readonly why: string }
  /**
   * The home store cannot be used now (locked past the wait, full, an I/O error, …): nothing that depends on another
   * process's state is done.
   */
  | { readonly kind: 'store-unavailable', readonly why: string }

/** What happened to a session a failed send woke (`ControllerPort.releaseWoken`, `src/ports.ts`). */
export type ReleaseOutcome = 'not-held' | 'claimed-by-another' | 'delivered-by-another' | 'kept-by-controller' | 'put-back-to-sleep'

/** Why the holding process refused a stored message (`withdrawn`: its sender withdrew it first, `model/withdraw.ts`). */
export type HolderRefusal = 'misaddressed' | 'target-gone' | 'expired' | 'inbound-refused' | 'withdrawn' | 'unknown'

/**
 * How the turn a notice reports on ended (docs/tools.md#notices), from rc.8's
 * `turn/end` reason kind (`@deepseek-ai/dsh-session@0.1.0-rc.8`
 * lib/types/types.d.ts `TurnEndReasonMap`): `completed` and `max-tokens` →
 * completed; `aborted` and `interrupted` → interrupted; `error`, `blocked`
 * and anything else → failed. A message held for its target's user
 * (docs/tools.md#inbound-messages) that its user refused, or that expired
 * undecided, reports `refused` / `expired`: it was never delivered.
 */
export type NoticeOutcome = TurnOutcome | 'refused' | 'expired'

/** How a watched turn ended (the outcomes of a turn, as against a held message's). */
export type TurnOutcome = 'completed' | 'failed' | 'interrupted'

/** {@link TurnOutcome} of an rc.8 `turn/end` reason kind. */
export function noticeOutcome(reasonKind: string): TurnOutcome {
  if (reasonKind === 'completed' || reasonKind === 'max-tokens') return 'completed'
  if (reasonKind === 'aborted' || reasonKind === 'interrupted') return 'interrupted'
  return 'failed'
}

/** How the turn that took a message ended (`ControllerPort.waitAnswered`): rc.8 `turn/end` reason kind and seq, or still running. */
export type AnswerWait =
  | { readonly ended: true, readonly reason: string, readonly seq: number }
  | { readonly ended: false, readonly waitedMs: number }

/**
 * A delivery through the home store not (yet) recorded when the sender's
 * bound ran out: `claimed` by the holding process but not yet in its log,
 * still `pending` in the store, or `refused` by the holder.
 */
export type MailboxStage =
  | { readonly stage: 'claimed' | 'pending' }
  | { readonly stage: 'refused', readonly reason: HolderRefusal }

/** A request for a notice (`ControllerPort.watchAnswer`, `src/ports.ts`); the limits are the sender's settings. */
export interface AnswerWatch {
  readonly requestId: string
  readonly senderSessionId: string
  readonly targetId: string
  /** The watched message's hop; the notice comes at `hop + 1`. */
  readonly hop: number
  /** The sender's `allowResume`: the notice may wake the sender when it is cold. */
  readonly mayWake: boolean
  /** The sender's `noticeWakesEndedRun`: from a short-lived process, the notice may wake it only with this (docs/tools.md#notices). */
  readonly wakeEndedRun?: boolean
  readonly maxHops: number
  readonly perMinute: number
  /** `noticeTtlMs`: the watch and its notice expire after this long, ms. */
  readonly ttlMs: number
}
