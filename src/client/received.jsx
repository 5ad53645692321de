/**
 * The received side: a message this package delivered (a `user/message` with
 * its relay source, src/model/provenance.ts `deliveredProvenance` — recorded by the
 * deliverer, never read from text, so frames on or off) gets a row of its
 * own in the target's chat — "Message from session 4b91… "title" · queue
 * · hop 1 · Reply", then the body itself as plain text with the frame
 * stripped (./body-text.jsx: a long body is cut visibly, the rest one click
 * away) — so it does not read as the human's words, and the user reads what
 * the peer said without opening rc.8's collapsed context-injection row,
 * which shows the raw frame. Reply opens the sender. A notice reads
 * "Notice from session 4b91… · finished · Open session".
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
import { deliveredProvenance } from '../model/provenance.ts'
import { shortId } from '../core/tool-results.ts'
import { BodyText } from './body-text.jsx'

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
  const base = { fromSessionId: provenance.senderSessionId, hop: provenance.hop }
  // A notice (docs/tools.md#notices): how the watched turn ended, from the recorded source.
  if (provenance.notice !== undefined) return { ...base, notice: provenance.notice, fromTitle: '', mode: undefined }
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
const NOTICE_WORDS = { completed: 'notice.completed', failed: 'notice.failed', interrupted: 'notice.interrupted', refused: 'notice.refused', expired: 'notice.expired' }

/** The row: who sent it, how, the body, and Reply (opens the sender); a notice says how the sender's watched turn ended. */
export function ReceivedRow({ node, openSession, t }) {
  const data = node.data
  if (data.notice !== undefined) {
    return (
      <div className="xs-row" data-xs-received={data.fromSessionId} data-xs-notice={data.notice}>
        <div className="xs-head">
          <span className="xs-title">{t('notice.from')}</span>
          <span className="xs-chip xs-mono" title={data.fromSessionId}>{shortId(data.fromSessionId)}</span>
          <span className="xs-summary">{t(NOTICE_WORDS[data.notice] ?? 'notice.failed')}</span>
          <a href="#" data-xs-open={data.fromSessionId} onClick={event => { event.preventDefault(); openSession(data.fromSessionId) }}>{t('received.open')}</a>
        </div>
      </div>
    )
  }
  return (
    <div className="xs-row" data-xs-received={data.fromSessionId}>
      <div className="xs-head">
        <span className="xs-title">{t('received.from')}</span>
        <span className="xs-chip xs-mono" title={data.fromSessionId}>{shortId(data.fromSessionId)}</span>
        <span className="xs-summary">{[data.fromTitle === '' ? undefined : `"${data.fromTitle}"`, data.mode, t('send.hop', { hop: data.hop })].filter(part => part !== undefined).join(' · ')}</span>
        <a href="#" data-xs-open={data.fromSessionId} data-xs-reply="true" title={t('received.replyTitle')} onClick={event => { event.preventDefault(); openSession(data.fromSessionId) }}>{t('received.reply')}</a>
      </div>
      {typeof data.body === 'string' ? <div className="xs-received-body" data-xs-received-body="true"><BodyText text={data.body} t={t} /></div> : null}
    </div>
  )
}
