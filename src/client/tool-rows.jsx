/**
 * Web tool rows for sessions_list, sessions_read and sessions_send, registered
 * in the keyed slot `tool.call.toolview` (key = tool name). A keyed hit
 * replaces the shell's generic row (rc.8 dsh-client-ui-tool lib/client.js
 * `ToolCall`), and the shell does not hand its generic card to the entry, so
 * a result without a value of this tool renders {@link FallbackRow}: the
 * generic row's content (tool name, first line, full text on expand).
 *
 * Props are the slot owner's (`block`, `toolName`, `callId`, `inspect`) plus
 * `t` (this plugin's dictionary). `block` is a running call (`argsRaw`) or a
 * settled one (`kind`, `call.argsRaw`, `content`, `isError`) — the shapes
 * rc.8 ui-skill's SkillRow reads; the send row also gets `ctx`, `history`
 * and `held` (src/client/send-row.jsx). Each row reads the result's value
 * (`resultValueOf`, the block's `meta`), as the presenters do; the text is
 * shown, never parsed. Tool names come from src/model/tool-names.ts
 * ({@link TOOL_ROWS} is keyed by them); docs/architecture.md §7.
 * @module dsh-cross-session/client/tool-rows
 */
import { useState } from 'react'
import { shortId } from '../core/text.ts'
import { TOOL_NAMES } from '../model/tool-names.ts'
import { argsOf, FallbackRow, Head, RefusedRow, resultTextOf, resultValueOf, Running, stoppedOf, titleKey } from './row-parts.jsx'
import { SendRow } from './send-row.jsx'

export { titleKey }

export function ListRow({ block, t }) {
  const name = TOOL_NAMES.list
  const args = argsOf(block)
  const text = resultTextOf(block)
  const [open, setOpen] = useState(true)
  if (text === null) return <Running toolName={name} t={t} summary={args.query ?? ''} />
  const value = resultValueOf(block)
  const refusal = stoppedOf(value)
  if (refusal !== undefined) return <RefusedRow toolName={name} t={t} refusal={refusal} text={text} />
  const list = value?.kind === 'listed' ? value : undefined
  if (list === undefined) return <FallbackRow toolName={name} text={text} args={args} />
  const live = list.rows.filter(row => row.live).length
  const summary = t(list.rows.length === 1 ? 'list.summaryOne' : 'list.summary', { count: list.rows.length, live })
  return (
    <div className="xs-row" data-xs-row={name} data-xs-outcome="listed">
      <Head title={t(titleKey(name))} summary={summary} open={open} onToggle={() => setOpen(!open)} />
      {open
        ? (
            <div className="xs-body">
              <table className="xs-table">
                <thead>
                  <tr>
                    <th>{t('col.id')}</th><th>{t('col.title')}</th><th>{t('col.state')}</th><th>{t('col.workspace')}</th>
                    <th>{t('col.messageable')}</th>
                  </tr>
                </thead>
                <tbody>
                  {list.rows.map(row => (
                    <tr key={row.sessionId} data-xs-session={row.sessionId}>
                      <td className="xs-mono" title={row.sessionId}>{shortId(row.sessionId)}</td>
                      <td title={row.title}>{row.title}{row.self ? ` (${t('list.self')})` : ''}</td>
                      <td><span className={`xs-chip ${row.live ? 'xs-ok' : ''}`}>{row.live ? t('live') : t('cold')}</span></td>
                      <td className="xs-mono" title={row.cwd ?? ''}>{row.cwd ?? ''}</td>
                      <td title={row.owner === undefined ? '' : `${t('list.owner')} ${row.owner}`}>
                        {row.self ? '—' : row.subagent ? t('no') : t('yes')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div className="xs-msg-head">{`${list.rows.length} of ${list.matched} considered sessions`}</div>
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
  const value = resultValueOf(block)
  const refusal = stoppedOf(value)
  if (refusal !== undefined) return <RefusedRow toolName={name} t={t} target={args.session_id} refusal={refusal} text={text} />
  const read = value?.kind === 'read' ? value : undefined
  if (read === undefined) return <FallbackRow toolName={name} text={text} args={args} />
  const omitted = read.older.count > 0 ? ` · ${t('read.omitted', { count: read.older.count })}` : ''
  return (
    <div className="xs-row" data-xs-row={name} data-xs-outcome="read" data-xs-target={read.sessionId}>
      <Head
        title={t(titleKey(name))}
        chips={[<span key="target" className="xs-chip xs-mono" title={read.sessionId}>{shortId(read.sessionId)}</span>]}
        summary={`${read.title} · ${t('read.window', { shown: read.messages.length, readable: read.readable })}${omitted}`}
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

/** Each tool's row, by tool name: the key of its `tool.call.toolview` entry. */
export const TOOL_ROWS = {
  [TOOL_NAMES.list]: ListRow,
  [TOOL_NAMES.read]: ReadRow,
  [TOOL_NAMES.send]: SendRow,
}
