/**
 * Shared parts of the web tool rows (src/client/tool-rows.jsx,
 * src/client/send-row.jsx): the call's arguments, its result's value and text
 * as the slot owner hands them (rc.8 dsh-client-ui-tool lib/client.js
 * `ToolCall`; the value is the block's `meta`, the `tool/result` event's
 * projection, rc.8 dsh-client-ui-conversation lib/client.js `rootResult`),
 * the row head, and the running, refused and fallback rows.
 * @module dsh-cross-session/client/row-parts
 */
import { useState } from 'react'
import { shortId } from '../core/text.ts'
import { isResultValue } from '../presentation/results.ts'

/** The dictionary key of a tool row's title. */
export const titleKey = toolName => `tool.${toolName}`

/** The call's arguments (`{}` when absent or not JSON). */
export function argsOf(block) {
  const raw = ('kind' in block ? block.call?.argsRaw : block.argsRaw) ?? ''
  try {
    const parsed = JSON.parse(raw)
    return typeof parsed === 'object' && parsed !== null ? parsed : {}
  } catch {
    return {}
  }
}

/** The settled result text, or `null` while the call runs. */
export function resultTextOf(block) {
  if (!('kind' in block)) return null
  const parts = []
  for (const item of block.content ?? []) parts.push(item.type === 'text' ? item.text : JSON.stringify(item))
  if (parts.length === 0 && block.error !== undefined) parts.push(`${block.error.name}: ${block.error.code}`)
  return parts.join('\n')
}

/**
 * The settled result's value (src/presentation/results.ts), or `undefined`
 * while the call runs, for a registry error, and for a result that carries
 * none (a log written before results carried values, a call nested in
 * `run_code`): the row then falls back to the text.
 */
export function resultValueOf(block) {
  if (!('kind' in block) || block.isError === true) return undefined
  return isResultValue(block.meta) ? block.meta : undefined
}

/** A refused or cancelled value as the refused row shows it: the code, and the cause in one line. */
export function stoppedOf(value) {
  if (value?.kind === 'refused') return { outcome: 'refused', code: value.code, cause: value.cause }
  if (value?.kind !== 'cancelled') return undefined
  return { outcome: 'cancelled', code: 'cancelled', cause: `${value.tool} was cancelled while ${value.step}` }
}

export function Head({ title, summary, chips = [], open, onToggle }) {
  return (
    <div className="xs-head" role="button" tabIndex={0} aria-expanded={open} onClick={onToggle}
      onKeyDown={event => { if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); onToggle() } }}>
      <span className="xs-title">{title}</span>
      {chips}
      <span className="xs-summary">{summary}</span>
    </div>
  )
}

/** The generic row's content, for a result this plugin cannot read. */
export function FallbackRow({ toolName, text, args }) {
  const [open, setOpen] = useState(false)
  const first = text === null ? (args.session_id ?? args.query ?? '') : (text.split('\n')[0] ?? '')
  return (
    <div className="xs-row" data-xs-row={toolName} data-xs-fallback="true">
      <Head title={toolName} summary={first} open={open} onToggle={() => setOpen(!open)} />
      {open && text !== null ? <div className="xs-body"><pre>{text}</pre></div> : null}
    </div>
  )
}

export function RefusalChip({ refusal, t }) {
  const words = refusal.outcome === 'cancelled' ? t('call.cancelled') : t('call.refused', { code: refusal.code })
  return <span className="xs-chip xs-refused" data-xs-code={refusal.code}>{words}</span>
}

export function Running({ toolName, t, summary }) {
  return (
    <div className="xs-row" data-xs-row={toolName} data-xs-state="running">
      <div className="xs-head">
        <span className="xs-title">{t(titleKey(toolName))}</span>
        <span className="xs-chip xs-pending">{t('running')}</span>
        <span className="xs-summary">{summary}</span>
      </div>
    </div>
  )
}

/** Refused or cancelled: the code in its own style, the text on expand. */
export function RefusedRow({ toolName, t, target, refusal, text, extra }) {
  const [open, setOpen] = useState(false)
  const summary = `${target === undefined ? '' : `${shortId(target)} · `}${refusal.cause}`
  return (
    <div className="xs-row" data-xs-row={toolName} data-xs-outcome={refusal.outcome} data-xs-target={target ?? ''}>
      <Head title={t(titleKey(toolName))} chips={[<RefusalChip key="code" refusal={refusal} t={t} />]} summary={summary} open={open}
        onToggle={() => setOpen(!open)} />
      {open ? <div className="xs-body">{extra}<pre>{text}</pre></div> : null}
    </div>
  )
}
