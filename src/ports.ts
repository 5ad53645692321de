/**
 * The injected interfaces (ports) the three tools depend on.
 *
 * The tools never touch the Cordis `ctx`: `src/plugin.ts` builds these ports
 * from whatever services the host composes (`src/adapters/*`), and unit tests
 * drive the tools through in-memory fakes of the same shapes (docs/architecture.md §2).
 * Shapes mirror the rc.8 harness types (`@deepseek-ai/dsh-session`
 * `SessionHeader`, `@deepseek-ai/dsh-session-query` `SessionRecord` and
 * `SessionSurfaceSnapshot`) but only the fields this package reads, and every
 * field read from a backend is treated as possibly malformed.
 *
 * @module dsh-cross-session/ports
 */

import type { RelayProvenance } from './model/provenance.js'
import type { Recorded } from './harness/recorded.js'
import type { AnswerWait, AnswerWatch, DeliveryReason, HolderRefusal, MailboxStage, ReleaseOutcome } from './model/outcomes.js'
import type { SendMode } from './model/schemas.js'

export type { AnswerWait, AnswerWatch, DeliveryReason, HolderRefusal, MailboxStage, ReleaseOutcome }

/** Durable session header fields this package reads (rc.8 `SessionHeader`). */
export interface SessionHeaderView {
  /** Durable session id, e.g. `session-e218…` or a bare UUID for subagents. */
  readonly id: string
  /** Creation time, Unix epoch ms. */
  readonly createdAt: number
  /** Absolute workspace path the session was created in, if any. */
  readonly cwd?: string
  /** The session this one was forked from (subagents carry their owner here). */
  readonly parentSession?: string
  /** `'subagent'` for a child created by the subagent tool. */
  readonly origin?: string
  /** Agent preset id the session was composed from, if any. */
  readonly agentPreset?: string
}

/** One corpus row (rc.8 `SessionRecord`). */
export interface SessionRecordView {
  readonly header: SessionHeaderView
  /** Whether the session is live in this process right now. */
  readonly live: boolean
  /** Whether the persistence backend holds it. */
  readonly persisted: boolean
  /** Set when it is live in another dsh process on this home (`live` is then true). */
  readonly elsewhere?: { readonly pid: number }
}

/**
 * One current-surface snapshot (rc.8 `SessionSurfaceSnapshot`). `events` are
 * raw surface events; `src/surface.ts` reads them defensively.
 */
export interface SurfaceView {
  readonly session: SessionHeaderView
  /** Highest raw-log seq included, or `null` for an empty log. */
  readonly capturedThroughSeq: number | null
  readonly events: readonly unknown[]
}

/**
 * Read side of the corpus. Backed by `ctx.sessionQuery` plus `ctx.agents.get`
 * for non-waking liveness. No method may wake a session.
 */
export interface SessionQueryPort {
  /** The whole corpus, newest first (one `sessionQuery.listSessions`). */
  listSessions(signal: AbortSignal): Promise<SessionRecordView[]>
  /**
   * Titles for the given ids in one batch (one `readTitleSnapshots`). Ids
   * without a title, or whose fold failed, map to `undefined`.
   */
  readTitles(sessionIds: readonly string[], signal: AbortSignal): Promise<Map<string, string | undefined>>
  /**
   * The current model surface of one session (one `readSurface`), or
   * `undefined` when no such session exists.
   */
  readSurface(sessionId: string, signal: AbortSignal): Promise<SurfaceView | undefined>
  /**
   * One session's record without listing the corpus and without waking it,
   * or `undefined` when no such session exists.
   */
  lookup(sessionId: string, signal: AbortSignal): Promise<SessionRecordView | undefined>
  /** Whether a session is live right now (a non-waking registry lookup). */
  isLive(sessionId: string): boolean
  /**
   * The other dsh process on this home where the session is live, when it
   * is live there and not here; absent without a home runtime.
   */
  liveElsewhere?(sessionId: string): { readonly pid: number } | undefined
}

/** Delivery mode (docs/tools.md#sessions_send; declared with the argument schema, `src/model/schemas.ts`). */
export type { SendMode }

/** A target the controller resolved, ready to receive a prompt. */
export interface ResolvedTarget {
  readonly sessionId: string
  /** True when resolving it resumed a cold session (through either host line). */
  readonly woke: boolean
  /** Whether the target was running a turn when resolved. */
  readonly running: boolean
  /**
   * Held by another dsh process on this home (docs/architecture.md §8): admitted through the home store, nothing
   * woken here. `handoff`: cold, handed to that long-lived host to wake; `mayWake`: the sender's `allowResume`.
   */
  readonly remote?: { readonly pid: number, readonly mayWake: boolean, readonly handoff?: boolean }
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
  admit(target: ResolvedTarget, prompt: { requestId: string, mode: SendMode, text: string, provenance: RelayProvenance, signal: AbortSignal }): Promise<ControllerOutcome<Admitted>>
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
  waitAnswered?(target: ResolvedTarget, requestId: string, options: { timeoutMs: number, signal: AbortSignal }): Promise<AnswerWait | undefined>
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

/** The calling session, from `exec.agent` (docs/architecture.md §2). */
export interface Caller {
  readonly sessionId: string
  readonly header: SessionHeaderView
  /**
   * What this plugin recorded on the message that started the caller's
   * current turn (`src/provenance.ts`), used for the causal hop count;
   * `undefined` when a human (or nothing) started it. Never read from text.
   */
  latestRelay(): RelayProvenance | undefined
}
