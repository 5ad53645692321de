/**
 * A short-lived process must not cut off the turn of a session it woke
 * (rc.8 `@deepseek-ai/dsh-headless@0.1.0-rc.8` lib/index.js: the one-shot
 * run requests `ctx.appExit` as soon as its own agent is idle, and the root
 * fiber's disposal disposes every agent it holds, cancelling its turn). So a
 * send from such a process that woke its target waits, bounded by the
 * `answerWaitMs` setting, until the turn that takes the message has ended.
 *
 * Event-driven: it waits on the woken agent's `whenIdle()` (rc.8 `Agent`),
 * then reads the log for the `turn/end` after the message.
 *
 * @module dsh-cross-session/home/woken-answer
 */

import type { HostAgent } from '../harness/host.js'
import type { AnswerWait } from '../ports.js'
import { deliveryState, turnEnd } from '../harness/log-state.js'

/** Pause between looks while the agent is idle but the message's turn has not started yet, ms. */
const IDLE_RECHECK_MS = 50

/** Pure: the first `turn/end` after the message's own `user/message`, if both are in `events`. */
export function answerOf(events: readonly unknown[], messageId: string): { seq: number, reason: string } | undefined {
  const recorded = deliveryState(events, messageId)
  if (recorded.kind !== 'conversation') return undefined
  for (const event of events) {
    const end = turnEnd(event)
    if (end !== undefined && end.seq > recorded.seq) return end
  }
  return undefined
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const timer = setTimeout(done, ms)
    timer.unref?.()
    signal.addEventListener('abort', done, { once: true })
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
  })
}

/**
 * Wait, at most `timeoutMs`, until the turn that took `messageId` in `agent` ended.
 * @returns how it ended (`completed`, `interrupted`, `error`, …) and at which seq, or how long it waited.
 */
export async function waitAnswered(agent: HostAgent, messageId: string,
  options: { timeoutMs: number, signal: AbortSignal }): Promise<AnswerWait> {
  const started = Date.now()
  const deadline = started + options.timeoutMs
  for (;;) {
    const ended = answerOf(agent.session.events, messageId)
    if (ended !== undefined) return { ended: true, reason: ended.reason, seq: ended.seq }
    const remaining = deadline - Date.now()
    if (remaining <= 0 || options.signal.aborted) return { ended: false, waitedMs: Date.now() - started }
    const idle = agent.status === 'idle'
    await (idle ? pause(Math.min(IDLE_RECHECK_MS, remaining), options.signal)
      : Promise.race([agent.whenIdle(), pause(remaining, options.signal)]))
  }
}
