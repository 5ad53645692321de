/**
 * What a notice row shows of a notice's text (docs/tools.md#notices): the
 * title its from-session line carries and, for a finished turn, the start of
 * the answer between its token markers — the text `src/framing.ts`
 * `buildNotice` (and a held message's notice, src/presentation/inbound.ts)
 * writes. For display only: the outcome and the sender are the recorded
 * source's (src/model/provenance.ts), never this text's.
 * @module dsh-cross-session/model/notice-view
 */

import { FROM_LINE, NOTICE_INTRO, unescapeTitle } from '../framing.js'

const ANSWER_BEGINS = /^--- answer begins ([0-9A-Za-z]{8,64}) ---$/

/** What a notice says about who it is from and, for a finished turn, the start of the answer. */
interface NoticeView {
  readonly fromSessionId: string
  /** The title as carried (one line, clipped); empty when untitled. */
  readonly fromTitle: string
  /** The start of the answer, between the token markers; `undefined` for a notice without one (a held message's). */
  readonly excerpt?: string
}

/** The sender line of a notice from an untitled session. */
const UNTITLED_FROM_LINE = /^from-session: (\S+)$/

/**
 * Read a notice built by `buildNotice` (or a held message's notice,
 * which has no answer): for display only; the outcome and the sender are the
 * recorded source's (src/model/provenance.ts), never this text's.
 * @returns the view, or `undefined` when `text` is not a notice. Never throws.
 */
export function parseNotice(text: string): NoticeView | undefined {
  if (typeof text !== 'string' || !text.startsWith(`${NOTICE_INTRO}\n`)) return undefined
  const lines = text.split('\n')
  // A held message's notice names an untitled target without a title (src/presentation/inbound.ts `heldNoticeText`).
  const from = FROM_LINE.exec(lines[1] ?? '') ?? UNTITLED_FROM_LINE.exec(lines[1] ?? '')
  if (from === null) return undefined
  const view = { fromSessionId: from[1] as string, fromTitle: unescapeTitle(from[2] ?? '') }
  const begin = lines.findIndex(line => ANSWER_BEGINS.test(line))
  if (begin < 0) return view
  const end = lines.lastIndexOf(`--- answer ends ${ANSWER_BEGINS.exec(lines[begin]!)![1]} ---`)
  return end > begin ? { ...view, excerpt: lines.slice(begin + 1, end).join('\n') } : view
}
