/**
 * What the target's user sees of peer messages (docs/tools.md#inbound-messages):
 * - {@link ApprovalDock}, in the keyed list slot `conversation.input.dock`
 *   (scope `session`, above the composer, as rc.8 ui-goal's dock): one card
 *   per message held for this session — the sender (id and title), a preview
 *   of the body, the mode and hop, when it expires — with Deliver and Refuse;
 * - {@link InboundAction}, in `conversation.session.header.actions` (as rc.8
 *   ui-job's action): the session's own inbound choice, or "as the host".
 * Both call the host half's channel (./channel.js, src/home/channel.ts).
 * @module dsh-cross-session/client/approvals
 */
import { useState } from 'react'
import { shortId } from '../core/tool-results.ts'
import { callChannel, timeLeft, usePolled } from './channel.js'
import { BodyText } from './body-text.jsx'

/** One held message with its two buttons. */
export function ApprovalCard({ approval, decide, openSession, t }) {
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
  return (
    <div className="xs-approval" data-xs-approval={approval.messageId} data-xs-sender={approval.sender}>
      <div className="xs-head">
        <span className="xs-title">{t('approval.from')}</span>
        <a href="#" className="xs-chip xs-mono" title={approval.sender} data-xs-open={approval.sender} onClick={event => { event.preventDefault(); openSession(approval.sender) }}>{shortId(approval.sender)}</a>
        <span className="xs-summary">{[title, approval.mode, t('send.hop', { hop: approval.hop }), t('approval.expires', { left: timeLeft(approval.expiresAt) })].filter(Boolean).join(' · ')}</span>
      </div>
      <BodyText text={approval.body} t={t} />
      <div className="xs-actions">
        <button type="button" className="xs-primary" data-xs-deliver={approval.messageId} disabled={busy} onClick={() => { void act('deliver') }}>{t('approval.deliver')}</button>
        <button type="button" data-xs-refuse={approval.messageId} disabled={busy} onClick={() => { void act('refuse') }}>{t('approval.refuse')}</button>
        <span className="xs-hint">{t('approval.hint')}</span>
      </div>
    </div>
  )
}

/** The dock: every message held for this session, oldest first. */
export function ApprovalDock({ ctx, sessionId, openSession, t }) {
  const { value, refresh } = usePolled(() => callChannel(ctx, 'approvals.list', { sessionId }), sessionId)
  const approvals = value?.approvals ?? []
  if (approvals.length === 0) return null
  const decide = async (messageId, decision) => {
    await callChannel(ctx, 'approvals.decide', { messageId, decision })
    await refresh()
  }
  return (
    <div className="xs-dock" data-xs-dock={sessionId}>
      {approvals.map(approval => <ApprovalCard key={approval.messageId} approval={approval} decide={decide} openSession={openSession} t={t} />)}
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
  return (
    <label className="xs-inbound" data-xs-inbound={sessionId} data-xs-effective={value.own ?? value.host} title={t('inbound.title')}>
      <span>{t('inbound.label')}</span>
      <select value={own} onChange={async event => { await callChannel(ctx, 'inbound.set', { sessionId, mode: event.target.value === '' ? null : event.target.value }); await refresh() }}>
        {CHOICES.map(mode => <option key={mode} value={mode}>{mode === '' ? t('inbound.host', { mode: label(value.host) }) : label(mode)}</option>)}
      </select>
    </label>
  )
}
