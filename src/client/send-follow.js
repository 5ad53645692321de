/**
 * Where a send row's message is now (./send-row.jsx): in the home store
 * while it waits there (held for its user, or in the store's queue; the
 * channel's `sends.held`), and in the target's history once it can be
 * recorded (src/client/send-state.ts). Both look again when the host pushes
 * a change (./changes.js), not on a timer.
 * @module dsh-cross-session/client/send-follow
 */
import { useEffect, useRef, useState } from 'react'
import { isSettled, readHistory, sendStateOf } from './send-state.ts'
import { heldOf, storedOf } from './send-outcome.ts'
import { useChanges } from './changes.js'

/**
 * A send row looks again when the host pushes a change (./changes.js): of the store for a message that waits there,
 * of the target's log for one it follows in that history; for at most FOLLOW_FOR_MS after the last change it saw.
 * A look that failed (the channel or the history read failed, or the host served no history) is tried again after
 * RETRY_MS, within the same bound: nothing may be pushed about a target that has gone quiet.
 */
const FOLLOW_FOR_MS = 10 * 60_000
const RETRY_MS = 2000

/**
 * Follow a message that waits in the home store (the channel's `sends.held`):
 * held for its user, or in the store's queue. `{ view, stored, messageId }`,
 * each `undefined` until the first answer that names it.
 */
export function useHeldState(ctx, held, callId, args, enabled) {
  const [view, setView] = useState(undefined)
  const [stored, setStored] = useState(undefined)
  const [messageId, setMessageId] = useState(undefined)
  const [nudge, setNudge] = useState(0)
  const [unknown, setUnknown] = useState(false)
  const key = JSON.stringify(args)
  // A change the host reports: look again now, while the message is (or may be) still waiting.
  const waiting = (view !== undefined && view.state === 'held') || stored === 'pending' || stored === 'claimed'
  const settled = unknown || (!waiting && (view !== undefined || stored !== undefined))
  useChanges(ctx, () => { if (enabled && !settled) setNudge(n => n + 1) })
  useEffect(() => {
    if (!enabled || typeof held !== 'function' || typeof callId !== 'string') return undefined
    let stopped = false
    let timer
    const look = async () => {
      let answer
      try {
        answer = await held(callId, JSON.parse(key))
      } catch {
        answer = undefined // the channel failed: ask again
      }
      if (stopped) return
      const next = heldOf(answer)
      const queue = storedOf(answer)
      if (next !== undefined) setView(next)
      if (queue !== undefined) setStored(queue)
      if (typeof answer?.messageId === 'string') setMessageId(answer.messageId)
      // Neither held nor queued: the store keeps nothing of this call; nothing more to learn.
      if (answer?.held === null && answer?.stored == null) setUnknown(true)
      else if (answer === undefined) timer = setTimeout(look, RETRY_MS)
    }
    void look()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [held, callId, key, enabled, nudge])
  return { view, stored, messageId }
}

/**
 * Follow the message in the target's history (src/client/send-state.ts):
 * `undefined` until the first look, or when the host serves no history.
 */
export function useSendState(ctx, history, target, callId, body, enabled) {
  const [view, setView] = useState(undefined)
  const [nudge, setNudge] = useState(0)
  const until = useRef(Date.now() + FOLLOW_FOR_MS)
  const stage = useRef(undefined)
  const following = enabled && !(view !== undefined && isSettled(view.state))
  // A record or an answer moves the store's traffic rows (a message through the store) or the target's log (live here).
  useChanges(ctx, () => { if (following && Date.now() < until.current) setNudge(n => n + 1) },
    sessions => sessions === undefined || sessions.includes(target))
  useEffect(() => {
    if (!enabled || typeof history !== 'function' || target === undefined || typeof callId !== 'string') return undefined
    let stopped = false
    let timer
    const look = async () => {
      try {
        const answer = await history(target)
        if (answer === undefined || answer?.result?.ok === false) throw new Error('no history served')
        const { events, title } = readHistory(answer)
        if (stopped) return
        const state = sendStateOf(events, callId, body)
        if (stage.current !== state.stage) until.current = Date.now() + FOLLOW_FOR_MS
        stage.current = state.stage
        setView({ state, title })
      } catch {
        // The target may be gone or unreadable: keep what the call said, and look again a little later.
        if (!stopped && Date.now() < until.current) timer = setTimeout(look, RETRY_MS)
      }
    }
    void look()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [history, target, callId, body, enabled, nudge])
  return view
}
