/**
 * `presentCall` / `presentResult` of the three tools: how a UI (the terminal
 * UI, the web generic row, any ACP client) titles a call and summarises its
 * result, instead of showing only the tool name (docs/architecture.md §7,
 * "Two halves"). One presenter per tool, keyed by the names of
 * `src/model/tool-names.ts` (so a tool without one does not compile);
 * `src/tools/definitions.ts` attaches them to every catalog entry.
 *
 * Shapes are rc.8's `GenericCallView` / `GenericResultView` / `ToolResult`
 * (`@deepseek-ai/dsh-tools@0.1.0-rc.8` lib/types/presentation.d.ts and
 * lib/types/index.d.ts), restated here as the subset used. Both functions are
 * pure and depend only on their inputs (a UI calls them live and on replay).
 * A result is read from its value, the `meta` that `output.presentationMeta`
 * projects (`src/presentation/results.ts`), never from its text; a result
 * without one (a log written before results carried values, a call nested
 * in `run_code`, a registry error) keeps the host's generic presentation.
 *
 * @module dsh-cross-session/presenters
 */

import { shortId } from '../core/text.js'
import { isResultValue, type ResultValue, type SendValue } from './results.js'
import type { CallView, PresentedResult, ResultView } from '../harness/host.js'
import { TOOL_NAMES, type ToolName } from '../model/tool-names.js'

export type { CallView, PresentedResult, ResultView }

function record(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? args as Record<string, unknown> : {}
}

function stringArg(args: unknown, key: string): string | undefined {
  const value = record(args)[key]
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : undefined
}

/** One line, at most `max` code points (titles are one line in every UI). */
function clip(text: string, max: number): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim())
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`
}

/** The result's own text blocks, shown as they are on expand. */
function textBlocks(result: PresentedResult): Array<{ type: 'text', text: string }> {
  const texts = result.content.flatMap(block => block.type === 'text' && typeof block.text === 'string' ? [block.text] : [])
  return [{ type: 'text', text: texts.join('\n') }]
}

/** What a send said of delivery, in a title. */
function sendOutcome(sent: Exclude<SendValue, { kind: 'retried' | 'withdraw' }>): string {
  if (sent.kind === 'held') return 'held for its user\'s approval'
  const { recorded } = sent
  if (recorded?.stage === 'conversation') return `recorded at seq ${recorded.seq}`
  return recorded?.stage === 'inbox' ? `in inbox at seq ${recorded.seq}` : 'pending, not yet in its log'
}

/** How a UI shows one tool's calls; both parts are pure. */
interface ToolPresenter {
  /** The pending-call view of the call's (unvalidated) arguments. */
  readonly call: (args: unknown) => CallView
  /** The completed-call view of a result that is not a refusal, or `undefined` when it is not this tool's. */
  readonly result: (value: ResultValue, content: ResultView['content']) => ResultView | undefined
}

const PRESENTERS: { readonly [N in ToolName]: ToolPresenter } = {
  [TOOL_NAMES.list]: {
    call: args => {
      const query = stringArg(args, 'query')
      const title = query === undefined ? 'List sessions' : `List sessions matching "${clip(query, 40)}"`
      return { card: 'generic', kind: 'search', title }
    },
    result: list => {
      if (list.kind !== 'listed') return undefined
      const live = list.rows.filter(row => row.live).length
      const lines = list.rows.map(row => {
        const marks = `${row.self ? ' (this session)' : ''}${row.subagent ? ' (not messageable)' : ''}`
        const cwd = row.cwd === undefined ? '' : ` · ${row.cwd}`
        return `${shortId(row.sessionId)} ${row.live ? 'live' : 'cold'}${marks} · ${row.title}${cwd}`
      })
      const footer = `${list.rows.length} of ${list.matched} considered sessions`
      return { card: 'generic', title: `Listed ${list.rows.length} ${list.rows.length === 1 ? 'session' : 'sessions'} (${live} live)`,
        content: [{ type: 'text', text: [...lines, footer].join('\n') }] }
    },
  },
  [TOOL_NAMES.read]: {
    call: args => {
      const id = stringArg(args, 'session_id')
      return { card: 'generic', kind: 'read', title: id === undefined ? 'Read a session' : `Read ${shortId(id)}` }
    },
    result: (read, content) => {
      if (read.kind !== 'read') return undefined
      const omitted = read.older.count > 0 ? `, ${read.older.count} omitted` : ''
      const shown = `${read.messages.length} of ${read.readable} messages${omitted}`
      const title = `Read ${shortId(read.sessionId)} "${clip(read.title, 40)}" — ${shown}`
      return { card: 'generic', title, ...(content === undefined ? {} : { content }) }
    },
  },
  [TOOL_NAMES.send]: {
    call: args => {
      const id = stringArg(args, 'session_id')
      const mode = stringArg(args, 'mode')
      const target = id === undefined ? 'Send to a session' : `Send to ${shortId(id)}`
      const message = stringArg(args, 'message')
      return {
        card: 'generic',
        kind: 'other',
        title: mode === 'queue' || mode === 'steer' ? `${target} (${mode})` : target,
        ...(message === undefined ? {} : { rawInput: message }),
      }
    },
    result: (value, content) => {
      // A retried call answers with its first result.
      const sent = value.kind === 'retried' ? value.first : value
      const withdrawn = sent.kind === 'withdraw' ? sent.outcome : undefined
      if (withdrawn !== undefined) {
        const title = `${withdrawn.ok ? 'Withdrew' : 'Too late to withdraw'} the message to ${shortId(withdrawn.target)}`
        return { card: 'generic', title, ...(content === undefined ? {} : { content }) }
      }
      if (sent.kind !== 'accepted' && sent.kind !== 'held') return undefined
      // A mailbox delivery does not say whether the other process woke it.
      const woke = sent.kind === 'accepted' && sent.woke && sent.remote === undefined
      return { card: 'generic',
        title: `Sent to ${shortId(sent.targetId)} (${sent.mode}, hop ${sent.hop}) — ${sendOutcome(sent)}${woke ? ', woke it' : ''}`,
        ...(content === undefined ? {} : { content }) }
    },
  },
}

/**
 * Pending-call view.
 * @param name - the tool.
 * @param args - the call's arguments as the model sent them (unvalidated).
 * @returns e.g. `{card: 'generic', title: 'Send to 4b91… (queue)'}`; never `undefined` for these tools.
 */
export function presentCall(name: ToolName, args: unknown): CallView {
  return PRESENTERS[name].call(args)
}

/**
 * Completed-call view: a title saying the outcome and a compact summary.
 * @param name - the tool.
 * @param args - the call's arguments.
 * @param result - the durable result projection: its text, and its value as `meta`.
 * @returns the view, or `undefined` when the result carries no value of this
 *   tool (the host then shows the raw text).
 */
export function presentResult(name: ToolName, args: unknown, result: PresentedResult): ResultView | undefined {
  const value = result.meta
  if (result.isError || !isResultValue(value)) return undefined
  if (value.kind !== 'refused' && value.kind !== 'cancelled') return PRESENTERS[name].result(value, textBlocks(result))
  const call = presentCall(name, args).title
  return { card: 'generic', title: `${call} — ${value.kind === 'cancelled' ? 'cancelled' : `refused: ${value.code}`}`,
    content: textBlocks(result) }
}
