/**
 * The received side: a message this package delivered (a `user/message` with
 * its relay source, src/model/provenance.ts `deliveredProvenance` — recorded by the
 * deliverer, never read from text, so frames on or off) gets a row of its
 * own in the target's chat — "Message from session 4b91… "title" · queue
 * · hop 1 · Reply", then the body itself as plain text with the frame
 * stripped (./body-text.jsx: a long body is cut visibly, the rest one click
 * away) — so it does not read as the human's words, and the user reads what
 * the peer said without opening rc.8's collapsed context-injection row,
 * which shows the raw frame. Reply opens the sender (./peer.jsx: or says
 * why this page cannot). A message its user delivered after it was held
 * says so and when. A notice reads "Notice from session 4b91… "title" ·
 * finished · Open session", then the start of the answer its model got.
 *
 * rc.8 offers no per-message seat inside the user bubble: user messages are
 * the built-in `user` Chat Node (dsh-client-ui-conversation), and every
 * Definition that matches an event builds its own node (dsh-client-runtime
 * `dispatchInput`). So this Definition adds a `cross-session-message` node
 * next to the bubble, which remains (docs/architecture.md §7, "Two halves").
 * Shapes follow the rc.8 cookbook "adding a conversation node" and
 * ui-workflow-run's `ctx.sessions.open`.
 * @module dsh-cross-session/client/received
 */
import { parseFrame } from '../framing.ts'
import { parseNotice } from '../framing.ts'
import { deliveredProvenance } from '../model/provenance.ts'
import { useEffect, useState } from 'react'
import { BodyText } from './body-text.jsx'
import { callChannel } from './channel.js'
import { clock } from './clock.js'
import { CopyId } from './copy-id.jsx'
import { PeerWhy, usePeer } from './peer.jsx'

/** Node kind (the keyed `conversation.chat.node` entry). */
export const RECEIVED_KIND = 'cross-session-message'

function textOf(message) {
  const content = message?.content
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.filter(block => block?.type === 'text').map(block => block.text).join('')
}

/**
 * Who sent a delivered message, from its recorded provenance; the sender's
 * title and the mode only from a frame built for that same sender (frames
 * are off with `frameMessages: false`).
 */
function deliveredBy(message) {
  const text = textOf(message)
  const provenance = deliveredProvenance(message ?? {}, text)
  if (provenance === undefined) return undefined
  const frame = parseFrame(text)
  const framed = frame !== undefined && frame.fromSessionId === provenance.senderSessionId
  const messageId = typeof message?.id === 'string' ? message.id : undefined
  const base = { fromSessionId: provenance.senderSessionId, hop: provenance.hop, messageId }
  // A notice (docs/tools.md#notices): how the watched turn ended, from the recorded source; the title and
  // the start of the answer the model got, from its text when it names that same sender.
  if (provenance.notice !== undefined) {
    const notice = parseNotice(text)
    const same = notice !== undefined && notice.fromSessionId === provenance.senderSessionId
    return {
      ...base, notice: provenance.notice, fromTitle: same ? notice.fromTitle : '',
      mode: undefined, excerpt: same ? notice.excerpt : undefined,
    }
  }
  // Frames off: the text is the body. A frame for another sender is text a model wrote: shown as it is.
  return { ...base, fromTitle: framed ? frame.fromTitle : '', mode: framed ? frame.mode : undefined, body: framed ? frame.body : text }
}

/** Conversation Definition: one node per delivered user message, keyed by its seq. */
export const receivedDefinition = {
  kind: RECEIVED_KIND,
  target: 'chat',
  match: event => {
    if (event?.type !== 'user/message') return null
    return deliveredBy(event.data) === undefined ? null : { id: String(event.seq), role: 'start' }
  },
  start: (_context, match) => ({ seq: match.event.seq, ...deliveredBy(match.event.data) }),
  update: context => context.state,
  buildViewNode: context => {
    const state = context.state
    if (state === undefined) return null
    return {
      key: context.key,
      kind: RECEIVED_KIND,
      id: context.id,
      target: 'chat',
      anchorSeq: state.seq,
      location: context.start?.location ?? context.matches[0]?.location ?? { kind: 'unresolved' },
      visibility: 'visible',
      data: state,
    }
  },
}

