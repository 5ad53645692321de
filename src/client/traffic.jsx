/**
 * The traffic view: every message between sessions on this home — who
 * messaged whom, when, the mode, and its state (held, pending, recorded,
 * answered, refused, expired, withdrawn) — newest first, with Deliver and
 * Refuse on held ones and Withdraw (./withdraw.jsx) on waiting ones. A footer button of the sidebar (the list slot
 * `sidebar.footer.action`, beside rc.8 ui-cordis's plugin panel, whose
 * button and panel it follows) opens it; Escape or × closes it; two
 * filters narrow it to held messages and to the open session's. It reads the
 * host half's channel (src/home/channel.ts `traffic.list`) when it opens and
 * when the host pushes a change (./changes.js; a slow poll only while the
 * key socket is lost).
 *
 * Each side of a row is a line of its own, so a title has the panel's width
 * (cut with an ellipsis only at its edge); beside it the session's
 * workspace and the dsh process that holds it or last let it go (the
 * channel's `sessions.about`), which tells apart sessions of the same title,
 * a headless `dsh` run's among them. Ids copy whole with one click; a name
 * opens the session (./peer.jsx: or says why this page cannot).
 * docs/architecture.md §7.
 * @module dsh-cross-session/client/traffic
 */
import { useEffect, useState } from 'react'
import { callChannel, usePolled } from './channel.js'
import { changed, useChanges } from './changes.js'
import { preview } from './body-text.jsx'
import { clock, timeLeftText } from './clock.js'
import { CopyId } from './copy-id.jsx'
import { PeerWhy, usePeer, whereText } from './peer.jsx'
import { WithdrawAnswer, WithdrawButton } from './withdraw.jsx'

/** Most ids one `sessions.about` call takes (src/home/channel-views.ts `MAX_ABOUT`). */
const ABOUT_BATCH = 50

/** What the host knows of each session in `ids` (`sessions.about`, asked in batches of its bound). */
async function aboutAll(ctx, ids) {
  const batches = []
  for (let i = 0; i < ids.length; i += ABOUT_BATCH) batches.push(ids.slice(i, i + ABOUT_BATCH))
  const answers = await Promise.all(batches.map(batch => callChannel(ctx, 'sessions.about', { sessionIds: batch })))
  return Object.assign({}, ...answers.map(answer => answer.sessions ?? {}))
}

/** One side of a row: the id (copies), the title (opens), where it is. */
function Who({ role, id, titles, about, openPeer, t }) {
  const known = about[id]
  const title = titles[id] ?? known?.title ?? undefined
  return (
    <div className="xs-who-line" data-xs-who={role}>
      <span className="xs-who-role">{t(`traffic.${role}`)}</span>
      <CopyId id={id} t={t} />
      <a href="#" className="xs-who" title={title ?? id} data-xs-open={id} onClick={event => { event.preventDefault(); void openPeer(id) }}>
        {title ?? t('traffic.untitled')}
      </a>
      {known === undefined
        ? null
        : <span className="xs-who-where" data-xs-where={id} title={whereText(known, t)}>{whereText(known, t)}</span>}
    </div>
  )
}

/** Whether `other` is a message of the same sender to the same target, held, and sent before `row` (Deliver of `row` waits for it). */
function heldBefore(other, row) {
  return other.state === 'held' && other.messageId !== row.messageId && other.sender === row.sender && other.target === row.target
    && other.at < row.at
}

/** One row of the view. */
function TrafficRow({ row, titles, about, openPeer, decide, ctx, t, behind = false }) {
  const [answer, setAnswer] = useState(undefined)
  // A peer's message still waiting (held, or pending in the store's queue) can be withdrawn by its sender's user;
  // a notice is this package's own.
  const withdrawable = row.notice !== true && (row.state === 'held' || row.state === 'pending') && answer?.state !== 'withdrawn'
  const recorded = row.seq === undefined ? [] : [t('traffic.recorded', { seq: row.seq })]
  const answered = row.answeredSeq === undefined ? [] : [t('traffic.answered', { seq: row.answeredSeq })]
  const detail = row.state === 'held'
    ? t('approval.expires', { left: timeLeftText(row.expiresAt ?? 0, t) })
    : [...recorded, ...answered].join(' · ')
  const details = [detail, row.reason === undefined ? '' : t(`reason.${row.reason}`)].filter(Boolean).join(' · ')
  const act = decision => () => { void decide(row.messageId, decision) }
  return (
    <li className="xs-traffic-row" data-xs-traffic={row.messageId} data-xs-state={row.state}>
      <div className="xs-traffic-head">
        <span className="xs-traffic-time">{clock(row.at, { seconds: true })}</span>
        <span className="xs-chip">{row.notice === true ? t('traffic.notice') : t(`mode.${row.mode}`)}</span>
        <span className={`xs-chip xs-state-${row.state}`} data-xs-state-chip={row.state}>{t(`state.${row.state}`)}</span>
        <span className="xs-hint xs-traffic-detail">{details}</span>
      </div>
      <Who role="from" id={row.sender} titles={titles} about={about} openPeer={openPeer} t={t} />
      <Who role="to" id={row.target} titles={titles} about={about} openPeer={openPeer} t={t} />
      {row.body === undefined
        ? null
        : <div className="xs-traffic-body" title={row.body}>{preview(row.body.split('\n')[0] ?? '', 160).shown}</div>}
      {row.state === 'held' || withdrawable || answer !== undefined
        ? (
            <div className="xs-actions">
              {row.state === 'held'
                ? (
                    <button type="button" className="xs-primary" data-xs-deliver={row.messageId} disabled={behind}
                      title={behind ? t('approval.behind') : undefined} onClick={act('deliver')}>
                      {t('approval.deliver')}
                    </button>
                  )
                : null}
              {row.state === 'held'
                ? <button type="button" data-xs-refuse={row.messageId} onClick={act('refuse')}>{t('approval.refuse')}</button>
                : null}
              {withdrawable ? <WithdrawButton ctx={ctx} messageId={row.messageId} sender={row.sender} t={t} onAnswer={setAnswer} /> : null}
              <WithdrawAnswer answer={answer} t={t} />
            </div>
          )
        : null}
    </li>
  )
}

