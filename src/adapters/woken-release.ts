/**
 * When sessions this plugin woke are put back to sleep (docs/architecture.md §5): the
 * idle rule of {@link idleToRelease} and the best-effort disposal.
 *
 * @module dsh-cross-session/adapters/woken-release
 */

import type { HostAgentHandle } from '../harness/host.js'

/** How long a woken session may sit idle after its turn before it is put back to sleep, ms (10 min). */
export const IDLE_RELEASE_MS = 10 * 60_000
/** Most idle woken sessions held resident at once. */
export const MAX_RESIDENT_WOKEN = 8
/** Interval of the idle sweep, ms. */
export const SWEEP_INTERVAL_MS = 30_000
/** How long a plugin disposal (a reload) lets a woken session's running turn end before it is put back to sleep, ms. */
export const RELEASE_TURN_WAIT_MS = 5 * 60_000
/** Interval at which that wait looks at the agent again, ms. */
const TURN_POLL_MS = 250

/**
 * A handle from a wake. `external`: the host's session controller keeps the
 * agent (0.1.2-alpha.2 `resume` returns only `.agent`), so disposing is not
 * this plugin's to do and texts must not claim it was put back to sleep.
 */
export interface WakeHandle extends HostAgentHandle {
  readonly external?: boolean
}

/** One woken session this plugin holds. */
export interface Held {
  readonly handle: WakeHandle
  claims: number
  delivered: boolean
  lastActive: number
}

/**
 * The idle woken sessions to release now: unclaimed, agent idle, idle for
 * at least {@link IDLE_RELEASE_MS}; then, over {@link MAX_RESIDENT_WOKEN},
 * the least recently active unclaimed idle ones. A session running a turn
 * is marked active instead (so it is never cut off).
 */
export function idleToRelease(held: ReadonlyMap<string, Held>, now: number): Array<[string, Held]> {
  const idle: Array<[string, Held]> = []
  for (const [sessionId, entry] of held) {
    if (entry.handle.agent.status === 'running') entry.lastActive = now
    else if (entry.claims === 0) idle.push([sessionId, entry])
  }
  idle.sort((a, b) => a[1].lastActive - b[1].lastActive)
  return idle.filter(([, entry], index) => now - entry.lastActive >= IDLE_RELEASE_MS || idle.length - index > MAX_RESIDENT_WOKEN)
}

/** Resolve once `agent` runs no turn, or after `ms` (unref'd: a process that ends does not wait). */
async function turnEnded(agent: { readonly status?: unknown }, ms: number): Promise<void> {
  const until = Date.now() + ms
  while (agent.status === 'running' && Date.now() < until) {
    await new Promise(resolve => setTimeout(resolve, TURN_POLL_MS).unref?.())
  }
}

/**
 * Dispose each handle; a failure is reported as `disposing <what> <id> failed: …`, never thrown.
 * @param turnWaitMs - how long a session running a turn may finish it first (a reload must not cut an answer off), ms.
 */
export async function disposeEach(entries: ReadonlyArray<readonly [string, Held]>, report: (message: string) => void, what: string,
  turnWaitMs = 0): Promise<void> {
  await Promise.all(entries.map(async ([sessionId, entry]) => {
    try {
      if (turnWaitMs > 0) await turnEnded(entry.handle.agent, turnWaitMs)
      await entry.handle.dispose()
    } catch (error: unknown) {
      report(`disposing ${what} ${sessionId} failed: ${String(error)}`)
    }
  }))
}