/** Dictionary key of a notice outcome (`completed` reads "finished"). */
const NOTICE_WORDS = {
  completed: 'notice.completed',
  failed: 'notice.failed',
  interrupted: 'notice.interrupted',
  refused: 'notice.refused',
  expired: 'notice.expired',
}

/** Whether this message was held for this session's user first, and when they delivered it (the channel's `approvals.get`). */
function useApproved(ctx, messageId) {
  const [approval, setApproval] = useState(undefined)
  useEffect(() => {
    if (ctx === undefined || typeof messageId !== 'string') return undefined
    let stopped = false
    callChannel(ctx, 'approvals.get', { messageId })
      .then(value => { if (!stopped) setApproval(value?.approval ?? undefined) }, () => undefined)
    return () => { stopped = true }
  }, [ctx, messageId])
  return approval?.state === 'delivered' ? approval : undefined
}

/**
 * The row: who sent it, how, the body, and Reply (opens the sender); a notice says how the sender's watched turn
 * ended and the start of its answer.
 */
export function ReceivedRow({ node, ctx, t }) {
  const carried = node.data
  // The text carries no title (frames off, or a held message's notice): the page's session list may know it.
  const listed = carried.fromTitle === '' ? ctx?.sessions?.list?.getSnapshot?.().byId?.[carried.fromSessionId]?.title : undefined
  const data = typeof listed === 'string' && listed !== '' ? { ...carried, fromTitle: listed } : carried
  const peer = usePeer(ctx)
  const approved = useApproved(ctx, data.notice === undefined ? data.messageId : undefined)
  const title = data.fromTitle === '' ? undefined : `"${data.fromTitle}"`
  const open = event => { event.preventDefault(); void peer.open(data.fromSessionId) }
  if (data.notice !== undefined) {
    return (
      <div className="xs-row" data-xs-received={data.fromSessionId} data-xs-notice={data.notice}>
        <div className="xs-head xs-wrap">
          <span className="xs-title">{t('notice.from')}</span>
          <CopyId id={data.fromSessionId} t={t} />
          <span className="xs-summary">{[title, t(NOTICE_WORDS[data.notice] ?? 'notice.failed')].filter(Boolean).join(' · ')}</span>
          <a href="#" data-xs-open={data.fromSessionId} onClick={open}>{t('received.open')}</a>
        </div>
        <PeerWhy why={peer.why} t={t} onClose={peer.dismiss} />
        {typeof data.excerpt === 'string'
          ? (
              <div className="xs-received-body" data-xs-notice-excerpt="true">
                <div className="xs-msg-head">{t('notice.answer')}</div>
                <BodyText text={data.excerpt} t={t} />
              </div>
            )
          : null}
      </div>
    )
  }
  return (
    <div className="xs-row" data-xs-received={data.fromSessionId}>
      <div className="xs-head xs-wrap">
        <span className="xs-title">{t('received.from')}</span>
        <CopyId id={data.fromSessionId} t={t} />
        <span className="xs-summary">
          {[title, data.mode === undefined ? undefined : t(`mode.${data.mode}`), t('send.hop', { hop: data.hop })]
            .filter(part => part !== undefined).join(' · ')}
        </span>
        {approved === undefined
          ? null
          : (
              <span className="xs-chip xs-state-held" data-xs-approved={data.messageId}
                title={t('received.heldFor', { time: clock(approved.createdAt) })}>
                {t('received.approved', { time: clock(approved.decidedAt ?? approved.createdAt) })}
              </span>
            )}
        <a href="#" data-xs-open={data.fromSessionId} data-xs-reply="true" title={t('received.replyTitle')} onClick={open}>
          {t('received.reply')}
        </a>
      </div>
      <PeerWhy why={peer.why} t={t} onClose={peer.dismiss} />
      {typeof data.body === 'string'
        ? <div className="xs-received-body" data-xs-received-body="true"><BodyText text={data.body} t={t} /></div>
        : null}
    </div>
  )
}
