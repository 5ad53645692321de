/**
 * The browser half's way to the host (docs/architecture.md §7): one RPC
 * channel, `/cross-session`, in rc.8's unary RPC envelope
 * (`@deepseek-ai/dsh-client-connection@0.1.0-rc.8` lib/types/rpc.d.ts), carried
 * by ./channel-route.ts on the `webServer` and gated by ./page-gate.ts: every
 * call needs the page's provenance and a live page key, which the page gets
 * from the key socket (./key-socket.ts). The page calls it with
 * `ctx.connection.rpc.call`, the key in the payload.
 *
 * Endpoints (payloads are plain objects; every answer is rc.8's
 * `RpcResult`, `{ ok: true, value }` or `{ ok: false, error: { code, message, details } }`;
 * the host pushes changes over the key socket, ./change-feed.ts):
 * - `approvals.list` `{ sessionId? }` → `{ approvals }`: messages held now;
 * - `approvals.decide` `{ messageId, decision: 'deliver' | 'refuse' }` → `{ state }`;
 * - `inbound.get` `{ sessionId }` → `{ own, host }` (the session's own choice or `null`, and the setting);
 * - `inbound.set` `{ sessionId, mode: 'accept' | 'hold' | 'refuse' | null }`;
 * - `traffic.list` `{ limit? }` → `{ rows, titles }`, newest first;
 * - `home.get` `{}` → `{ home, sandboxRoot, kind }` (the store's directory,
 *   the sandbox-writable root it lies in or `null`, and whether that root is
 *   a `'temp'` root or a session's `'workspace'`);
 * - the rows' views, ./channel-views.ts: `sends.held`, `messages.withdraw`, `approvals.get`,
 *   `approvals.decided`, `sessions.about`.
 * - `store.status` → `{ open, why?, since?, rebuilt? }`: whether the home store can be used now, and
 *   whether an unreadable one was moved aside (`home/store-supervisor.ts` `StoreStatus`).
 *
 * @module dsh-cross-session/home/channel
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Approval, ApprovalDecision, SessionQueryPort } from '../ports.js'
import type { InboundMode } from '../settings/resolve.js'
import { channelRoute, type RpcResult } from './channel-route.js'
import { answerView } from './channel-views.js'
import type { ChangeFeed } from './change-feed.js'
import { KEY_SOCKET_PATH, keySocketHandler } from './key-socket.js'
import { PageKeys, refusalLog } from './page-gate.js'
import type { HomeReachView } from './home-reach.js'
import type { HomeRuntime } from './runtime.js'
import type { StoreStatus } from './store-supervisor.js'
import { storeFaultWhy } from './store-fault.js'
import { waitOutLock } from './store-retry.js'
import { ofAnotherMachine, ofThisMachine, type Elsewhere } from './channel-machines.js'

/** The channel's path (the page calls `ctx.connection.rpc.call(CHANNEL, endpoint, payload)`). */
export const CHANNEL = '/cross-session'

/** rc.8 `webServer` (`@deepseek-ai/dsh-host-webserver@0.1.0-rc.8` lib/types/index.d.ts), the members used. */
export interface WebServerRoutes {
  register(route: { kind: 'prefix', path: string, handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> }): () => void
  registerUpgrade(route: { path: string, handler: (req: IncomingMessage, socket: Duplex, head: Buffer) => void }): () => void
}

/** What the channel serves from. */
export interface ChannelHost {
  readonly runtime: HomeRuntime
  readonly sessions: SessionQueryPort
  /** The `inbound` setting now. */
  readonly inbound: () => InboundMode
  /** A held message was decided or expired: the sender's notice, if it asked for one. */
  readonly decided: (approval: Approval) => void
  readonly log: (message: string) => void
  /** The store's directory and the sandbox-writable root it lies in, now (./home-reach.ts). */
  readonly home: () => HomeReachView
  /** The home store's state (the settings card shows it). */
  readonly status?: () => StoreStatus
  /** The pushes to the pages (their key sockets); told at once of a write through the channel. */
  readonly feed?: ChangeFeed
  /** On a store shared by machines: whether a session is another machine's (./channel-machines.ts); absent: none is. */
  readonly elsewhere?: Elsewhere
}

/** Endpoints that write to the store: the pages are told at once. */
const WRITES: readonly string[] = ['approvals.decide', 'inbound.set', 'messages.withdraw']

const MODES: ReadonlyArray<InboundMode | null> = ['accept', 'hold', 'refuse', null]
const TRAFFIC_ROWS = 200

function fail(code: string, message: string): RpcResult {
  return { ok: false, error: { code, message, details: {} } }
}

function record(payload: unknown): Record<string, unknown> {
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? payload as Record<string, unknown> : {}
}

/** One approval as the page shows it (no frame: the card shows the body). */
function shown(approval: Approval): Record<string, unknown> {
  const { messageId, target, sender, senderTitle, hop, mode, body, createdAt, expiresAt } = approval
  return { messageId, target, sender, senderTitle, hop, mode, body, createdAt, expiresAt }
}

