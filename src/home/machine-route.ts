/**
 * A send to a session of another machine on a shared store
 * (docs/architecture.md §8 "Several machines"): its log is a file on that
 * machine, so it is never woken here. The message goes through the store
 * to the process of that machine that holds the session live, or, when
 * none does, waits there for that machine's long-lived host (`dsh web`) to
 * wake it (a message is adopted only by its target's machine:
 * `home/pg/pg-message-reads.ts` `adoptable`). While no process of that
 * machine runs, it stays pending, and the sender's result says so.
 *
 * @module dsh-cross-session/home/machine-route
 */

import type { ControllerOutcome, ResolvedTarget } from '../ports.js'
import type { MachineView } from '../model/sessions.js'
import { remoteTarget } from './remote-delivery.js'
import type { HomeStore } from './store.js'

/**
 * Resolve `sessionId` of `machine`.
 * @returns a remote target (held there, or `handoff`: cold, for that machine's host to wake), or `not-live` when the
 *   sender may not wake a session that no process holds (as a local cold session, `adapters/controller.ts`).
 */
export function resolveOnMachine(store: Pick<HomeStore, 'view'>, sessionId: string, machine: MachineView,
  mayWake: boolean): ControllerOutcome<ResolvedTarget> {
  const holder = store.view(sessionId).holder
  if (holder !== undefined) return remoteTarget(sessionId, holder.tag.pid, mayWake, { machine })
  if (!mayWake) return { ok: false, reason: { kind: 'not-live' } }
  return remoteTarget(sessionId, 0, true, { handoff: true, machine })
}
