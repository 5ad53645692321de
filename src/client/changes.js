/**
 * Updates pushed to the page: the host sends a frame on the page's key
 * socket (./channel.js `onKeySocket`; src/home/change-feed.ts) when what the
 * page's views show changes in any process on this home (`store`: the
 * traffic rows, the held messages) or when a session live in that host
 * appends to its log (`logs`, with the session ids). Each listening view
 * refreshes then: the traffic badge and view, the approval cards with the
 * refused and expired lines, the send rows. A write this page makes
 * (Deliver, Refuse, Withdraw, the inbound choice) refreshes them at once.
 *
 * Only after the socket is lost (the host restarted or went away) does the
 * page poll: every {@link FALLBACK_MS} every view refreshes, and the page
 * opens the socket again (after 1 s, doubling up to {@link MAX_BACKOFF_MS});
 * once it is open again every view refreshes once, for what it missed.
 * @module dsh-cross-session/client/changes
 */
import { useEffect, useRef } from 'react'
import { onKeySocket, openKeySocket } from './channel.js'

/** How often every view refreshes while the key socket is lost, ms. */
export const FALLBACK_MS = 15_000
/** Longest pause before opening a lost key socket again, ms. */
const MAX_BACKOFF_MS = 30_000

/** Listeners: `{ run, logs }`; `logs(sessions)` says whether a log push concerns it. */
const listeners = new Set()
/** Whether the key socket is open and pushes arrive; the fallback poll runs while it is not. */
let live = false
let connecting = false
let fallback

function notify(push) {
  for (const listener of [...listeners]) {
    if (push?.changed === 'logs' && !listener.logs(push.sessions)) continue
    try {
      listener.run()
    } catch {
      // One view's refresh must not stop the others'.
    }
  }
}

function startFallback() {
  if (fallback !== undefined) return
  fallback = setInterval(() => notify(undefined), FALLBACK_MS)
}

function stopFallback() {
  clearInterval(fallback)
  fallback = undefined
}

/** Open the key socket; on failure try again later; after a loss, refresh everything once it is back. */
async function connect(lost) {
  if (connecting || live) return
  connecting = true
  let failures = 0
  while (listeners.size > 0) {
    try {
      await openKeySocket()
      live = true
      stopFallback()
      if (lost) notify(undefined)
      break
    } catch {
      startFallback()
      failures++
      await new Promise(resolve => setTimeout(resolve, Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (failures - 1))))
    }
  }
  connecting = false
}

onKeySocket(event => {
  if (event.push !== undefined) {
    notify(event.push)
    return
  }
  live = false
  if (listeners.size === 0) return
  startFallback()
  setTimeout(() => { void connect(true) }, 1000)
})

/** Every listening view refreshes now (after a write this page made). */
export function changed() {
  notify(undefined)
}

/**
 * Run `refresh` while mounted whenever the host pushes a change of the store
 * views (and after this page's own writes, and on the fallback poll); with
 * `logs`, also when a session it names (`logs(sessionIds)`, `sessionIds`
 * `undefined` for any) appended to its log.
 */
export function useChanges(ctx, refresh, logs = undefined) {
  const ref = useRef({ refresh, logs })
  ref.current = { refresh, logs }
  useEffect(() => {
    const listener = {
      run: () => { void ref.current.refresh() },
      logs: sessions => ref.current.logs !== undefined && ref.current.logs(sessions),
    }
    listeners.add(listener)
    if (ctx !== undefined) void connect(false)
    return () => {
      listeners.delete(listener)
      if (listeners.size === 0) stopFallback()
    }
  }, [ctx])
}
