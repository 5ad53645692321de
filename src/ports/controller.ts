/**
 * The write side the tools depend on (docs/architecture.md §2): resolve a
 * target (waking it only when allowed) and admit one prompt into its inbox,
 * then wait for its record. Backed by `src/adapters/controller.ts`.
 *
 * @module dsh-cross-session/ports/controller
 */

import type { Recorded } from '../harness/recorded.js'
import type { AnswerWait, AnswerWatch, DeliveryReason, MailboxStage, ReleaseOutcome } from '../model/outcomes.js'
import type { RelayProvenance } from '../model/provenance.js'
import type { SendMode } from '../model/schemas.js'
import type { MachineView } from '../model/sessions.js'

/** A target the controller resolved, ready to receive a prompt. */
export interface ResolvedTarget {
  readonly sessionId: string
  /** True when resolving it resumed a cold session (through either host line). */
  readonly woke: boolean
  /** Whether the target was running a turn when resolved. */
  readonly running: boolean
  /**
   * Held by another dsh process on this home (docs/architecture.md §8): admitted through the home store, nothing
   * woken here. `handoff`: cold, handed to that long-lived host to wake; `mayWake`: the sender's `allowResume`;
   * `runTask`: the session of a headless run's own task, which takes no stored message while that run lives
   * (docs/tools.md "A headless run's own task"); `machine`: a session of another machine on a shared store, delivered
   * by a process of that machine and never woken here (docs/architecture.md §8 "Several machines").
   */
  readonly remote?: {
    readonly pid: number
    readonly mayWake: boolean
    readonly handoff?: boolean
    readonly runTask?: boolean
    readonly machine?: MachineView
  }
}

/**
 * Outcome of a controller step: done, or refused with a {@link DeliveryReason}
 * and, when the backend gave one, its error code (`session/agent-busy`, …;
 * `not-found` for a session that does not exist) and its raw `detail` for
 * the log only.
 */
export type ControllerOutcome<T> =
  | { readonly ok: true, readonly value: T }
  | { readonly ok: false, readonly reason: DeliveryReason, readonly code?: string, readonly detail?: string }

/**
 * An admitted prompt. `recordFrom` is the target's log length at admission,
 * handed back to {@link ControllerPort.waitRecorded} so the wait scans only
 * what follows; it travels with the call instead of living in adapter state,
 * so a call cancelled (or failing) between admission and wait leaves nothing
 * behind.
 */
export interface Admitted {
  readonly mode: SendMode
  readonly running: boolean
  readonly recordFrom?: number
  /** For a remote target: the id of the message posted to the home store, handed back to {@link ControllerPort.waitRecorded}. */
  readonly mailboxMessageId?: string
  /** Admitted here with a row in the home store, claimed by this process: it survives this process's death (`home/local-delivery.ts`). */
  readonly stored?: boolean
}

/** One user-source prompt for {@link ControllerPort.admit}. */
export interface AdmitPrompt {
  readonly requestId: string
  readonly mode: SendMode
  readonly text: string
  readonly provenance: RelayProvenance
  readonly signal: AbortSignal
  /** Whether the sender allows waking the target (its `allowResume`): kept with a stored message for whoever delivers it. */
  readonly mayWake?: boolean
}

/** Options of {@link ControllerPort.waitRecorded}; `from` and `mailboxMessageId` come from {@link Admitted}. */
export interface RecordWaitOptions {
  readonly timeoutMs: number
  readonly signal: AbortSignal
  readonly settleForInbox: boolean
  readonly from?: number
  readonly mailboxMessageId?: string
}

/**
 * Write side: resolve a target and admit one prompt into its inbox. Backed by
 * `ctx.sessionController` when the host has one, else by an adapter over
 * `ctx.agents` (rc.8).
 */
export interface ControllerPort {
  /**
   * Make the target's agent available. With `mayWake: false` this must never
   * call anything that can resume a session: a target that is not live is
   * refused with a reason instead.
   */
  resolve(sessionId: string, options: { mayWake: boolean, signal: AbortSignal }): Promise<ControllerOutcome<ResolvedTarget>>
  /** Admit one user-source prompt. `requestId` is the correlation id; the same id admitted twice is delivered once. */
  admit(target: ResolvedTarget, prompt: AdmitPrompt): Promise<ControllerOutcome<Admitted>>
  /**
   * Put back to sleep a session that {@link resolve} woke but that did not
   * take the prompt, so nothing is left woken and abandoned.
   * @returns what happened to it.
   */
  releaseWoken(target: ResolvedTarget): Promise<ReleaseOutcome>
  /**
   * Wait, at most `timeoutMs`, until the target's conversation holds the
   * message admitted under `requestId` (or, with `settleForInbox`, until its
   * inbox does); the best record seen, or `undefined` when the log holds
   * neither by the bound.
   */
  waitRecorded(target: ResolvedTarget, requestId: string, options: RecordWaitOptions): Promise<Recorded | MailboxStage | undefined>
  /**
   * In a short-lived process that woke the target: wait, at most `timeoutMs`, until the turn that took the
   * message ends, so the process does not cut it off by exiting; `undefined` when there is nothing to wait for.
   */
  waitAnswered?(target: ResolvedTarget, requestId: string, options: { timeoutMs: number, signal: AbortSignal }):
    Promise<AnswerWait | undefined>
  /**
   * Ask for one notice to the sender when the target's turn that takes the
   * message `watch.requestId` ends (docs/tools.md#notices). Called before
   * the message is admitted, so no turn end can come first.
   * @returns `false` when this host cannot (no home store): notices are off.
   */
  watchAnswer?(watch: AnswerWatch): boolean
  /** Withdraw {@link watchAnswer} for a message that was not accepted. */
  unwatchAnswer?(requestId: string): void
  /** A session {@link resolve} woke took messages by another path (the home store's delivery): keep it, as after {@link admit}. */
  markDelivered?(target: ResolvedTarget): void
}
