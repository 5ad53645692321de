/**
 * Web tool rows for sessions_list, sessions_read and sessions_send, registered
 * in the keyed slot `tool.call.toolview` (key = tool name). A keyed hit
 * replaces the shell's generic row (rc.8 dsh-client-ui-tool lib/client.js
 * `ToolCall`), and the shell does not hand its generic card to the entry, so
 * a result this row cannot parse renders {@link FallbackRow}: the generic
 * row's content (tool name, first line, full text on expand).
 *
 * Props are the slot owner's (`block`, `toolName`, `callId`, `inspect`) plus
 * `t` (this plugin's dictionary). `block` is a running call (`argsRaw`) or a
 * settled one (`kind`, `call.argsRaw`, `content`, `isError`) — the shapes
 * rc.8 ui-skill's SkillRow reads. Parsing is src/core/tool-results.ts,
 * shared with the presenters. Tool names come from src/model/tool-names.ts
 * ({@link TOOL_ROWS} is keyed by them); docs/architecture.md §7.
 * @module dsh-cross-session/client/tool-rows
 */
import { useState } from 'react'
import { parseListResult, parseRefusal, parseSendResult, shortId } from '../core/tool-results.ts'
import { parseReadResult } from '../core/tool-results-read.ts'
import { TOOL_NAMES } from '../model/tool-names.ts'

/** The dictionary key of a tool row's title. */
export const titleKey = toolName => `tool.${toolName}`

/** The call's arguments (`{}` when absent or not JSON). */
function argsOf(block) {
  const raw = ('kind' in block ? block.call?.argsRaw : block.argsRaw) ?? ''
  try {
    const parsed = JSON.parse(raw)
    return typeof parsed === 'object' && parsed !== null ? parsed : {}
  } catch {
    return {}
  }
}

/** The settled result text, or `null` while the call runs. */
function resultTextOf(block) {
  if (!('kind' in block)) return null
  const parts = []
  for (const item of block.content ?? []) parts.push(item.type === 'text' ? item.text : JSON.stringify(item))
  if (parts.length === 0 && block.error !== undefined) parts.push(`${block.error.name}: ${block.error.code}`)
  return parts.join('\n')
}

