/**
 * The web row of sessions_send (key `sessions_send` of the keyed slot
 * `tool.call.toolview`): target with its title, mode, hop, and where the
 * message is NOW — followed in the target's history as the host serves it
 * (src/client/send-state.ts) until it is answered or lost, or for ten
 * minutes — not only where it was when the call returned.
 * @module dsh-cross-session/client/send-row
 */
import { useEffect, useState } from 'react'
import { parseRefusal, parseSendResult, shortId } from '../core/tool-results.ts'
import { TOOL_NAMES } from '../model/tool-names.ts'
import { isSettled, readHistory, sendStateOf } from './send-state.ts'
import { argsOf, FallbackRow, Head, RefusedRow, resultTextOf, Running, titleKey } from './row-parts.jsx'

/** How often a send row looks at its target's history while its message can still move, ms, and for how long. */
const FOLLOW_EVERY_MS = 2000
const FOLLOW_FOR_MS = 10 * 60_000

/**
 * Follow the message in the target's history (src/client/send-state.ts):
 * `undefined` until the first look, or when the host serves no history.
 */
function useSendState(history, target, callId, body, enabled) {
  const [view, setView] = useState(undefined)
  useEffect(() => {
    if (!enabled || typeof history !== 'function' || target === undefined || typeof callId !== 'string') return undefined
    let stopped = false
    let timer
    const until = Date.now() + FOLLOW_FOR_MS
    const look = async () => {
      try {
        const { events, title } = readHistory(await history(target))
        if (stopped) return
        const state = sendStateOf(events, callId, body)
        setView({ state, title })
        if (isSettled(state)) return
      } catch {
        // The target may be gone or unreadable: keep what the call said.
      }
      if (!stopped && Date.now() < until) timer = setTimeout(look, FOLLOW_EVERY_MS)
    }
    void look()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [history, target, callId, body, enabled])
  return view
}

/** The outcome chip: where the message is now (followed), else where the call left it. */
function SendOutcome({ sent, followed, t, openSession }) {
  const state = followed?.state
  if (state?.stage === 'answered') {
    return (
      <span key="outcome" className="xs-chip xs-ok" data-xs-state="answered" data-xs-seq={state.seq}>
        {`${t('send.recorded', { seq: state.seq })} · ${t('send.answered', { seq: state.answerSeq })} · `}
        <a href="#" data-xs-open-answer={sent.sessionId} onClick={event => { event.preventDefault(); event.stopPropagation(); openSession?.(sent.sessionId) }}>{t('send.openAnswer')}</a>
      </span>
    )
  }
  if (state?.stage === 'recorded') return <span key="outcome" className="xs-chip xs-ok" data-xs-state="recorded" data-xs-seq={state.seq}>{t('send.recorded', { seq: state.seq })}</span>
  if (state?.stage === 'lost') return <span key="outcome" className="xs-chip xs-refused" data-xs-state="lost">{t('send.lost', { why: state.why })}</span>
  const refused = sent.recorded.stage === 'unconfirmed' ? /(?:^| \| )refused by that process: (.+)$/.exec(sent.recorded.note)?.[1] : undefined
  if (refused !== undefined) return <span key="outcome" className="xs-chip xs-refused" data-xs-state="lost">{t('send.lost', { why: refused })}</span>
  if (sent.recorded.stage === 'conversation') return <span key="outcome" className="xs-chip xs-ok" data-xs-state="recorded" data-xs-seq={sent.recorded.seq}>{t('send.recorded', { seq: sent.recorded.seq })}</span>
  if (sent.recorded.stage === 'inbox') return <span key="outcome" className="xs-chip xs-pending" data-xs-state="inbox" data-xs-seq={sent.recorded.seq}>{t('send.inbox', { seq: sent.recorded.seq })}</span>
  // Held for the target's user (docs/tools.md#inbound-messages): until it is delivered and joins the target's log, it reads held.
  if (sent.recorded.stage === 'held') return <span key="outcome" className="xs-chip xs-state-held" data-xs-state="held" data-xs-held="true">{t('send.held')}</span>
  if (state?.stage === 'pending') return <span key="outcome" className="xs-chip xs-pending" data-xs-state="pending">{t('send.pending')}</span>
  return <span key="outcome" className="xs-chip xs-pending" data-xs-state="accepted">{t('send.accepted')}</span>
}

export function SendRow({ block, callId, t, history, openSession }) {
  const name = TOOL_NAMES.send
  const args = argsOf(block)
  const text = resultTextOf(block)
  const [open, setOpen] = useState(true)
  const target = typeof args.session_id === 'string' ? args.session_id : undefined
  const body = typeof args.message === 'string' ? args.message : ''
  // Hooks before any return: a row goes from running to settled in place.
  const parsed = text === null ? undefined : parseSendResult(text)
  const followed = useSendState(history, parsed?.sessionId, callId ?? block?.call?.id ?? block?.id, body, parsed !== undefined)
  if (text === null) return <Running toolName={name} t={t} summary={target === undefined ? '' : shortId(target)} />
  const refusal = parseRefusal(text)
  const bodyBlock = <div className="xs-msg-head">{t('send.body')}</div>
  if (refusal !== undefined) return <RefusedRow toolName={name} t={t} target={target} refusal={refusal} text={text} extra={<>{bodyBlock}<pre>{body}</pre><div className="xs-msg" /></>} />
  const sent = parsed
  if (sent === undefined) return <FallbackRow toolName={name} text={text} args={args} />
  const recorded = <SendOutcome key="outcome" sent={sent} followed={followed} t={t} openSession={openSession} />
  const titled = followed?.title === undefined ? shortId(sent.sessionId) : `${shortId(sent.sessionId)} "${followed.title}"`
  return (
    <div className="xs-row" data-xs-row={name} data-xs-outcome="accepted" data-xs-target={sent.sessionId}>
      <Head
        title={t(titleKey(name))}
        chips={[
          <span key="target" className="xs-chip xs-mono" title={sent.sessionId} data-xs-target-title={followed?.title ?? ''}>{`→ ${titled}`}</span>,
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
