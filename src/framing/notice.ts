/**
 * The notice a sender gets when the turn that took its message ends
 * (docs/tools.md#notices): built from data the holder reads in the target's
 * log (`src/home/notices.ts`), and read back for display (a notice row).
 *
 * ```text
 * Cross-session notice from the dsh-cross-session package (not a message from your user).
 * from-session: session-4b91… ("Fix the config")
 * turn: completed | it took your message at seq 22 and ended at seq 27 | hop 2
 * --- answer begins k3Vd9QxLm2Ta ---
 * <the first characters of its last answer>…[truncated N chars]
 * --- answer ends k3Vd9QxLm2Ta ---
 * Read the rest: sessions_read {"session_id":"session-4b91…","after_seq":22}
 * ```
 *
 * @module dsh-cross-session/framing/notice
 */

import { oneLine, sanitizeForDisplay, truncateVisibly } from '../core/text.js'
import { FROM_LINE, frameTitle, unescapeTitle } from './frame.js'
import { tokenFor, type TokenSource } from './token.js'

/** First line of every notice (docs/tools.md#notices): who wrote it, and that the user did not. */
export const NOTICE_INTRO = 'Cross-session notice from the dsh-cross-session package (not a message from your user).'

/** Characters (code points) of the last answer a notice carries before its visible cut. */
export const NOTICE_EXCERPT_CHARS = 300

/** Input of {@link buildNotice}. */
interface NoticeInput {
  /** The session whose turn ended (who the notice is from). */
  readonly fromSessionId: string
  readonly fromTitle: string | undefined
  /** How that turn ended. */
  readonly outcome: 'completed' | 'failed' | 'interrupted'
  /** Seq of the watched message in its log, and of the turn's `turn/end`. */
  readonly messageSeq: number
  readonly turnEndSeq: number
  readonly hop: number
  /** The start of its last answer, already cut visibly ({@link noticeExcerpt}); `undefined` when the turn wrote none. */
  readonly excerpt: string | undefined
  readonly token?: TokenSource
}

/**
 * The excerpt of a last answer: peer text shown as a read shows it
 * (docs/tools.md#sessions_read: control characters as U+FFFD), cut visibly
 * at {@link NOTICE_EXCERPT_CHARS}; `undefined` when the turn wrote none.
 */
export function noticeExcerpt(lastAnswer: string | undefined): string | undefined {
  return lastAnswer === undefined ? undefined : truncateVisibly(sanitizeForDisplay(lastAnswer), NOTICE_EXCERPT_CHARS)
}

/**
 * The text of a notice: what turn ended and how, the start of the last
 * answer between token markers (peer text, like a frame's body), and the
 * exact `sessions_read` call that reads the rest.
 */
export function buildNotice(input: NoticeInput): string {
  const excerpt = input.excerpt ?? '(it wrote no answer text)'
  const token = tokenFor(excerpt, input.token)
  const id = oneLine(input.fromSessionId)
  const read = JSON.stringify({ session_id: id, after_seq: input.messageSeq })
  return [
    NOTICE_INTRO,
    `from-session: ${id} ("${frameTitle(input.fromTitle)}")`,
    `turn: ${input.outcome} | it took your message at seq ${input.messageSeq}`
    + ` and ended at seq ${input.turnEndSeq} | hop ${input.hop}`,
    `--- answer begins ${token} ---`,
    excerpt,
    `--- answer ends ${token} ---`,
    `Read the rest: sessions_read ${read}`,
  ].join('\n')
}

const ANSWER_BEGINS = /^--- answer begins ([0-9A-Za-z]{8,64}) ---$/

/** The sender line of a notice from an untitled session. */
const UNTITLED_FROM_LINE = /^from-session: (\S+)$/

/** What a notice says about who it is from and, for a finished turn, the start of the answer. */
interface NoticeView {
  readonly fromSessionId: string
  /** The title as carried (one line, clipped); empty when untitled. */
  readonly fromTitle: string
  /** The start of the answer, between the token markers; `undefined` for a notice without one (a held message's). */
  readonly excerpt?: string
}

/**
 * Read a notice built by {@link buildNotice} (or a held message's notice,
 * which has no answer): for display only; the outcome and the sender are the
 * recorded source's (`src/model/provenance.ts`), never this text's.
 * @returns the view, or `undefined` when `text` is not a notice. Never throws.
 */
export function parseNotice(text: string): NoticeView | undefined {
  if (typeof text !== 'string' || !text.startsWith(`${NOTICE_INTRO}\n`)) return undefined
  const lines = text.split('\n')
  // A held message's notice names an untitled target without a title (`src/framing/held-notice.ts`).
  const from = FROM_LINE.exec(lines[1] ?? '') ?? UNTITLED_FROM_LINE.exec(lines[1] ?? '')
  if (from === null) return undefined
  const view = { fromSessionId: from[1] as string, fromTitle: unescapeTitle(from[2] ?? '') }
  const begin = lines.findIndex(line => ANSWER_BEGINS.test(line))
  if (begin < 0) return view
  const end = lines.lastIndexOf(`--- answer ends ${ANSWER_BEGINS.exec(lines[begin]!)![1]} ---`)
  return end > begin ? { ...view, excerpt: lines.slice(begin + 1, end).join('\n') } : view
}
