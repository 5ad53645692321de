/**
 * The cross-process guard around the controller port (docs/architecture.md §8).
 *
 * `resolve`, in order:
 * 0. a session of another machine on a shared store → through the store, never woken here (`machine-route.ts`);
 * 1. live in this process → the inner port (local delivery, admitted with a store row: `local-delivery.ts`),
 *    unless it is this headless run's own task (`run-task.ts`): through the store;
 * 2. held by another living process (the store) → a remote target: nothing
 *    is woken here, the message goes through the store to that holder;
 * 3. waking not allowed → the inner port (which refuses);
 * 4. this process is short-lived (headless) and a long-lived host of this
 *    package is on the home → a hand-over: the message goes through the
 *    store and that host wakes the session, so it answers there;
 * 5. take the session in the store (one transaction: no living holder, a
 *    dead one replaced); held by another living process → remote;
 * 6. refuse when the log ends in a recent open turn written by a process
 *    the store does not know is gone (`open-turn.ts`);
 * 7. wake through the inner port; hold it live here; offer again what a
 *    cut-off turn left unanswered; deliver what waited before this message.
 *
 * Several sends here that wake one session share one attempt (one store transition, one set of
 * checks) and each resolves through the inner port, whose shared resume keeps a caller that
 * gives up from taking the session from the others.
 *
 * @module dsh-cross-session/home/guard
 */

import type { ControllerOutcome, ControllerPort, ResolvedTarget } from '../ports.js'
import { admitLocal } from './local-delivery.js'
import { blocksWake, openTurnOf } from './open-turn.js'
import { heldForRunTask, postRemote, remoteTarget as remote, waitRemote } from './remote-delivery.js'
import type { HomeRuntime } from './runtime.js'
import type { HolderView } from './store.js'
import { resolveOnMachine } from './machine-route.js'
import { newWatch } from './notices.js'
import type { MachineView } from '../model/sessions.js'
import { waitAnswered } from './woken-answer.js'
import { retryInBackground } from './store-retry.js'
// Reads a session's stored events as written, without recovery's synthetic closers.
import type { ListEvents } from './orphan-watches.js'

/** One guarded wake in this process: the checks under the store hold, and every caller resolving through it. */
interface WakeAttempt {
  readonly checked: Promise<ControllerOutcome<ResolvedTarget> | undefined>
  callers: number
  kept?: Promise<void>
}

/** What the guard needs of its process. */
export interface GuardHost {
  readonly isLocal: (sessionId: string) => boolean
  /** Whether a session live here is this headless run's own task (./run-hold.ts): sent to through the store; absent: never. */
  readonly keeps?: (sessionId: string) => boolean
  readonly agentOf: (sessionId: string) => Parameters<HomeRuntime['holdWoken']>[0] | undefined
  readonly listEvents: ListEvents | undefined
  /** Where a step given up after its background retries is said; absent: nowhere. */
  readonly log?: (message: string) => void
  /** The machine of a session of another machine on a shared store (./machine-route.ts); absent: one machine. */
  readonly machineOf?: (sessionId: string) => MachineView | undefined
}

