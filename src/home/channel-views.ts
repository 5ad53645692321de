/**
 * The `/cross-session` channel's read-only views for the page's rows
 * (docs/architecture.md §7), answered beside the endpoints of ./channel.ts:
 *
 * - `sends.held` `{ sender, callId, args }` → `{ messageId, held }`: the
 *   held message a `sessions_send` call made, found by the id the tool gave
 *   it (the sender, the call id and a digest of the arguments, the same
 *   `requestIdFor(sender, callIdentity(callId, args))` the tool computes),
 *   so the sender's row follows a refusal or an expiry. `held` is `null` when
 *   the call held nothing (or the store swept it); `stored` is where the
 *   message is in the store's queue (`{ state: 'pending' | 'claimed' |
 *   'recorded' | 'refused' | 'withdrawn' }`), `null` when it never waited
 *   there;
 * - `messages.withdraw` `{ messageId, sender }` → `{ state: 'withdrawn', was, at }`,
 *   `{ state: 'too-late', where }` or `{ state: 'unknown' }`: the sender's
 *   user takes a waiting message back (./withdraw.ts, one store
 *   transaction; the home is one user's, so the page may withdraw for any
 *   sender on it);
 * - `approvals.get` `{ messageId }` → `{ approval }`: whether a delivered
 *   message was held first, and when its user delivered it (`null` when not);
 * - `approvals.decided` `{ sessionId }` → `{ decided }`: held messages to
 *   that session that its user refused or that expired, newest first (as
 *   long as the store keeps them: the traffic view's history);
 * - `sessions.about` `{ sessionIds }` (at most {@link MAX_ABOUT} ids) →
 *   `{ sessions }`: per id its title, workspace (cwd), whether its log is on
 *   this home, and which dsh process holds it now or last let it go.
 *
 * The page learns when to ask again from the host's pushes (./change-feed.ts).
 *
 * A view is `{ state, createdAt, expiresAt, decidedAt? }` plus what the row
 * shows; times are ms since the epoch. Bad payloads get `bad-request`.
 * @module dsh-cross-session/home/channel-views
 */

import { callIdentity, requestIdFor } from '../model/limits.js'
import type { Approval, SessionQueryPort } from '../ports.js'
import type { RpcResult } from './channel-route.js'
import type { HomeStore } from './store.js'

/** What the views read. */
export interface ViewHost {
  readonly store: HomeStore
  readonly sessions: SessionQueryPort
}

/** Most ids one `sessions.about` call answers. */
export const MAX_ABOUT = 50
/** Traffic rows scanned for decided held messages (the traffic view's own bound). */
const DECIDED_SCAN = 200
function ok(value: unknown): RpcResult {
  return { ok: true, value }
}

function badRequest(message: string): RpcResult {
  return { ok: false, error: { code: 'bad-request', message, details: {} } }
}

/** The arguments a `sessions_send` call's id is derived from, as the model gave them (`undefined` when not that shape). */
function sendArgs(value: unknown): { session_id: string, message: string, mode?: string } | undefined {
  const record = typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined
  if (typeof record?.session_id !== 'string' || typeof record.message !== 'string') return undefined
  if (record.mode !== undefined && typeof record.mode !== 'string') return undefined
  return { session_id: record.session_id, message: record.message, ...(record.mode === undefined ? {} : { mode: record.mode }) }
}

/** Where one held message stands, as a row shows it. */
function heldView(approval: Approval): Record<string, unknown> {
  const { messageId, state, createdAt, expiresAt, decidedAt, sender, senderTitle, target, mode, hop } = approval
  return {
    messageId, state, createdAt, expiresAt, ...(decidedAt === undefined ? {} : { decidedAt }),
    sender, senderTitle, target, mode, hop,
  }
}

/** One session as the page tells it apart: title, workspace, log, process. */
async function about(host: ViewHost, ids: readonly string[], signal: AbortSignal): Promise<Record<string, unknown>> {
  const titles = await host.sessions.readTitles(ids, signal)
  const self = host.store.self
  const out: Record<string, unknown> = {}
  for (const id of ids) {
    const record = await host.sessions.lookup(id, signal)
    const view = host.store.view(id)
    const holder = view.holder
    out[id] = {
      title: titles.get(id) ?? null,
      cwd: record?.header.cwd ?? null,
      persisted: record?.persisted ?? false,
      live: record?.live ?? false,
      process: holder === undefined
        ? null : { pid: holder.tag.pid, here: holder.tag.pid === self.pid && holder.tag.start === self.start, state: holder.state },
      ended: holder !== undefined || view.lastLetGo === undefined
        ? null : { how: view.lastLetGo.how, pid: view.lastLetGo.pid, at: view.lastLetGo.at ?? null },
    }
  }
  return out
}

/**
 * Answer a view endpoint.
 * @returns the result, or `undefined` when `endpoint` is none of these (the caller says not-found).
 */
export async function answerView(host: ViewHost, endpoint: string, args: Record<string, unknown>,
  signal: AbortSignal): Promise<RpcResult | undefined> {
  const store = host.store
  switch (endpoint) {
    case 'sends.held': {
      const send = sendArgs(args.args)
      if (typeof args.sender !== 'string' || typeof args.callId !== 'string' || send === undefined)
        return badRequest('expected { sender, callId, args: { session_id, message, mode? } }')
      const messageId = requestIdFor(args.sender, callIdentity(args.callId, send))
      const approval = store.approval(messageId)
      const message = store.message(messageId)
      const stored = message === undefined || message.target !== send.session_id
        ? null : { state: message.reason === 'withdrawn' ? 'withdrawn' : message.state }
      return ok({ messageId, held: approval === undefined || approval.target !== send.session_id ? null : heldView(approval), stored })
    }
    case 'messages.withdraw': {
      if (typeof args.messageId !== 'string' || typeof args.sender !== 'string') return badRequest('expected { messageId, sender }')
      const outcome = store.withdraw(args.sender, { messageId: args.messageId })
      if (outcome.ok) return ok({ state: 'withdrawn', was: outcome.was, at: outcome.at })
      return ok(outcome.reason === 'unknown' ? { state: 'unknown' } : { state: 'too-late', where: outcome.where })
    }
    case 'approvals.get': {
      if (typeof args.messageId !== 'string') return badRequest('expected { messageId }')
      const approval = store.approval(args.messageId)
      return ok({ approval: approval === undefined ? null : heldView(approval) })
    }
    case 'approvals.decided': {
      if (typeof args.sessionId !== 'string') return badRequest('expected { sessionId }')
      const decided = store.traffic(DECIDED_SCAN)
        .filter(row => row.target === args.sessionId && (row.state === 'refused' || row.state === 'expired'))
        .map(row => store.approval(row.messageId))
        .filter((approval): approval is Approval => approval !== undefined
          && (approval.state === 'refused' || approval.state === 'expired'))
        .map(approval => ({ ...heldView(approval), body: approval.body }))
      return ok({ decided })
    }
    case 'sessions.about': {
      const ids = Array.isArray(args.sessionIds) ? [...new Set(args.sessionIds)] : undefined
      if (ids === undefined || ids.length > MAX_ABOUT || !ids.every(id => typeof id === 'string' && id.length > 0))
        return badRequest(`expected { sessionIds: [id, …] } with 1 to ${MAX_ABOUT} ids`)
      return ok({ sessions: await about(host, ids as string[], signal) })
    }
    default:
      return undefined
  }
}
