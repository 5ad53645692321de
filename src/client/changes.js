/**
 * Updates pushed to the page: the host sends a frame on the page's key
 * socket (./channel.js `onKeySocket`; src/home/change-feed.ts) when what the
 * page's views show changes in any process on this home (`store`: the
 * traffic rows, the held messages) or when a session live in that host
 * appends to its log (`logs`, with the session ids). Each listening view
 * refreshes then: the traffic badge and view, the approval cards with the
 * refused and expired lines, the send rows. A write this page makes
 * (Deliver, Refuse, Withdraw, the inbound choice) refreshes them at once.
 * Only while the socket is lost does the page poll (./change-hub.ts).
 * @module dsh-cross-session/client/changes
 */
import { useEffect, useRef } from 'react'
import { onKeySocket, openKeySocket } from './channel.js'
import { createChangeHub } from './change-hub.ts'

const hub = createChangeHub({
  onKeySocket,
  open: openKeySocket,
  every: (ms, run) => {
    const timer = setInterval(run, ms)
    return () => clearInterval(timer)
  },
  after: (ms, run) => { setTimeout(run, ms) },
})

/** Every listening view refreshes now (after a write this page made). */
export function changed() {
  hub.changed()
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
    if (ctx === undefined) return undefined
    return hub.listen({
      run: () => { void ref.current.refresh() },
      logs: sessions => ref.current.logs !== undefined && ref.current.logs(sessions),
    })
  }, [ctx])
}
