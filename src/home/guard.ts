/**
 * The cross-process guard around the controller port (issue 8 §2, §3, §5).
 *
 * `resolve`, in order:
 * 1. live in this process → the inner port (local delivery, as before);
 * 2. live in another process (presence) → a remote target: no wake here;
 * 3. waking not allowed → the inner port (which refuses);
 * 4. take the wake lease; held by another living process → a remote target
 *    (that process is waking it and will claim the message once live);
 * 5. re-read presence under the lease (it may have gone live meanwhile);
 * 6. refuse when the log ends in a recent open turn (`open-turn.ts`);
 * 7. wake through the inner port; keep the lease while the session is live
 *    here; deliver the messages that waited for it before this one.
 *
 * Several sends in this process that wake one session share one attempt
 * (one lease, one set of checks) and each resolves through the inner port,
 * whose shared resume keeps a caller that gives up from taking the session
 * away from the others.
 *
 * `admit` to a remote target posts one mailbox message and hands back its id;
 * `waitRecorded`, given that id, waits, bounded, for its receipt and else says whether it was claimed or is still
 * pending.
 *
 * @module dsh-cross-session/home/guard
 */

import type { ControllerOutcome, ControllerPort, ResolvedTarget } from '../ports.js'
import { deliveryReasons } from '../presentation/send.js'
import { acquireLease, type Lease } from './lease.js'
import { blocksWake, openTurnAgeMs } from './open-turn.js'
import { sameProcess } from './paths.js'
import { isAlive } from './process-tag.js'
import { postRemote, waitRemote } from './remote-delivery.js'
import type { HomeRuntime } from './runtime.js'

/**
 * Reads a session's stored events as written, without recovery's synthetic
 * closers (rc.8 `sessionPersistence.readFrom(id, 0)`; `sessionQuery.listEvents`
 * and `inspect` close an interrupted turn in memory, measured here).
 */
type ListEvents = (sessionId: string) => Promise<readonly unknown[]>

function remote(sessionId: string, pid: number): ControllerOutcome<ResolvedTarget> {
  return { ok: true, value: { sessionId, woke: false, running: false, remote: { pid } } }
}

/**
 * One guarded wake of one session in this process: the lease, the checks
 * under it, and every caller that resolves through it. The checks run once;
 * each caller then resolves through the inner port itself, so the inner
 * port's shared resume counts every caller that waits on it (a caller that
 * gives up leaves the session to the others, issue 11 §3). The lease is kept
 * by the first caller that woke the session, and released when the last
 * caller is done without a wake.
 */
interface WakeAttempt {
  readonly lease: Lease
  /** `undefined`: go ahead and resolve; else the outcome every caller gets. */
  readonly checked: Promise<ControllerOutcome<ResolvedTarget> | undefined>
  callers: number
  kept?: Promise<void>
}

/**
 * Wrap `inner` with the cross-process rules.
 * @param inner - the in-process controller port.
 * @param runtime - this process's home runtime.
 * @param isLocal - whether a session is live in this process.
 * @param listEvents - raw-log reader for the open-turn check.
 */
export function guardController(inner: ControllerPort, runtime: HomeRuntime, isLocal: (sessionId: string) => boolean, listEvents: ListEvents | undefined): ControllerPort {
  /** Guarded wakes in flight in this process, by session id. */
  const attempts = new Map<string, WakeAttempt>()

  /** Checks under a fresh lease (steps 5–6); the lease is released here when they refuse. */
  async function checkUnderLease(sessionId: string, lease: Lease): Promise<ControllerOutcome<ResolvedTarget> | undefined> {
    try {
      const again = runtime.board()
      const now = again.elsewhere.get(sessionId)
      if (now !== undefined) {
        lease.release()
        return remote(sessionId, now.holder.pid)
      }
      if (listEvents !== undefined) {
        const age = openTurnAgeMs(await listEvents(sessionId), Date.now())
        if (blocksWake(age, again.deadHolders.has(sessionId))) {
          lease.release()
          return { ok: false, reason: deliveryReasons.openTurn(age ?? 0) }
        }
      }
      return undefined
    } catch (error: unknown) {
      lease.release()
      throw error
    }
  }

  /** Step 7 for one caller of `attempt`: resolve through the inner port, keep the lease on the first wake. */
  async function resolveThrough(attempt: WakeAttempt, sessionId: string, options: Parameters<ControllerPort['resolve']>[1]): Promise<ControllerOutcome<ResolvedTarget>> {
    const verdict = await attempt.checked
    if (verdict !== undefined) return verdict
    attempt.callers++
    try {
      const resolved = await inner.resolve(sessionId, options)
      if (resolved.ok && resolved.value.woke) {
        attempt.kept ??= (async () => {
          runtime.holdLease(attempt.lease)
          runtime.publisher.publish(sessionId)
          runtime.clearStale(sessionId)
          // Messages that waited for this session go first (issue 8 §4).
          await runtime.drain(sessionId)
        })()
        await attempt.kept
      }
      return resolved
    } finally {
      attempt.callers--
      if (attempt.callers === 0 && attempts.get(sessionId) === attempt) {
        attempts.delete(sessionId)
        if (attempt.kept === undefined) attempt.lease.release()
      }
    }
  }

  const port: ControllerPort = {
    async resolve(sessionId, options) {
      if (isLocal(sessionId)) return await inner.resolve(sessionId, options)
      const board = runtime.board()
      const holder = board.elsewhere.get(sessionId)
      if (holder !== undefined) return remote(sessionId, holder.holder.pid)
      if (!options.mayWake) return await inner.resolve(sessionId, options)

      // A wake of this session already under way here: join it (one lease, one set of checks).
      const joined = attempts.get(sessionId)
      if (joined !== undefined) return await resolveThrough(joined, sessionId, options)

      const leased = acquireLease(runtime.layout.leases, sessionId, runtime.self, isAlive)
      if (!leased.ok) {
        if (leased.holder !== undefined && sameProcess(leased.holder, runtime.self)) return await inner.resolve(sessionId, options)
        if (leased.holder !== undefined) return remote(sessionId, leased.holder.pid)
        return { ok: false, reason: deliveryReasons.leaseUnreadable }
      }
      const attempt: WakeAttempt = { checked: checkUnderLease(sessionId, leased.lease), callers: 0, lease: leased.lease }
      attempts.set(sessionId, attempt)
      // A refused or failed check ends the attempt for everyone who joined it.
      attempt.checked.then(verdict => {
        if (verdict !== undefined && attempts.get(sessionId) === attempt) attempts.delete(sessionId)
      }, () => {
        if (attempts.get(sessionId) === attempt) attempts.delete(sessionId)
      })
      return await resolveThrough(attempt, sessionId, options)
    },

    async admit(target, prompt) {
      if (target.remote === undefined) return await inner.admit(target, prompt)
      return postRemote(runtime.layout, target, prompt)
    },

    async waitRecorded(target, requestId, options) {
      if (target.remote === undefined) return await inner.waitRecorded(target, requestId, options)
      return await waitRemote(runtime.layout, target, options)
    },

    async releaseWoken(target) {
      const said = await inner.releaseWoken(target)
      if (!isLocal(target.sessionId)) runtime.untrack(target.sessionId)
      return said
    },
  }
  return port
}
