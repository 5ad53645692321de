/**
 * The Withdraw button of a waiting message (docs/tools.md#withdrawing-a-message):
 * on the sender's send row and on a pending or held row of the traffic
 * view. One call to the channel's `messages.withdraw`
 * (src/home/channel-views.ts); the answer is shown beside the button —
 * withdrawn, or too late and where the message is — and every listening
 * view refreshes (./changes.js).
 * @module dsh-cross-session/client/withdraw
 */
import { useState } from 'react'
import { callChannel } from './channel.js'
import { changed } from './changes.js'

/** Where a message is that could not be withdrawn, in the page's words (`where` of a `too-late` answer). */
export function whereText(where, t) {
  switch (where?.kind) {
    case 'recorded': {
      const recorded = t('withdraw.where.recorded', { seq: where.seq })
      return where.answeredSeq === undefined ? recorded : `${recorded} · ${t('traffic.answered', { seq: where.answeredSeq })}`
    }
    case 'claimed': return t('withdraw.where.claimed', { pid: where.pid })
    case 'handed-back': return t('withdraw.where.handedBack')
    case 'delivered-here': return t('withdraw.where.here')
    case 'expired': return t('withdraw.where.expired')
    default: return t('withdraw.where.refused')
  }
}

/** The line an answer leaves beside the button (`undefined` when withdrawn: the row's chip says it). */
function answerText(answer, t) {
  if (answer === undefined || answer.state === 'withdrawn') return undefined
  if (answer.state === 'too-late') return t('withdraw.tooLate', { where: whereText(answer.where, t) })
  if (answer.state === 'unknown') return t('withdraw.unknown')
  return t('withdraw.failed', { why: answer.error })
}

/** The answer beside the row once given: too late and where the message is, or why it failed (nothing when withdrawn: the row says it). */
export function WithdrawAnswer({ answer, t }) {
  const text = answerText(answer, t)
  return text === undefined ? null : <span className="xs-hint" data-xs-withdraw-answer={answer.state} role="status">{text}</span>
}

/**
 * The button; `onAnswer` gets the channel's answer (or `{ state: 'failed', error }`).
 * The row keeps the answer, so it stays when the button goes.
 */
export function WithdrawButton({ ctx, messageId, sender, t, onAnswer }) {
  const [busy, setBusy] = useState(false)
  const withdraw = async event => {
    event?.stopPropagation?.()
    setBusy(true)
    let next
    try {
      next = await callChannel(ctx, 'messages.withdraw', { messageId, sender })
    } catch (error) {
      next = { state: 'failed', error: error instanceof Error ? error.message : String(error) }
    }
    setBusy(false)
    onAnswer(next)
    changed()
  }
  return (
    <button type="button" className="xs-withdraw" data-xs-withdraw={messageId} disabled={busy} onClick={withdraw}>
      {t('withdraw.button')}
    </button>
  )
}
