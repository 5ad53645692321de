/**
 * Updates pushed to the page: one waiting call per page to the channel's
 * `changes.wait` (src/home/channel-views.ts), which the host answers as
 * soon as the traffic or the held messages change in any process on this
 * home; the page then refreshes every view that listens (the traffic
 * badge and view, the approval cards, the refused and expired lines, the
 * held send rows) and asks again. A write this page makes (Deliver,
 * Refuse, the inbound choice) refreshes them at once. Their own slow
 * polls stay as a fallback when the channel fails.
 * @module dsh-cross-session/client/changes
 */
import { useEffect, useRef } from 'react'
import { callChannel } from './channel.js'

/** Longest pause after a failed wait before asking again, ms. */
const MAX_BACKOFF_MS = 30_000

const listeners = new Set()
let waiting = false

function notify() {
  for (const listener of [...listeners]) {
    try {
      listener()
    } catch {
      // One view's refresh must not stop the others'.
    }
  }
}

async function waitLoop(ctx) {
  let version
  let failures = 0
  while (listeners.size > 0) {
    try {
      const next = (await callChannel(ctx, 'changes.wait', version === undefined ? {} : { since: version }))?.version
      if (version !== undefined && next !== version) notify()
      version = next
      failures = 0
    } catch {
      failures++
      await new Promise(resolve => setTimeout(resolve, Math.min(MAX_BACKOFF_MS, 1000 * 2 ** failures)))
    }
  }
  waiting = false
}

/** Every listening view refreshes now (after a write this page made). */
export function changed() {
  notify()
}

/** Run `refresh` whenever the host reports a change (and after this page's own writes), while mounted. */
export function useChanges(ctx, refresh) {
  const ref = useRef(refresh)
  ref.current = refresh
  useEffect(() => {
    const listener = () => { void ref.current() }
    listeners.add(listener)
    if (!waiting && ctx !== undefined) {
      waiting = true
      void waitLoop(ctx)
    }
    return () => { listeners.delete(listener) }
  }, [ctx])
}