function Head({ title, summary, chips = [], open, onToggle }) {
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
function FallbackRow({ toolName, text, args }) {
  const [open, setOpen] = useState(false)
  const first = text === null ? (args.session_id ?? args.query ?? '') : (text.split('\n')[0] ?? '')
  return (
    <div className="xs-row" data-xs-row={toolName} data-xs-fallback="true">
      <Head title={toolName} summary={first} open={open} onToggle={() => setOpen(!open)} />
      {open && text !== null ? <div className="xs-body"><pre>{text}</pre></div> : null}
    </div>
  )
}

function RefusalChip({ refusal }) {
  return <span className="xs-chip xs-refused" data-xs-code={refusal.code}>{refusal.outcome === 'cancelled' ? 'cancelled' : `refused: ${refusal.code}`}</span>
}

function Running({ toolName, t, summary }) {
  return (
    <div className="xs-row" data-xs-row={toolName} data-xs-state="running">
      <div className="xs-head"><span className="xs-title">{t(titleKey(toolName))}</span><span className="xs-chip xs-pending">{t('running')}</span><span className="xs-summary">{summary}</span></div>
    </div>
  )
}

/** Refused or cancelled: the code in its own style, the text on expand. */
function RefusedRow({ toolName, t, target, refusal, text, extra }) {
  const [open, setOpen] = useState(false)
  return (
    <div className="xs-row" data-xs-row={toolName} data-xs-outcome={refusal.outcome} data-xs-target={target ?? ''}>
      <Head title={t(titleKey(toolName))} chips={[<RefusalChip key="code" refusal={refusal} />]} summary={`${target === undefined ? '' : `${shortId(target)} · `}${refusal.cause}`} open={open} onToggle={() => setOpen(!open)} />
      {open ? <div className="xs-body">{extra}<pre>{text}</pre></div> : null}
    </div>
  )
}

export function ListRow({ block, t }) {
  const name = TOOL_NAMES.list
  const args = argsOf(block)
  const text = resultTextOf(block)
  const [open, setOpen] = useState(true)
  if (text === null) return <Running toolName={name} t={t} summary={args.query ?? ''} />
  const refusal = parseRefusal(text)
  if (refusal !== undefined) return <RefusedRow toolName={name} t={t} refusal={refusal} text={text} />
  const list = parseListResult(text)
  if (list === undefined) return <FallbackRow toolName={name} text={text} args={args} />
  const live = list.rows.filter(row => row.live).length
  return (
    <div className="xs-row" data-xs-row={name} data-xs-outcome="listed">
      <Head title={t(titleKey(name))} summary={t('list.summary', { count: list.rows.length, live })} open={open} onToggle={() => setOpen(!open)} />
      {open
        ? (
            <div className="xs-body">
              <table className="xs-table">
                <thead><tr><th>{t('col.id')}</th><th>{t('col.title')}</th><th>{t('col.state')}</th><th>{t('col.workspace')}</th><th>{t('col.messageable')}</th></tr></thead>
                <tbody>
                  {list.rows.map(row => (
                    <tr key={row.sessionId} data-xs-session={row.sessionId}>
                      <td className="xs-mono" title={row.sessionId}>{shortId(row.sessionId)}</td>
                      <td title={row.title}>{row.title}{row.self ? ` (${t('list.self')})` : ''}</td>
                      <td><span className={`xs-chip ${row.live ? 'xs-ok' : ''}`}>{row.live ? t('live') : t('cold')}</span></td>
                      <td className="xs-mono" title={row.cwd ?? ''}>{row.cwd ?? ''}</td>
                      <td title={row.owner === undefined ? '' : `${t('list.owner')} ${row.owner}`}>{row.self ? '—' : row.messageable ? t('yes') : t('no')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div className="xs-msg-head">{list.footer[0]}</div>
            </div>
          )
        : null}
    </div>
  )
}

export function ReadRow({ block, t }) {
  const name = TOOL_NAMES.read
  const args = argsOf(block)
  const text = resultTextOf(block)
  const [open, setOpen] = useState(false)
  if (text === null) return <Running toolName={name} t={t} summary={typeof args.session_id === 'string' ? shortId(args.session_id) : ''} />
  const refusal = parseRefusal(text)
  if (refusal !== undefined) return <RefusedRow toolName={name} t={t} target={args.session_id} refusal={refusal} text={text} />
  const read = parseReadResult(text)
  if (read === undefined) return <FallbackRow toolName={name} text={text} args={args} />
  return (
    <div className="xs-row" data-xs-row={name} data-xs-outcome="read" data-xs-target={read.sessionId}>
      <Head
        title={t(titleKey(name))}
        chips={[<span key="target" className="xs-chip xs-mono" title={read.sessionId}>{shortId(read.sessionId)}</span>]}
        summary={`${read.title} · ${t('read.window', { shown: read.messages.length, readable: read.readable })}${read.omitted > 0 ? ` · ${t('read.omitted', { count: read.omitted })}` : ''}`}
        open={open}
        onToggle={() => setOpen(!open)}
      />
      {open
        ? (
            <div className="xs-body" data-xs-messages="true">
              {read.messages.map(message => (
                <div className="xs-msg" key={message.seq}>
                  <div className="xs-msg-head">{`${message.role} · seq ${message.seq} · ${message.markers.join(', ')}`}</div>
                  <pre>{message.text}</pre>
                </div>
              ))}
            </div>
          )
        : null}
    </div>
  )
}

export function SendRow({ block, t }) {
  const name = TOOL_NAMES.send
  const args = argsOf(block)
  const text = resultTextOf(block)
  const [open, setOpen] = useState(true)
  const target = typeof args.session_id === 'string' ? args.session_id : undefined
  const body = typeof args.message === 'string' ? args.message : ''
  if (text === null) return <Running toolName={name} t={t} summary={target === undefined ? '' : shortId(target)} />
  const refusal = parseRefusal(text)
  const bodyBlock = <div className="xs-msg-head">{t('send.body')}</div>
  if (refusal !== undefined) return <RefusedRow toolName={name} t={t} target={target} refusal={refusal} text={text} extra={<>{bodyBlock}<pre>{body}</pre><div className="xs-msg" /></>} />
  const sent = parseSendResult(text)
  if (sent === undefined) return <FallbackRow toolName={name} text={text} args={args} />
  const recorded = sent.recorded.stage === 'conversation'
    ? <span key="outcome" className="xs-chip xs-ok" data-xs-seq={sent.recorded.seq}>{t('send.recorded', { seq: sent.recorded.seq })}</span>
    : sent.recorded.stage === 'inbox'
      ? <span key="outcome" className="xs-chip xs-pending" data-xs-seq={sent.recorded.seq}>{t('send.inbox', { seq: sent.recorded.seq })}</span>
      : <span key="outcome" className="xs-chip xs-pending">{t('send.accepted')}</span>
  return (
    <div className="xs-row" data-xs-row={name} data-xs-outcome="accepted" data-xs-target={sent.sessionId}>
      <Head
        title={t(titleKey(name))}
        chips={[
          <span key="target" className="xs-chip xs-mono" title={sent.sessionId}>{`→ ${shortId(sent.sessionId)}`}</span>,
          <span key="mode" className="xs-chip" data-xs-mode={sent.mode}>{sent.mode}</span>,
          <span key="hop" className="xs-chip">{t('send.hop', { hop: sent.hop })}</span>,
          recorded,
          ...(sent.woke ? [<span key="woke" className="xs-chip">{t('send.woke')}</span>] : []),
        ]}
        summary={body.split('\n')[0] ?? ''}
        open={open}
        onToggle={() => setOpen(!open)}
      />
      {open ? <div className="xs-body">{bodyBlock}<pre data-xs-body="true">{body}</pre></div> : null}
    </div>
  )
}

/** Each tool's row, by tool name: the key of its `tool.call.toolview` entry. */
export const TOOL_ROWS = {
  [TOOL_NAMES.list]: ListRow,
  [TOOL_NAMES.read]: ReadRow,
  [TOOL_NAMES.send]: SendRow,
}
