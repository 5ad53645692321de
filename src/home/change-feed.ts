/**
 * What the host pushes to its pages over their key sockets (./key-socket.ts):
 * one small text frame per change, so the page refreshes the views that
 * change shows instead of polling (docs/architecture.md §7).
 *
 * - `{ "changed": "store", "version": "…" }`: what the page's store views
 *   show (every traffic row with its state, the held messages, from every
 *   process on this home) differs from the last push. Other processes write
 *   the same SQLite file, so while a page listens the feed looks every
 *   {@link CHANGE_CHECK_MS} (one query pair and a digest), and at once after a
 *   write made through this host's channel ({@link ChangeFeed.check}).
 * - `{ "changed": "logs", "sessions": ["…"] }`: sessions live in this process
 *   appended to their logs (rc.8 `session/event`); a send row to one of them
 *   reads its history again. Appends are gathered for {@link LOG_PUSH_MS}
 *   into one frame; more than {@link MAX_LOG_IDS} ids are sent as
 *   `{ "changed": "logs" }` (every row looks).
 *
 * rc.8 gives a plugin's channel no push of its own: `ClientConnectionRpc`
 * has `call` only (`@deepseek-ai/dsh-client-connection@0.1.0-rc.8`
 * lib/types/rpc.d.ts), and the connection's two WebSocket downlinks pump the
 * host API's own event streams (lib/types/websocket-downlink.d.ts).
 * @module dsh-cross-session/home/change-feed
 */

import { createHash } from 'node:crypto'
import type { HomeStore } from './store.js'

/** How often the feed looks at the store while a page listens, ms. */
export const CHANGE_CHECK_MS = 400
/** How long log appends are gathered into one push, ms. */
export const LOG_PUSH_MS = 250
/** Most session ids one log push names. */
export const MAX_LOG_IDS = 50
/** Traffic rows the digest covers (the traffic view's own bound). */
const TRAFFIC_SCAN = 200

/** A digest of what the page's store views show: every traffic row with its state, and the held messages. */
export function storeVersion(store: Pick<HomeStore, 'traffic' | 'approvals'>, now: number = Date.now()): string {
  return createHash('sha256')
    .update(JSON.stringify([store.traffic(TRAFFIC_SCAN), store.approvals(now).map(approval => approval.messageId)]))
    .digest('base64url').slice(0, 16)
}

/** One push, as the page parses it. */
export type Push = { changed: 'store', version: string } | { changed: 'logs', sessions?: string[] }

/** The pushes to every listening page. */
export class ChangeFeed {
  private readonly sinks = new Set<(push: Push) => void>()
  private readonly version: () => string
  private readonly everyMs: number
  private last: string | undefined
  private timer: ReturnType<typeof setInterval> | undefined
  private logs: Set<string> | undefined

  /** @param version - the store views' digest now (throws while the store cannot be used: nothing is pushed then). */
  constructor(version: () => string, everyMs: number = CHANGE_CHECK_MS) {
    this.version = version
    this.everyMs = everyMs
  }

  /** Push to `sink` from now on; returns its removal (the last one stops the feed's looking). */
  subscribe(sink: (push: Push) => void): () => void {
    if (this.sinks.size === 0) {
      this.last = this.read()
      this.timer = setInterval(() => this.check(), this.everyMs)
      this.timer.unref?.()
    }
    this.sinks.add(sink)
    return () => {
      if (!this.sinks.delete(sink) || this.sinks.size > 0) return
      clearInterval(this.timer)
      this.timer = undefined
    }
  }

  /** Look at the store now (after a write through this host's channel) and push when the views changed. */
  check(): void {
    if (this.sinks.size === 0) return
    const now = this.read()
    if (now === undefined || now === this.last) return
    this.last = now
    this.send({ changed: 'store', version: now })
  }

  /** A session live in this process appended to its log. */
  logged(sessionId: string): void {
    if (this.sinks.size === 0) return
    if (this.logs !== undefined) {
      this.logs.add(sessionId)
      return
    }
    this.logs = new Set([sessionId])
    setTimeout(() => {
      const ids = [...this.logs ?? []]
      this.logs = undefined
      this.send(ids.length > MAX_LOG_IDS ? { changed: 'logs' } : { changed: 'logs', sessions: ids })
    }, LOG_PUSH_MS).unref?.()
  }

  private read(): string | undefined {
    try {
      return this.version()
    } catch {
      return undefined // the store cannot be used now: the supervisor says so; nothing to push
    }
  }

  private send(push: Push): void {
    for (const sink of [...this.sinks]) {
      try {
        sink(push)
      } catch {
        // One page's socket must not stop the others' pushes.
      }
    }
  }
}
