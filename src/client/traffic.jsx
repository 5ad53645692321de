/**
 * The traffic view: every message between sessions on this home — who
 * messaged whom, when, the mode, and its state (held, pending, recorded,
 * answered, refused, expired) — newest first, with Deliver and Refuse on
 * held ones. A footer button of the sidebar (the list slot
 * `sidebar.footer.action`, beside rc.8 ui-cordis's plugin panel, whose
 * button and panel it follows) opens it; it polls the host half's channel
 * while open (src/home/channel.ts `traffic.list`). docs/architecture.md §7.
 * @module dsh-cross-session/client/traffic
 */
import { useState } from 'react'
import { shortId } from '../core/tool-results.ts'
import { callChannel, timeLeft, usePolled } from './channel.js'
import { preview } from './body-text.jsx'

function clock(at) {
  const date = new Date(at)
  const pad = n => String(n).padStart(2, '0')
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

function Who({ id, titles, openSession }) {
  const title = titles[id]
  return (
    <a href="#" className="xs-who" title={id} data-xs-open={id} onClick={event => { event.preventDefault(); openSession(id) }}>
      <span className="xs-mono">{shortId(id)}</span>{title === undefined ? null : <span className="xs-who-title">{title}</span>}
    </a>
  )
}

/** One row of the view. */
function TrafficRow({ row, titles, openSession, decide, t }) {
  const recorded = row.seq === undefined ? [] : [t('traffic.recorded', { seq: row.seq })]
  const answered = row.answeredSeq === undefined ? [] : [t('traffic.answered', { seq: row.answeredSeq })]
  const detail = row.state === 'held' ? t('approval.expires', { left: timeLeft(row.expiresAt ?? 0) }) : [...recorded, ...answered].join(' · ')
  return (
    <li className="xs-traffic-row" data-xs-traffic={row.messageId} data-xs-state={row.state}>
      <div className="xs-traffic-head">
        <span className="xs-traffic-time">{clock(row.at)}</span>
        <Who id={row.sender} titles={titles} openSession={openSession} />
        <span className="xs-arrow">→</span>
        <Who id={row.target} titles={titles} openSession={openSession} />
        <span className="xs-chip">{row.notice === true ? t('traffic.notice') : row.mode}</span>
        <span className={`xs-chip xs-state-${row.state}`} data-xs-state-chip={row.state}>{t(`state.${row.state}`)}</span>
      </div>
      {row.body === undefined ? null : <div className="xs-traffic-body">{preview(row.body, 160).shown}</div>}
      {row.state === 'held'
        ? (
            <div className="xs-actions">
              <button type="button" className="xs-primary" data-xs-deliver={row.messageId} onClick={() => { void decide(row.messageId, 'deliver') }}>{t('approval.deliver')}</button>
              <button type="button" data-xs-refuse={row.messageId} onClick={() => { void decide(row.messageId, 'refuse') }}>{t('approval.refuse')}</button>
              <span className="xs-hint">{detail}</span>
            </div>
          )
        : detail === '' && row.reason === undefined ? null : <div className="xs-hint">{[detail, row.reason === undefined ? '' : t(`reason.${row.reason}`)].filter(Boolean).join(' · ')}</div>}
    </li>
  )
}

/** The footer button and its panel. */
export function TrafficAction({ ctx, wide, openSession, t }) {
  const [open, setOpen] = useState(false)
  const { value, error, refresh } = usePolled(() => callChannel(ctx, 'traffic.list', {}), 'traffic', 2000, open)
  const held = usePolled(() => callChannel(ctx, 'approvals.list', {}), 'held-count', 5000)
  const count = held.value?.approvals?.length ?? 0
  const decide = async (messageId, decision) => {
    await callChannel(ctx, 'approvals.decide', { messageId, decision })
    await refresh()
    await held.refresh()
  }
  const rows = value?.rows ?? []
  return (
    <div className={wide ? 'xs-footer' : 'xs-footer xs-rail'}>
      {open
        ? (
            <section className="xs-panel" data-xs-traffic-panel="true" aria-label={t('traffic.title')}>
              <header><span>{t('traffic.title')}</span><button type="button" className="xs-close" aria-label={t('traffic.close')} onClick={() => setOpen(false)}>×</button></header>
              <div className="xs-panel-body">
                {error !== undefined ? <p className="xs-error" role="alert">{error}</p> : null}
                {value !== undefined && rows.length === 0 ? <p className="xs-hint">{t('traffic.empty')}</p> : null}
                <ul className="xs-traffic">{rows.map(row => <TrafficRow key={row.messageId} row={row} titles={value?.titles ?? {}} openSession={openSession} decide={decide} t={t} />)}</ul>
              </div>
            </section>
          )
        : null}
      <button type="button" className="xs-badge" data-xs-traffic-button="true" data-active={count > 0 || undefined} aria-expanded={open} aria-label={t('traffic.title')} onClick={() => setOpen(!open)}>
        <span aria-hidden="true">⇄</span>
        {wide ? <><span className="xs-badge-label">{t('traffic.button')}</span>{count > 0 ? <span className="xs-badge-count" data-xs-held-count={count}>{t('traffic.held', { count })}</span> : null}</> : null}
      </button>
    </div>
  )
}
