/**
 * The page's calls to the host half's `/cross-session` channel
 * (src/home/channel.ts), through the client Connection service
 * (`@deepseek-ai/dsh-client-connection@0.1.0-rc.8` lib/types/rpc.d.ts
 * `ClientConnectionRpc.call`), and a hook that polls one of them while a
 * view is shown. docs/architecture.md §7.
 *
 * Every call carries the page key (./page-key.ts), which the host hands
 * out only over the key socket: a WebSocket this page opens to its own
 * origin, kept open while the page lives; the key dies with it. A call
 * refused for its key (HTTP 403) drops the socket and is tried once more
 * with a fresh key. The host pushes changes on the same socket
 * (src/home/change-feed.ts); ./changes.js listens with {@link onKeySocket}.
 * @module dsh-cross-session/client/channel
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import { createPageKey, keySocketUrl, withPageKey } from './page-key.ts'

/** The channel's path (src/home/channel.ts `CHANNEL`). */
export const CHANNEL = '/cross-session'

const socketListeners = new Set()

function tell(event) {
  for (const listener of [...socketListeners]) {
    try {
      listener(event)
    } catch {
      // One listener's failure must not stop the others.
    }
  }
}

/** This page's key (./page-key.ts), its socket opened on the first call. */
const pageKey = createPageKey(url => new WebSocket(url), () => keySocketUrl(globalThis.location.origin), {
  pushed: push => tell({ push }),
  closed: () => tell({ closed: true }),
})

/**
 * Hear the key socket: `listener({ push })` for each push, `listener({ closed: true })` when it closed.
 * @returns its removal.
 */
export function onKeySocket(listener) {
  socketListeners.add(listener)
  return () => { socketListeners.delete(listener) }
}

/** Open the key socket now if none is open; resolves once the host sent the key, rejects when it refused. */
export async function openKeySocket() {
  await pageKey.get()
}

/**
 * Call one endpoint.
 * @returns the value; throws an Error naming the endpoint on a failed result or no connection.
 */
export async function callChannel(ctx, endpoint, payload = {}) {
  const connection = ctx.get('connection')
  if (connection === undefined) throw new Error(`${endpoint}: no connection to the host`)
  const result = await withPageKey(pageKey, key => connection.rpc.call(CHANNEL, endpoint, { ...payload, key }))
  if (result?.ok !== true) throw new Error(`${endpoint}: ${result?.error?.message ?? 'failed'}`)
  return result.value
}

/**
 * Load `load()` when mounted (and `active`), again when `key` changes, and every `everyMs` when given
 * (views the host pushes changes of pass none and call `refresh()` on a push, ./changes.js).
 * @returns `{ value, error, refresh }`.
 */
export function usePolled(load, key, everyMs = undefined, active = true) {
  const [state, setState] = useState({ value: undefined, error: undefined })
  const loadRef = useRef(load)
  loadRef.current = load
  const refresh = useCallback(async () => {
    try {
      const value = await loadRef.current()
      setState({ value, error: undefined })
    } catch (error) {
      setState(previous => ({ value: previous.value, error: String(error?.message ?? error) }))
    }
  }, [])
  useEffect(() => {
    if (!active) return undefined
    void refresh()
    if (everyMs === undefined) return undefined
    const timer = setInterval(() => { void refresh() }, everyMs)
    return () => clearInterval(timer)
  }, [key, everyMs, active, refresh])
  return { ...state, refresh }
}

/** `9 min`, `40 s` until `at`. */
export function timeLeft(at, now = Date.now()) {
  const ms = Math.max(0, at - now)
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`
}
