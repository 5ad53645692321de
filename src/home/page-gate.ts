/**
 * Who may use the `/cross-session` channel: the web page, and nothing that
 * only knows the host's URL (docs/tools.md, "Who can decide a held message").
 *
 * rc.8's own fence (`@deepseek-ai/dsh-client-connection@0.1.0-rc.8`
 * lib/index.js `isTrustedApiRequest`) checks `Host`, refuses
 * `Sec-Fetch-Site: cross-site`, and compares `Origin` only when one is sent,
 * so a shell's `curl "$DSH_WEB_URL/…"` passes it. The gate here asks for
 * more, on every call:
 * - browser provenance: a loopback `Host` (rc.8 pins its own privileged
 *   methods to loopback the same way, lib/index.js `PRIVILEGED_METHODS`),
 *   an `Origin` naming that same host, and `Sec-Fetch-Site: same-origin`
 *   (on the key socket's handshake: if sent at all);
 * - a page key: a random value this process hands only to a page that
 *   opened the key socket (./key-socket.ts), valid while that socket is open,
 *   never written to any log or environment.
 *
 * Headers alone can be forged by any client; the key cannot be had by a
 * plain HTTP request. A program that opens the key socket as the page does
 * gets one too: that residual is stated in docs/tools.md.
 * @module dsh-cross-session/home/page-gate
 */

import { randomBytes } from 'node:crypto'

/** Request headers as node:http gives them (lower-case names). */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>

/** Why a request is not the page's, or that it is. */
export type Provenance = { readonly ok: true } | { readonly ok: false, readonly reason: string }

function header(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name]
  return typeof value === 'string' ? value : undefined
}

/** rc.8 `isLoopbackHostname` (dsh-client-connection lib/index.js): localhost, [::1], 127/8. */
function isLoopbackHostname(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true
  const parts = hostname.split('.')
  return parts.length === 4 && parts[0] === '127' && parts.every(part => /^\d{1,3}$/.test(part) && Number(part) <= 255)
}

function hostOf(url: string): URL | undefined {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

/**
 * Whether a request carries the marks only a same-origin page of this host
 * sends. Pure over the headers. `fetchMetadata: 'if-sent'` is for the key
 * socket's handshake: Chromium sends no `Sec-Fetch-*` headers on a WebSocket
 * handshake to a plain-http origin (checked with Debian's chromium 156), so
 * there only a sent value is judged; every channel call must carry
 * `same-origin`, as Chromium's `fetch` does.
 * @returns `{ ok: true }`, or the first missing mark as `reason`.
 */
export function pageProvenance(headers: RequestHeaders, fetchMetadata: 'required' | 'if-sent' = 'required'): Provenance {
  const host = header(headers, 'host')
  const hostUrl = host === undefined ? undefined : hostOf(`http://${host}`)
  if (hostUrl === undefined || !isLoopbackHostname(hostUrl.hostname)) return { ok: false, reason: 'Host is not a loopback authority' }
  const origin = header(headers, 'origin')
  const originUrl = origin === undefined ? undefined : hostOf(origin)
  if (originUrl === undefined || originUrl.host !== hostUrl.host || (originUrl.protocol !== 'http:' && originUrl.protocol !== 'https:'))
    return { ok: false, reason: 'Origin is not this host' }
  const site = header(headers, 'sec-fetch-site')
  if (site !== 'same-origin' && !(site === undefined && fetchMetadata === 'if-sent'))
    return { ok: false, reason: 'Sec-Fetch-Site is not same-origin' }
  return { ok: true }
}

/** One issued key and the way to withdraw it. */
export interface IssuedKey {
  readonly key: string
  readonly revoke: () => void
}

/** The keys held by open key sockets of this process (a handful: one per open page). */
export class PageKeys {
  private readonly live = new Set<string>()

  /** A fresh key (32 random bytes, base64url), valid until revoked. */
  issue(): IssuedKey {
    const key = randomBytes(32).toString('base64url')
    this.live.add(key)
    return { key, revoke: () => { this.live.delete(key) } }
  }

  /** Whether `key` is a key an open page holds now. */
  holds(key: unknown): boolean {
    return typeof key === 'string' && this.live.has(key)
  }

  /** How many keys are live (tests read it). */
  get size(): number {
    return this.live.size
  }
}

/** How many refused requests one process logs (a client refused in a loop must not flood the log). */
export const REFUSALS_LOGGED = 20

/**
 * A log for refused requests: the first {@link REFUSALS_LOGGED} lines as
 * given, then one line saying the rest are not logged.
 */
export function refusalLog(log: (message: string) => void): (message: string) => void {
  let count = 0
  return message => {
    count++
    if (count <= REFUSALS_LOGGED) log(message)
    if (count === REFUSALS_LOGGED)
      log(`${REFUSALS_LOGGED} requests to the cross-session channel were refused; further refusals are not logged`)
  }
}
