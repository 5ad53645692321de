/**
 * The notice a sender gets when its held message was refused by the
 * target's user or expired undecided (docs/tools.md#inbound-messages): who
 * it was for (its title when it has one) and that it was never delivered. Built like every notice
 * (`NOTICE_INTRO`, `src/framing/notice.ts`), with no answer between markers.
 *
 * @module dsh-cross-session/framing/held-notice
 */

import { clipLine, oneLine } from '../core/text.js'
import { frameTitle } from './frame.js'
import { NOTICE_INTRO } from './notice.js'

/** `10 min`, `90 s`: a wait as a model reads it. */
export function duration(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`
}

/** Input of {@link heldNoticeText}. */
interface HeldNoticeInput {
  readonly targetId: string
  readonly targetTitle: string | undefined
  readonly outcome: 'refused' | 'expired'
  readonly hop: number
  /** How long it was held, ms. */
  readonly expiredAfterMs: number
}

/** The text of a held message's notice. */
export function heldNoticeText(input: HeldNoticeInput): string {
  const what = input.outcome === 'refused'
    ? 'its user refused your held message; it was never delivered'
    : `your held message expired after ${duration(input.expiredAfterMs)} without a decision from its user; it was never delivered`
  // An untitled target gets no empty quotes: `("")` reads as a title that is empty on purpose.
  const title = frameTitle(input.targetTitle)
  // An id from the store, shown as output shows ids (one line, at most 200 code points).
  const id = clipLine(oneLine(input.targetId), 200)
  return [
    NOTICE_INTRO,
    `from-session: ${id}${title === '' ? '' : ` ("${title}")`}`,
    `held message: ${input.outcome} | ${what} | hop ${input.hop}`,
    'Do not send it again unless your own user asks you to; tell them instead.',
  ].join('\n')
}
