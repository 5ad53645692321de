/**
 * What the target's user sees of peer messages (docs/tools.md#inbound-messages):
 * - {@link ApprovalDock}, in the keyed list slot `conversation.input.dock`
 *   (scope `session`, above the composer, as rc.8 ui-goal's dock): one card
 *   per message held for this session — the sender (id and title), a preview
 *   of the body, the mode and hop, when it expires — with Deliver and Refuse;
 *   below them, one line per held message its user refused or that expired
 *   in the last day (when, from whom, the start of the body), until dismissed;
 * - {@link InboundAction}, in `conversation.session.header.actions` (as rc.8
 *   ui-job's action): the session's own inbound choice, or "as the host".
 * Both call the host half's channel (./channel.js, src/home/channel.ts).
 * @module dsh-cross-session/client/approvals
 */
import { useState } from 'react'
import { callChannel, usePolled } from './channel.js'
import { changed, useChanges } from './changes.js'
import { BodyText, preview } from './body-text.jsx'
import { clock, timeLeftText } from './clock.js'
import { CopyId } from './copy-id.jsx'
import { PeerWhy, usePeer } from './peer.jsx'

/**
 * One held message with its two buttons; `behind`: an earlier message of the same sender is still held here, so Deliver
 * waits for it (one sender's messages arrive in the order it sent them; the store refuses it too, `earlier-held`).
 */
export function ApprovalCard({ approval, decide, openPeer, t, behind = false }) {
  const [busy, setBusy] = useState(false)
  const act = async decision => {
    setBusy(true)
    try {
      await decide(approval.messageId, decision)
    } finally {
      setBusy(false)
    }
  }
  const title = approval.senderTitle === '' ? undefined : `"${approval.senderTitle}"`
  const expires = t('approval.expires', { left: timeLeftText(approval.expiresAt, t) })
  const summary = [title, t(`mode.${approval.mode}`), t('send.hop', { hop: approval.hop }), expires].filter(Boolean).join(' · ')
  return (
    <div className="xs-approval" data-xs-approval={approval.messageId} data-xs-sender={approval.sender}>
      <div className="xs-head xs-wrap">
        <span className="xs-title">{t('approval.from')}</span>
        <CopyId id={approval.sender} t={t} />
        <span className="xs-summary">{summary}</span>
        <a href="#" data-xs-open={approval.sender} onClick={event => { event.preventDefault(); void openPeer(approval.sender) }}>
          {t('received.open')}
        </a>
      </div>
      <BodyText text={approval.body} t={t} />
      <div className="xs-actions">
        <button type="button" className="xs-primary" data-xs-deliver={approval.messageId} disabled={busy || behind}
          onClick={() => { void act('deliver') }}>
          {t('approval.deliver')}
        </button>
        <button type="button" data-xs-refuse={approval.messageId} disabled={busy} onClick={() => { void act('refuse') }}>
          {t('approval.refuse')}
        </button>
        <span className="xs-hint" data-xs-behind={behind ? 'true' : undefined}>{t(behind ? 'approval.behind' : 'approval.hint')}</span>
      </div>
    </div>
  )
}

/** How long a refused or expired message stays in the dock (then only the traffic view shows it), ms. */
const TRACE_FOR_MS = 24 * 60 * 60_000
/** Most such lines at once. */
const MAX_TRACES = 5
/** Where this page remembers the lines its user dismissed (message ids). */
const DISMISSED_KEY = 'dsh-cross-session:dismissed'

function readDismissed() {
  try {
    const value = JSON.parse(globalThis.localStorage?.getItem(DISMISSED_KEY) ?? '[]')
    return new Set(Array.isArray(value) ? value : [])
  } catch {
    return new Set()
  }
}

function useDismissed() {
  const [dismissed, setDismissed] = useState(readDismissed)
  const dismiss = messageId => {
    const next = new Set([...dismissed, messageId])
    try {
      globalThis.localStorage?.setItem(DISMISSED_KEY, JSON.stringify([...next].slice(-200)))
    } catch {
      // Storage off: the line goes for this page only.
    }
    setDismissed(next)
  }
  return { dismissed, dismiss }
}