/** Wrap `inner` with the cross-process rules. */
export function guardController(inner: ControllerPort, runtime: HomeRuntime, host: GuardHost): ControllerPort {
  const attempts = new Map<string, WakeAttempt>()
  const { store } = runtime
  // A row left `waking` would keep the session from every other process: a locked store is tried again, unless a new
  // wake or a hold here took the session meanwhile.
  const letGo = (sessionId: string): void => retryInBackground(() => store.release(sessionId, 'wake-failed'),
    () => !attempts.has(sessionId) && !runtime.holds(sessionId), host.log ?? (() => undefined))

  /** Step 6 under the hold; the hold is let go here when it refuses. */
  async function checkHeld(sessionId: string, previous: HolderView['lastLetGo']): Promise<ControllerOutcome<ResolvedTarget> | undefined> {
    try {
      if (host.listEvents === undefined) return undefined
      const turn = openTurnOf(await host.listEvents(sessionId), Date.now())
      if (!blocksWake(turn, previous)) return undefined
      letGo(sessionId)
      return { ok: false, reason: { kind: 'open-turn', ageMs: turn?.ageMs ?? 0 } }
    } catch (error: unknown) {
      letGo(sessionId)
      throw error
    }
  }

  async function resolveThrough(attempt: WakeAttempt, sessionId: string,
    options: Parameters<ControllerPort['resolve']>[1]): Promise<ControllerOutcome<ResolvedTarget>> {
    const verdict = await attempt.checked
    if (verdict !== undefined) return verdict
    attempt.callers++
    try {
      const resolved = await inner.resolve(sessionId, options)
      const agent = host.agentOf(sessionId)
      if (resolved.ok && agent !== undefined) {
        attempt.kept ??= runtime.holdWoken(agent)
        await attempt.kept.catch(async (error: unknown) => {
          // Held nowhere: a session this call woke is put back to sleep, never left awake for good.
          if (resolved.value.woke) await inner.releaseWoken(resolved.value).catch(() => undefined)
          throw error
        })
      }
      return resolved
    } finally {
      attempt.callers--
      if (attempt.callers === 0 && attempts.get(sessionId) === attempt) {
        attempts.delete(sessionId)
        if (attempt.kept === undefined) letGo(sessionId)
      }
    }
  }

  /** Steps 5–7 for one caller. */
  async function wakeHere(sessionId: string,
    options: Parameters<ControllerPort['resolve']>[1]): Promise<ControllerOutcome<ResolvedTarget>> {
    const joined = attempts.get(sessionId)
    if (joined !== undefined) return await resolveThrough(joined, sessionId, options)
    const held = store.acquire(sessionId)
    if (!held.ok) return remote(sessionId, held.holder.tag.pid, options.mayWake, { runTask: heldForRunTask(store, held.holder) })
    const attempt: WakeAttempt = { checked: checkHeld(sessionId, held.previous), callers: 0 }
    attempts.set(sessionId, attempt)
    attempt.checked.then(verdict => {
      if (verdict !== undefined && attempts.get(sessionId) === attempt) attempts.delete(sessionId)
    }, () => {
      if (attempts.get(sessionId) === attempt) attempts.delete(sessionId)
    })
    return await resolveThrough(attempt, sessionId, options)
  }

  // A long-lived host wakes sessions with waiting messages and no living holder.
  /** Wake `sessionId` here for the messages waiting for it in the store; its drain delivers them. */
  async function wakeForWaiting(sessionId: string, signal: AbortSignal): Promise<boolean> {
    const resolved = await wakeHere(sessionId, { mayWake: true, signal })
    if (resolved.ok) inner.markDelivered?.(resolved.value)
    else if (resolved.code === 'not-found') store.refuseWaiting(sessionId, 'target-gone')
    return resolved.ok
  }
  runtime.adopt = async sessionId => await wakeForWaiting(sessionId, new AbortController().signal)

  return {
    async resolve(sessionId, options) {
      const machine = host.machineOf?.(sessionId)
      if (machine !== undefined) return resolveOnMachine(store, sessionId, machine, options.mayWake)
      if (host.isLocal(sessionId))
        return host.keeps?.(sessionId) === true ? remote(sessionId, store.self.pid, options.mayWake, { runTask: true })
          : await inner.resolve(sessionId, options)
      const holder = store.view(sessionId).holder
      if (holder !== undefined && holder.tag.pid !== store.self.pid)
        return remote(sessionId, holder.tag.pid, options.mayWake, { runTask: heldForRunTask(store, holder) })
      if (!options.mayWake) return await inner.resolve(sessionId, options)
      const longLivedHost = runtime.isLongLived ? undefined : store.longLivedHost()
      if (longLivedHost !== undefined && holder === undefined) return remote(sessionId, longLivedHost.pid, true, { handoff: true })
      return await wakeHere(sessionId, options)
    },

    async admit(target, prompt) {
      if (target.remote === undefined) return await admitLocal(runtime, inner, target, prompt, host.log ?? (() => undefined))
      const posted = await postRemote(runtime, target, prompt)
      if (posted.ok && host.isLocal(target.sessionId)) void runtime.drain(target.sessionId)
      return posted
    },

    async waitRecorded(target, requestId, options) {
      if (target.remote === undefined) return await inner.waitRecorded(target, requestId, options)
      // This run's own task takes nothing while the run lives, and the run does not end while this send waits.
      if (target.remote.runTask === true && target.remote.pid === store.self.pid) return { stage: 'pending' }
      // Another machine's session is woken there, never here.
      return await waitRemote(runtime, options, target.remote.machine !== undefined ? undefined
        : async message => { await wakeForWaiting(message.target, options.signal) })
    },

    async waitAnswered(target, requestId, options) {
      // Only a short-lived process that woke the session cuts its turn off by ending: through this send,
      // or by taking over the wake of a remote target whose holder let it wait (it is live here now).
      if (runtime.isLongLived || (target.remote === undefined ? !target.woke : !runtime.holds(target.sessionId))) return undefined
      const agent = host.agentOf(target.sessionId)
      if (agent === undefined) return undefined
      const answered = await waitAnswered(agent, requestId, options)
      // This process may end right after: the notices of that turn go to the store first.
      if (answered.ended) await runtime.lookAtWatches(target.sessionId)
      return answered
    },

    watchAnswer(watch) {
      store.watch(newWatch(watch, runtime.isLongLived, Date.now()))
      return true
    },

    unwatchAnswer(requestId) {
      store.unwatch(requestId)
    },

    async releaseWoken(target) {
      const said = await inner.releaseWoken(target)
      if (!host.isLocal(target.sessionId)) runtime.untrack(target.sessionId, 'wake-failed')
      return said
    },
  }
}