/** Answer one call. Pure over the host; never throws (a failure is an `internal` result). */
export async function answer(host: ChannelHost, endpoint: string, payload: unknown, signal: AbortSignal): Promise<RpcResult> {
  const args = record(payload)
  const store = host.runtime.store
  const now = Date.now()
  try {
    switch (endpoint) {
      case 'approvals.list': {
        const target = typeof args.sessionId === 'string' ? args.sessionId : undefined
        const mine = await ofThisMachine(host.elsewhere, store.approvals(now, target), approval => approval.target, signal)
        return { ok: true, value: { approvals: mine.map(shown) } }
      }
      case 'approvals.decide': {
        const decision = args.decision
        if (typeof args.messageId !== 'string' || (decision !== 'deliver' && decision !== 'refuse'))
          return fail('bad-request', 'expected { messageId, decision: "deliver" | "refuse" }')
        const messageId = args.messageId
        const held = store.approval(messageId)
        if (held !== undefined && await ofAnotherMachine(host.elsewhere, held.target, signal))
          return fail('not-found', 'that held message is for a session of another machine: decide it on that machine\'s page')
        const take = (): ReturnType<typeof store.decide> => store.decide(messageId, decision as ApprovalDecision, now)
        const outcome = await waitOutLock(take, signal)
        if (outcome.approval !== undefined && (outcome.ok || outcome.approval.state === 'expired')) host.decided(outcome.approval)
        // The holder here claims it now rather than on its next tick.
        if (outcome.ok && decision === 'deliver') host.runtime.tick()
        if (outcome.ok) return { ok: true, value: { state: outcome.approval.state } }
        return outcome.reason === 'unknown'
          ? fail('not-found', 'no such held message')
          : { ok: true, value: { state: outcome.approval?.state ?? 'held', reason: outcome.reason } }
      }
      case 'inbound.get': {
        if (typeof args.sessionId !== 'string') return fail('bad-request', 'expected { sessionId }')
        return { ok: true, value: { own: store.inboundOf(args.sessionId) ?? null, host: host.inbound() } }
      }
      case 'inbound.set': {
        const mode = args.mode === undefined ? null : args.mode
        if (typeof args.sessionId !== 'string' || !MODES.includes(mode as InboundMode | null))
          return fail('bad-request', 'expected { sessionId, mode: "accept" | "hold" | "refuse" | null }')
        const sessionId = args.sessionId
        if (await ofAnotherMachine(host.elsewhere, sessionId, signal))
          return fail('not-found', 'that session is on another machine: set its choice on that machine\'s page')
        const choice = mode === null ? undefined : mode as InboundMode
        await waitOutLock(() => store.setInbound(sessionId, choice), signal)
        return { ok: true, value: { own: mode, host: host.inbound() } }
      }
      case 'store.status':
        return { ok: true, value: host.status?.() ?? { open: true } }
      case 'traffic.list': {
        const limit = typeof args.limit === 'number' && Number.isSafeInteger(args.limit)
          ? Math.min(Math.max(args.limit, 1), TRAFFIC_ROWS) : TRAFFIC_ROWS
        // On a shared store, a page shows what its machine's sessions sent or were sent (./channel-machines.ts).
        const rows = await ofThisMachine(host.elsewhere, store.traffic(limit), row => row.sender, signal, row => row.target)
        const ids = [...new Set(rows.flatMap(row => [row.sender, row.target]))]
        const titles = ids.length === 0 ? new Map<string, string | undefined>() : await host.sessions.readTitles(ids, signal)
        const held = new Map(store.approvals(now).map(approval => [approval.messageId, approval.body]))
        return { ok: true, value: {
          rows: rows.map(row => ({ ...row, ...(held.has(row.messageId) ? { body: held.get(row.messageId) } : {}) })),
          titles: Object.fromEntries([...titles].filter(([, title]) => title !== undefined)) } }
      }
      case 'home.get': {
        const reach = host.home()
        return { ok: true, value: { home: reach.path, sandboxRoot: reach.sandboxRoot ?? null, kind: reach.kind ?? null } }
      }
      default:
        return await answerView({ store, sessions: host.sessions }, endpoint, args, signal)
          ?? fail('not-found', `no endpoint ${endpoint} on ${CHANNEL}`)
    }
  } catch (error: unknown) {
    // A store that cannot be used now is said as such (the page shows it; the host log has said it once).
    const why = storeFaultWhy(error)
    if (why !== undefined)
      return fail('unavailable', `the cross-session store is unavailable (${why}); nothing was changed; try again shortly`)
    host.log(`${CHANNEL} ${endpoint} failed: ${String(error)}`)
    return fail('internal', `${endpoint} failed (see the cross-session log)`)
  }
}

/**
 * Serve the channel and its key socket on `webServer`; `own` ties each
 * registration's disposer to the registering context (Cordis `ctx.effect`).
 */
export function serveChannel(webServer: WebServerRoutes, own: (register: () => () => void) => void, host: ChannelHost,
  keys: PageKeys = new PageKeys()): void {
  const refused = refusalLog(host.log)
  own(() => webServer.registerUpgrade({ path: KEY_SOCKET_PATH, handler: keySocketHandler(keys, refused, host.feed) }))
  const answered = async (endpoint: string, payload: unknown, signal: AbortSignal): Promise<RpcResult> => {
    const result = await answer(host, endpoint, payload, signal)
    if (WRITES.includes(endpoint)) host.feed?.check()
    return result
  }
  own(() => webServer.register({ kind: 'prefix', path: CHANNEL, handler: channelRoute(CHANNEL, keys, answered, refused) }))
}
