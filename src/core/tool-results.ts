/**
 * Parsers of the three tools' plain-text results (the formats of
 * docs/tools.md, written by src/tools/sessions-*.ts), for presentation only:
 * the tool presenters (src/presentation/presenters.ts) and the web tool rows
 * (src/client/) read the same structured view (docs/architecture.md §7).
 *
 * Pure and total: every parser returns `undefined` for text it does not
 * recognise, and the caller falls back to a generic view. Nothing here is
 * trusted for decisions; peer text can contain anything, so a message body
 * that happens to look like a heading may be split wrongly — the fallback
 * is a readable row, never an error.
 *
 * @module dsh-cross-session/core/tool-results
 */

/** A `refused: <code> | <cause>` or `cancelled | <detail>` result, any tool. */
interface RefusedResult {
  readonly outcome: 'refused' | 'cancelled'
  /** Refusal code (`not-found`, `rate-limited`, …) or `cancelled`. */
  readonly code: string
  readonly cause: string
  /** The lines after the first (what was not done, what to do next). */
  readonly advice: string
}

/** One `sessions_list` row. */
interface ListRow {
  readonly sessionId: string
  readonly live: boolean
  readonly subagent: boolean
  readonly cwd?: string
  readonly preset?: string
  readonly messageable: boolean
  readonly owner?: string
  readonly self: boolean
  readonly title: string
}

/** A parsed `sessions_list` result. */
interface ListResult {
  readonly outcome: 'listed'
  readonly rows: readonly ListRow[]
  /** Footer lines (`3 of 3 considered sessions`, notes). */
  readonly footer: readonly string[]
}

/** A parsed accepted `sessions_send` result. */
interface SendResult {
  readonly outcome: 'accepted'
  readonly sessionId: string
  readonly mode: 'queue' | 'steer'
  readonly chars: number
  readonly truncatedFrom?: number
  readonly hop: number
  readonly woke: boolean
  /** Where delivery stands: recorded in the conversation at a seq, in the inbox at a seq, held for the target's user, or not confirmed. */
  readonly recorded: { readonly stage: 'conversation' | 'inbox', readonly seq: number } | { readonly stage: 'held' } | { readonly stage: 'unconfirmed', readonly note: string }
  /** The explanation lines after the first. */
  readonly note: string
}

const REFUSED = /^refused: ([a-z][a-z-]*) \| (.*)$/
const CANCELLED = /^cancelled \| (.*)$/

/** `refused: …` / `cancelled | …` of any tool, else `undefined`. */
export function parseRefusal(text: string): RefusedResult | undefined {
  const [first = '', ...rest] = text.split('\n')
  const refused = REFUSED.exec(first)
  if (refused !== null) return { outcome: 'refused', code: refused[1]!, cause: refused[2]!, advice: rest.join('\n') }
  const cancelled = CANCELLED.exec(first)
  if (cancelled !== null) return { outcome: 'cancelled', code: 'cancelled', cause: cancelled[1]!, advice: rest.join('\n') }
  return undefined
}

const ROW_HEAD = /^- (\S+) \[(live|cold), (top-level|subagent)\](.*)$/

/** Split ` | cwd=… | preset=… | marks` into fields (a cwd containing ` | ` is rare; it would end early). */
export function suffixFields(suffix: string): { cwd?: string, preset?: string, marks: string[] } {
  const out: { cwd?: string, preset?: string, marks: string[] } = { marks: [] }
  for (const part of suffix.split(' | ').slice(1)) {
    if (part.startsWith('cwd=')) out.cwd = part.slice(4)
    else if (part.startsWith('preset=')) out.preset = part.slice(7)
    else out.marks.push(part)
  }
  return out
}

/** A `sessions_list` result, or `undefined` when the text is not one. */
export function parseListResult(text: string): ListResult | undefined {
  const lines = text.split('\n')
  const rows: ListRow[] = []
  let index = 0
  while (index < lines.length) {
    const head = ROW_HEAD.exec(lines[index]!)
    if (head === null) break
    const titleLine = lines[index + 1]
    if (titleLine === undefined || !titleLine.startsWith('  ')) return undefined
    const fields = suffixFields(head[4]!)
    const notMessageable = fields.marks.find(mark => mark.startsWith('not messageable'))
    const owner = notMessageable === undefined ? undefined : /\(owner (\S+)\)/.exec(notMessageable)?.[1]
    rows.push({
      sessionId: head[1]!,
      live: head[2] === 'live',
      subagent: head[3] === 'subagent',
      ...(fields.cwd === undefined ? {} : { cwd: fields.cwd }),
      ...(fields.preset === undefined ? {} : { preset: fields.preset }),
      messageable: notMessageable === undefined,
      ...(owner === undefined ? {} : { owner }),
      self: fields.marks.includes('this session'),
      title: titleLine.slice(2),
    })
    index += 2
  }
  const footer = lines.slice(index)
  if (!/^\d+ of \d+ considered sessions?$/.test(footer[0] ?? '') && !/^No /.test(footer[0] ?? '')) return undefined
  return { outcome: 'listed', rows, footer }
}

const ACCEPTED = /^accepted for (\S+) \| mode=(queue|steer) \| chars=(\d+)(?: \(truncated from (\d+)\))? \| hop (\d+)( \(woke a cold session\))? \| (.*)$/

/** An accepted `sessions_send` result, or `undefined` when the text is not one. */
export function parseSendResult(text: string): SendResult | undefined {
  const [first = '', ...rest] = text.split('\n')
  const match = ACCEPTED.exec(first)
  if (match === null) return undefined
  const tail = match[7]!
  // A mailbox delivery says where it went first (`live in another dsh process (pid N); … | recorded at seq 27`),
  // and a waited answer follows (`… | its turn ended (completed) at seq 415`): the outcome is one segment of several.
  const segments = tail.split(' | ')
  const find = (pattern: RegExp): RegExpExecArray | null => segments.reduce<RegExpExecArray | null>((found, segment) => found ?? pattern.exec(segment), null)
  const recordedAt = find(/^recorded at seq (\d+)$/)
  const inbox = find(/^in its inbox at seq (\d+), not yet in its conversation$/)
  const held = find(/^held for its user's approval( \(already held\))?$/) !== null
  const recorded: SendResult['recorded'] = recordedAt !== null
    ? { stage: 'conversation', seq: Number(recordedAt[1]) }
    : inbox !== null ? { stage: 'inbox', seq: Number(inbox[1]) } : held ? { stage: 'held' } : { stage: 'unconfirmed', note: tail }
  return {
    outcome: 'accepted',
    sessionId: match[1]!,
    mode: match[2] as 'queue' | 'steer',
    chars: Number(match[3]),
    ...(match[4] === undefined ? {} : { truncatedFrom: Number(match[4]) }),
    hop: Number(match[5]),
    woke: match[6] !== undefined,
    recorded,
    note: rest.join('\n'),
  }
}

/**
 * A session id as a human scans it: the first 4 characters of its random
 * part and an ellipsis (`session-4b91c2d0-…` → `4b91…`). Ids of other shapes
 * keep their first 8 characters.
 */
export function shortId(sessionId: string): string {
  const core = sessionId.startsWith('session-') ? sessionId.slice('session-'.length) : sessionId
  const chars = Array.from(core)
  const keep = sessionId.startsWith('session-') ? 4 : 8
  return chars.length <= keep ? core : `${chars.slice(0, keep).join('')}…`
}