/** A held message its user refused, or that expired: who sent it, when it ended, the start of the body. */
export function DecidedLine({ decided, onDismiss, t }) {
  const title = decided.senderTitle === '' ? '' : `"${decided.senderTitle}"`
  const time = clock(decided.decidedAt ?? decided.expiresAt)
  const line = t(decided.state === 'refused' ? 'approval.refusedLine' : 'approval.expiredLine', { time })
  const start = preview(decided.body.split('\n')[0] ?? '', 120).shown
  return (
    <div className="xs-decided" data-xs-decided={decided.messageId} data-xs-decided-state={decided.state} role="status">
      <span className={`xs-chip xs-state-${decided.state}`}>{t(`state.${decided.state}`)}</span>
      <span className="xs-decided-text" title={line}>{line}</span>
      <CopyId id={decided.sender} t={t} />
      <span className="xs-summary" title={decided.body}>{`${title === '' ? '' : `${title}: `}${start}`}</span>
      <button type="button" className="xs-close" aria-label={t('approval.dismiss')} title={t('approval.dismiss')}
        onClick={() => onDismiss(decided.messageId)}>
        ×
      </button>
    </div>
  )
}

/** The dock: every message held for this session, oldest first, then what its user refused or let expire lately. */
export function ApprovalDock({ ctx, sessionId, t }) {
  const peer = usePeer(ctx)
  const { value, refresh } = usePolled(() => callChannel(ctx, 'approvals.list', { sessionId }), sessionId)
  const decidedPoll = usePolled(() => callChannel(ctx, 'approvals.decided', { sessionId }), `${sessionId}:decided`)
  useChanges(ctx, async () => { await Promise.all([refresh(), decidedPoll.refresh()]) })
  const { dismissed, dismiss } = useDismissed()
  const approvals = value?.approvals ?? []
  const since = Date.now() - TRACE_FOR_MS
  const decided = (decidedPoll.value?.decided ?? [])
    .filter(item => !dismissed.has(item.messageId) && (item.decidedAt ?? item.expiresAt) >= since)
    .slice(0, MAX_TRACES)
  if (approvals.length === 0 && decided.length === 0 && peer.why === undefined) return null
  const decide = async (messageId, decision) => {
    await callChannel(ctx, 'approvals.decide', { messageId, decision })
    changed()
  }
  return (
    <div className="xs-dock" data-xs-dock={sessionId}>
      <PeerWhy why={peer.why} t={t} onClose={peer.dismiss} />
      {approvals.map((approval, index) => (
        <ApprovalCard key={approval.messageId} approval={approval} decide={decide} openPeer={peer.open} t={t}
          behind={approvals.slice(0, index).some(earlier => earlier.sender === approval.sender)} />
      ))}
      {decided.map(item => <DecidedLine key={item.messageId} decided={item} onDismiss={dismiss} t={t} />)}
    </div>
  )
}

const CHOICES = ['', 'accept', 'hold', 'refuse']

/** The session's own inbound choice ('' follows the host's setting). */
export function InboundAction({ ctx, sessionId, t }) {
  const { value, refresh } = usePolled(() => callChannel(ctx, 'inbound.get', { sessionId }), sessionId, 10_000)
  if (value === undefined) return null
  const own = value.own ?? ''
  const label = mode => t(`inbound.${mode}`)
  const choose = async event => {
    await callChannel(ctx, 'inbound.set', { sessionId, mode: event.target.value === '' ? null : event.target.value })
    await refresh()
    changed()
  }
  return (
    <label className="xs-inbound" data-xs-inbound={sessionId} data-xs-effective={value.own ?? value.host} title={t('inbound.title')}>
      <span>{t('inbound.label')}</span>
      <select value={own} onChange={choose}>
        {CHOICES.map(mode => (
          <option key={mode} value={mode}>{mode === '' ? t('inbound.host', { mode: label(value.host) }) : label(mode)}</option>
        ))}
      </select>
    </label>
  )
}
