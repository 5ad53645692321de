/**
 * The web row of sessions_send (key `sessions_send` of the keyed slot
 * `tool.call.toolview`): target with its title, mode, hop, and where the
 * message is NOW — followed in the target's history as the host serves it
 * (src/client/send-state.ts), looked at again each time the host pushes a
 * change (./changes.js), until it is answered or lost, or for ten minutes
 * after the last change — not only where it was when the call returned.
 * A message held for the target's user is followed in the home store until its user
 * decides it or it expires (src/client/send-outcome.ts); refused or
 * expired, the row says so and when. While the message waits (held, or
 * pending in the store's queue) the row has a Withdraw button
 * (./withdraw.jsx); withdrawn, the row says so.
 * @module dsh-cross-session/client/send-row
 */
import { useState } from 'react'
import { shortId } from '../core/text.ts'
import { TOOL_NAMES } from '../model/tool-names.ts'
import { callRecordedOf, canWithdraw, sendOutcome } from './send-outcome.ts'
import { WithdrawAnswer, WithdrawButton } from './withdraw.jsx'
import { clock, timeLeftText } from './clock.js'
import { PeerWhy, usePeer } from './peer.jsx'
import { useHeldState, useSendState } from './send-follow.js'
import { argsOf, FallbackRow, Head, RefusedRow, resultTextOf, resultValueOf, Running, stoppedOf, titleKey } from './row-parts.jsx'

/** The chip's words and style for each outcome (./send-outcome.ts). */
function chipOf(outcome, t) {
  const approved = outcome.approvedAt === undefined ? '' : `${t('send.approved', { time: clock(outcome.approvedAt) })} · `
  switch (outcome.kind) {
    case 'answered': {
      const answered = t('send.answered', { seq: outcome.answerSeq })
      return { style: 'xs-ok', text: `${approved}${t('send.recorded', { seq: outcome.seq })} · ${answered}` }
    }
    case 'recorded': return { style: 'xs-ok', text: `${approved}${t('send.recorded', { seq: outcome.seq })}` }
    case 'inbox': return { style: 'xs-pending', text: t('send.inbox', { seq: outcome.seq }) }
    case 'lost': {
      const why = outcome.code === undefined ? outcome.why : t(`send.lost.${outcome.code}`)
      return { style: 'xs-refused', text: t('send.lost', { why }) }
    }
    case 'held': {
      if (outcome.expiresAt === undefined) return { style: 'xs-state-held', text: t('send.held') }
      return { style: 'xs-state-held', text: `${t('send.held')} · ${t('approval.expires', { left: timeLeftText(outcome.expiresAt, t) })}` }
    }
    case 'refused': return { style: 'xs-refused', text: t('send.heldRefused', { time: clock(outcome.at) }) }
    case 'expired': return { style: 'xs-refused', text: t('send.heldExpired', { time: clock(outcome.at) }) }
    case 'withdrawn': {
      const text = outcome.at === undefined ? t('send.withdrawn') : t('send.withdrawnAt', { time: clock(outcome.at) })
      return { style: 'xs-refused', text }
    }
    default: return { style: 'xs-pending', text: `${approved}${t('send.pending')}` }
  }
}

/** The outcome chip: where the message is now (followed), else where the call left it. */
function SendOutcomeChip({ outcome, target, t, openPeer }) {
  const { style, text } = chipOf(outcome, t)
  const seq = outcome.kind === 'recorded' || outcome.kind === 'answered' || outcome.kind === 'inbox' ? outcome.seq : undefined
  return (
    <span key="outcome" className={`xs-chip xs-state ${style}`} title={text} data-xs-state={outcome.kind} data-xs-seq={seq}
      data-xs-held={outcome.kind === 'held' ? 'true' : undefined} data-xs-approved={outcome.approvedAt === undefined ? undefined : 'true'}>
      {text}
      {outcome.kind === 'answered' ? ' · ' : null}
      {outcome.kind === 'answered'
        ? (
            <a href="#" data-xs-open-answer={target}
              onClick={event => { event.preventDefault(); event.stopPropagation(); void openPeer(target) }}>
              {t('send.openAnswer')}
            </a>
          )
        : null}
    </span>
  )
}

