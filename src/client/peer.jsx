/**
 * Opening a peer session from a row (Reply, the sender link, Open answer):
 * where this page can, it opens it; where it cannot, the row says why —
 * never a silent throw.
 *
 * rc.8's `ctx.sessions.open(id)` selects a session of the page's list and
 * throws `sessions.select: unknown session …` for any other
 * (`@deepseek-ai/dsh-client-runtime@0.1.0-rc.8` lib/client.js
 * `SessionManager.select`). The page's list is the host's `session.list`,
 * pulled when the page connects; the host lists every persisted session with
 * a recorded workspace, attached or cold (`@deepseek-ai/dsh-host-apiproxy@0.1.0-rc.8`
 * lib/index.js `listVisibleSessionSummaries`), so a headless `dsh` session
 * started after the page loaded is missing only from the page's copy. So: a
 * listed session opens; else the list is pulled again (the sessions
 * service's `refresh()`, the same pull the page makes on connect) and the
 * session opens if it is there now; else the row shows what the host knows
 * of it (the channel's `sessions.about`, src/home/channel-views.ts).
 * @module dsh-cross-session/client/peer
 */
import { useCallback, useState } from 'react'
import { shortId } from '../core/text.ts'
import { callChannel } from './channel.js'
import { clock } from './clock.js'

function listed(ctx, id) {
  const snapshot = ctx.sessions?.list?.getSnapshot?.()
  return snapshot?.byId?.[id] !== undefined || (snapshot?.ids ?? []).includes(id)
}

function tryOpen(ctx, id) {
  try {
    ctx.sessions.open(id)
    return true
  } catch {
    return false
  }
}

/**
 * Open `id` in this page.
 * @returns `{ ok: true }`, or `{ ok: false, about }` with what the host knows of it (`about` `undefined` when the channel could not say).
 */
export async function openPeer(ctx, id) {
  if (listed(ctx, id) && tryOpen(ctx, id)) return { ok: true }
  try {
    await ctx.sessions?.refresh?.()
  } catch {
    // The pull failed: what the host knows of it is asked below all the same.
  }
  if (listed(ctx, id) && tryOpen(ctx, id)) return { ok: true }
  let about
  try {
    about = (await callChannel(ctx, 'sessions.about', { sessionIds: [id] })).sessions?.[id]
  } catch {
    about = undefined
  }
  return { ok: false, about }
}

/**
 * A row's opener: `open(id)` opens or sets `why` (`{ id, about }`), which the
 * row shows with {@link PeerWhy}; `dismiss()` clears it.
 */
export function usePeer(ctx) {
  const [why, setWhy] = useState(undefined)
  const open = useCallback(async id => {
    setWhy(undefined)
    const outcome = await openPeer(ctx, id)
    if (!outcome.ok) setWhy({ id, about: outcome.about })
  }, [ctx])
  return { open, why, dismiss: () => setWhy(undefined) }
}

/** Where the session is, in the row's words (workspace, process). */
export function whereText(about, t) {
  if (about === undefined) return t('peer.unknown')
  const parts = []
  if (about.cwd) parts.push(t('peer.workspace', { cwd: about.cwd }))
  if (about.process?.here) parts.push(t('peer.here'))
  else if (about.process) parts.push(t('peer.liveIn', { pid: about.process.pid }))
  else if (about.ended) {
    parts.push(t(`peer.ended.${about.ended.how}`, { pid: about.ended.pid, time: about.ended.at === null ? '' : clock(about.ended.at) }))
  }
  if (!about.persisted) parts.push(t('peer.noLog'))
  return parts.join(' · ')
}

/** Why a session did not open: named, with where it is, and what can be done. */
export function PeerWhy({ why, t, onClose }) {
  if (why === undefined) return null
  const title = why.about?.title ? ` "${why.about.title}"` : ''
  return (
    <div className="xs-peer-why" role="status" data-xs-peer-why={why.id}>
      <span>{t('peer.notHere', { id: shortId(why.id), title })}</span>
      <span className="xs-hint">{whereText(why.about, t)}</span>
      <span className="xs-hint">{t('peer.how', { id: why.id })}</span>
      <button type="button" className="xs-close" aria-label={t('traffic.close')} onClick={onClose}>×</button>
    </div>
  )
}