/** The footer button and its panel. */
export function TrafficAction({ ctx, wide, t }) {
  const [open, setOpen] = useState(false)
  const [filters, setFilters] = useState({ held: false, mine: false })
  const peer = usePeer(ctx)
  const { value, error, refresh } = usePolled(() => callChannel(ctx, 'traffic.list', {}), 'traffic', undefined, open)
  const rows = value?.rows ?? []
  const current = ctx.sessions?.list?.getSnapshot?.().current
  const shown = rows.filter(row => (!filters.held || row.state === 'held')
    && (!filters.mine || row.sender === current || row.target === current))
  const toggle = name => setFilters(previous => ({ ...previous, [name]: !previous[name] }))
  const ids = [...new Set(rows.flatMap(row => [row.sender, row.target]))].sort()
  const about = usePolled(() => (ids.length === 0 ? Promise.resolve({}) : aboutAll(ctx, ids)), `about:${ids.join(',')}`, 10_000, open)
  const held = usePolled(() => callChannel(ctx, 'approvals.list', {}), 'held-count')
  useChanges(ctx, async () => { await Promise.all([held.refresh(), ...(open ? [refresh()] : [])]) })
  const count = held.value?.approvals?.length ?? 0
  useEffect(() => {
    if (!open) return undefined
    const onKey = event => { if (event.key === 'Escape') setOpen(false) }
    globalThis.addEventListener('keydown', onKey)
    return () => globalThis.removeEventListener('keydown', onKey)
  }, [open])
  const decide = async (messageId, decision) => {
    await callChannel(ctx, 'approvals.decide', { messageId, decision })
    changed()
  }
  return (
    <div className={wide ? 'xs-footer' : 'xs-footer xs-rail'}>
      {open
        ? (
            <section className="xs-panel" data-xs-traffic-panel="true" aria-label={t('traffic.title')}>
              <header>
                <span>{t('traffic.title')}</span>
                <button type="button" className="xs-close" aria-label={t('traffic.close')} onClick={() => setOpen(false)}>×</button>
              </header>
              <div className="xs-panel-body">
                <PeerWhy why={peer.why} t={t} onClose={peer.dismiss} />
                {error !== undefined ? <p className="xs-error" role="alert">{error}</p> : null}
                <div className="xs-filters" role="group" aria-label={t('traffic.filter')}>
                  <button type="button" className="xs-chip xs-filter" aria-pressed={filters.held} data-xs-filter="held"
                    onClick={() => toggle('held')}>
                    {t('traffic.onlyHeld')}
                  </button>
                  <button type="button" className="xs-chip xs-filter" aria-pressed={filters.mine} data-xs-filter="mine"
                    disabled={current === undefined} onClick={() => toggle('mine')}>
                    {t('traffic.onlyThis')}
                  </button>
                </div>
                {value !== undefined && shown.length === 0
                  ? <p className="xs-hint">{t(rows.length === 0 ? 'traffic.empty' : 'traffic.noneShown')}</p>
                  : null}
                <ul className="xs-traffic">
                  {shown.map(row => (
                    <TrafficRow key={row.messageId} row={row} titles={value?.titles ?? {}} about={about.value ?? {}}
                      openPeer={peer.open} decide={decide} ctx={ctx} t={t}
                      behind={row.state === 'held' && shown.some(other => heldBefore(other, row))} />
                  ))}
                </ul>
              </div>
            </section>
          )
        : null}
      <button type="button" className="xs-badge" data-xs-traffic-button="true" data-active={count > 0 || undefined} aria-expanded={open}
        aria-label={t('traffic.title')} onClick={() => setOpen(!open)}>
        <span aria-hidden="true">⇄</span>
        {wide ? <span className="xs-badge-label">{t('traffic.button')}</span> : null}
        {wide && count > 0 ? <span className="xs-badge-count" data-xs-held-count={count}>{t('traffic.held', { count })}</span> : null}
      </button>
    </div>
  )
}