export function SendRow({ block, callId, t, ctx, history, held }) {
  const name = TOOL_NAMES.send
  const args = argsOf(block)
  const text = resultTextOf(block)
  const [open, setOpen] = useState(true)
  const peer = usePeer(ctx)
  const target = typeof args.session_id === 'string' ? args.session_id : undefined
  const body = typeof args.message === 'string' ? args.message : ''
  const id = callId ?? block?.call?.id ?? block?.id
  // Hooks before any return: a row goes from running to settled in place.
  const value = resultValueOf(block)
  // A retried call answers with its first result.
  const sent = value?.kind === 'retried' ? value.first : value?.kind === 'accepted' || value?.kind === 'held' ? value : undefined
  const recorded = callRecordedOf(value)
  const waits = recorded?.stage === 'held' || recorded?.stage === 'unconfirmed'
  const store = useHeldState(ctx, held, id, args, waits)
  const heldView = store.view
  const [answer, setAnswer] = useState(undefined)
  // A held message joins the target's history only once its user delivers it: followed from then on.
  const follows = recorded !== undefined && (recorded.stage !== 'held' || heldView?.state === 'delivered')
  const followed = useSendState(ctx, history, sent?.targetId, id, body, follows)
  if (text === null) return <Running toolName={name} t={t} summary={target === undefined ? '' : shortId(target)} />
  const refusal = stoppedOf(value)
  const bodyBlock = <div className="xs-msg-head">{t('send.body')}</div>
  if (refusal !== undefined) {
    const extra = <>{bodyBlock}<pre>{body}</pre><div className="xs-msg" /></>
    return <RefusedRow toolName={name} t={t} target={target} refusal={refusal} text={text} extra={extra} />
  }
  if (sent === undefined || recorded === undefined) return <FallbackRow toolName={name} text={text} args={args} />
  const outcome = answer?.state === 'withdrawn'
    ? { kind: 'withdrawn', at: answer.at }
    : sendOutcome(recorded, followed?.state, heldView, store.stored)
  const sender = ctx?.sessions?.list?.getSnapshot?.().current
  const withdrawable = store.messageId !== undefined && sender !== undefined && canWithdraw(outcome, heldView, store.stored)
  // A mailbox delivery does not say whether the other process woke it.
  const woke = sent.kind === 'accepted' && sent.woke && sent.remote === undefined
  // A message that never reached the target's history (held, refused) takes the title from the page's session list.
  const title = followed?.title ?? ctx?.sessions?.list?.getSnapshot?.().byId?.[sent.targetId]?.title
  const titled = title === undefined ? shortId(sent.targetId) : `${shortId(sent.targetId)} "${title}"`
  return (
    <div className="xs-row" data-xs-row={name} data-xs-outcome="accepted" data-xs-target={sent.targetId}>
      <Head
        title={t(titleKey(name))}
        chips={[
          <span key="target" className="xs-chip xs-mono xs-target" title={sent.targetId} data-xs-target-title={title ?? ''}>
            {`→ ${titled}`}
          </span>,
          <span key="mode" className="xs-chip" data-xs-mode={sent.mode}>{t(`mode.${sent.mode}`)}</span>,
          <span key="hop" className="xs-chip">{t('send.hop', { hop: sent.hop })}</span>,
          <SendOutcomeChip key="outcome" outcome={outcome} target={sent.targetId} t={t} openPeer={peer.open} />,
          ...(woke ? [<span key="woke" className="xs-chip">{t('send.woke')}</span>] : []),
        ]}
        summary={body.split('\n')[0] ?? ''}
        open={open}
        onToggle={() => setOpen(!open)}
      />
      <PeerWhy why={peer.why} t={t} onClose={peer.dismiss} />
      {withdrawable || answer !== undefined
        ? (
            <div className="xs-actions">
              {withdrawable ? <WithdrawButton ctx={ctx} messageId={store.messageId} sender={sender} t={t} onAnswer={setAnswer} /> : null}
              <WithdrawAnswer answer={answer} t={t} />
            </div>
          )
        : null}
      {open ? <div className="xs-body">{bodyBlock}<pre data-xs-body="true">{body}</pre></div> : null}
    </div>
  )
}
