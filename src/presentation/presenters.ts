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
 * pure and depend only on their inputs (a UI calls them live and on replay);
 * they return `undefined` for anything they cannot read, which keeps the
 * host's generic presentation.
 *
 * @module dsh-cross-session/presenters
 */

import { parseListResult, parseRefusal, parseSendResult, shortId } from '../core/tool-results.js'
import { parseReadResult } from '../core/tool-results-read.js'
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

function resultText(result: PresentedResult): string {
  return result.content.flatMap(block => block.type === 'text' && typeof block.text === 'string' ? [block.text] : []).join('\n')
}

/** How a UI shows one tool's calls; both parts are pure. */
interface ToolPresenter {
  /** The pending-call view of the call's (unvalidated) arguments. */
  readonly call: (args: unknown) => CallView
  /** The completed-call view of a result that is not a refusal, or `undefined` when it is not one this plugin writes. */
  readonly result: (text: string) => ResultView | undefined
}

const PRESENTERS: { readonly [N in ToolName]: ToolPresenter } = {
  [TOOL_NAMES.list]: {
    call: args => {
      const query = stringArg(args, 'query')
      return { card: 'generic', kind: 'search', title: query === undefined ? 'List sessions' : `List sessions matching "${clip(query, 40)}"` }
    },
    result: text => {
      const list = parseListResult(text)
      if (list === undefined) return undefined
      const live = list.rows.filter(row => row.live).length
      const lines = list.rows.map(row => `${shortId(row.sessionId)} ${row.live ? 'live' : 'cold'}${row.self ? ' (this session)' : ''}${row.messageable ? '' : ' (not messageable)'} · ${row.title}${row.cwd === undefined ? '' : ` · ${row.cwd}`}`)
      return { card: 'generic', title: `Listed ${list.rows.length} ${list.rows.length === 1 ? 'session' : 'sessions'} (${live} live)`, content: [{ type: 'text', text: [...lines, ...list.footer.slice(0, 1)].join('\n') }] }
    },
  },
  [TOOL_NAMES.read]: {
    call: args => {
      const id = stringArg(args, 'session_id')
      return { card: 'generic', kind: 'read', title: id === undefined ? 'Read a session' : `Read ${shortId(id)}` }
    },
    result: text => {
      const read = parseReadResult(text)
      if (read === undefined) return undefined
      const omitted = read.omitted > 0 ? `, ${read.omitted} omitted` : ''
      return { card: 'generic', title: `Read ${shortId(read.sessionId)} "${clip(read.title, 40)}" — ${read.messages.length} of ${read.readable} messages${omitted}`, content: [{ type: 'text', text }] }
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
    result: text => {
      const sent = parseSendResult(text)
      if (sent === undefined) return undefined
      const outcome = sent.recorded.stage === 'conversation'
        ? `recorded at seq ${sent.recorded.seq}`
        : sent.recorded.stage === 'inbox' ? `in inbox at seq ${sent.recorded.seq}` : sent.recorded.stage === 'held' ? 'held for its user\'s approval' : 'pending, not yet in its log'
      return { card: 'generic', title: `Sent to ${shortId(sent.sessionId)} (${sent.mode}, hop ${sent.hop}) — ${outcome}${sent.woke ? ', woke it' : ''}`, content: [{ type: 'text', text }] }
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
 * @param result - the durable result projection.
 * @returns the view, or `undefined` when the result text is not one this
 *   plugin writes (the host then shows the raw text).
 */
export function presentResult(name: ToolName, args: unknown, result: PresentedResult): ResultView | undefined {
  const text = resultText(result)
  const refusal = parseRefusal(text)
  if (refusal === undefined) return PRESENTERS[name].result(text)
  const call = presentCall(name, args).title
  return { card: 'generic', title: `${call} — ${refusal.outcome === 'cancelled' ? 'cancelled' : `refused: ${refusal.code}`}`, content: [{ type: 'text', text }] }
}
