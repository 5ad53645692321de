/**
 * The read side of the corpus the tools depend on, and the calling
 * session (docs/architecture.md §2). Shapes mirror the rc.8 harness types
 * (`@deepseek-ai/dsh-session-query@0.1.0-rc.8` `SessionRecord` and
 * `SessionSurfaceSnapshot`) but only the fields this package reads; every
 * field read from a backend is treated as possibly malformed.
 *
 * @module dsh-cross-session/ports/session-query
 */

import type { RelayProvenance } from '../model/provenance.js'
import type { HeaderFilter } from '../model/list-filter.js'
import type { MachineView, SessionHeaderView, SessionRecordView } from '../model/sessions.js'
import type { InboundMode } from '../settings/resolve.js'

/**
 * One current-surface snapshot (rc.8 `SessionSurfaceSnapshot`). `events` are
 * raw surface events; `src/model/surface.ts` reads them defensively.
 */
export interface SurfaceView {
  readonly session: SessionHeaderView
  /** Highest raw-log seq included, or `null` for an empty log. */
  readonly capturedThroughSeq: number | null
  readonly events: readonly unknown[]
}

/** How long one `readTitles` call may fold titles (see {@link SessionQueryPort.readTitles}). */
export interface TitleReadOptions {
  /** Time for title folds, in ms from the call's start; absent: no bound. */
  readonly budgetMs?: number
}

/** What a first list asks of {@link SessionQueryPort.listNewest}. */
export interface NewestRequest {
  /** The header filters of the list (visibility, `scope`). */
  readonly filter: HeaderFilter
  /** Rows the list shows at most (its caller's own row aside). */
  readonly limit: number
}

/** A first list's rows ({@link SessionQueryPort.listNewest}). */
export interface NewestRows {
  /**
   * The rows passing the filter that a list of `limit` can show: at least the `limit + 1` newest (a list shows its
   * caller's own row only when fewer than `limit` others pass); live flags as `listSessions` gives them.
   */
  readonly rows: SessionRecordView[]
  /** Every session passing the filter (what `listSessions` would give that passes it). */
  readonly considered: number
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
   *
   * With `options.budgetMs` (ms), a port that folds titles from the logs
   * itself (the corpus index, docs/performance.md "A query on a home still
   * being indexed") stops folding once that much time has passed: the ids
   * it did not reach are absent from the map (`has` is false); it folds
   * the newest sessions (by `createdAt`) first, the rows a list shows
   * first. At least
   * one fold is made per call, and titles already folded at their log's
   * current revision are always given. A port that reads every title in
   * one backend call (rc.8 `readTitleSnapshots`) ignores the budget.
   */
  readTitles(sessionIds: readonly string[], signal: AbortSignal, options?: TitleReadOptions): Promise<Map<string, string | undefined>>
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
  /**
   * The headers the logs of these stored sessions hold now, for a port whose listing can give a header it did
   * not re-check (the corpus index lists a log it knows without a `stat`: docs/performance.md "What each call
   * re-checks"); `sessions_list` asks it for the rows it shows before printing them. Each id maps to its
   * header now, or to `undefined` when no log of that id exists now (and it is not live in this process).
   * A port that reads its listing afresh on every call has no such method. Never wakes a session.
   */
  recheck?(sessionIds: readonly string[], signal: AbortSignal): Promise<Map<string, SessionHeaderView | undefined>>
  /**
   * The newest rows passing `request.filter`, and how many pass it, without listing every row: for a port that lists
   * from a shared cache, a new process's first `sessions_list` without a query or `live_only` (docs/performance.md
   * "What a new process reads"). `undefined` when this port cannot answer it so (then `listSessions`); a port
   * without the method always lists. The same rows and count as `listSessions` filtered, as of the listing it makes.
   */
  listNewest?(request: NewestRequest, signal: AbortSignal): Promise<NewestRows | undefined>
  /** Whether a session is live right now (a non-waking registry lookup). */
  isLive(sessionId: string): boolean
  /**
   * The other dsh process on this home where the session is live, when it
   * is live there and not here; absent without a home runtime.
   */
  liveElsewhere?(sessionId: string): { readonly pid: number } | undefined
  /**
   * The machine of a session of another machine on a shared store (docs/architecture.md §8 "Several machines"), as
   * the port last listed or read it; `undefined` for a session of this machine, and absent without a shared store.
   */
  machineOf?(sessionId: string): MachineView | undefined
  /**
   * For a session of another machine on a shared store: that machine's own `inbound` setting, as it published it
   * (what a peer message does to a session with no choice of its own, docs/tools.md#inbound-messages); `undefined`
   * for a session of this machine, or one whose machine published none. Absent without a shared store.
   * @throws a failure while the shared store cannot be read (a send is then refused: the target's `hold` or `refuse`
   *   is never bypassed).
   */
  hostInboundOf?(sessionId: string, signal: AbortSignal): Promise<InboundMode | undefined>
}

/** The calling session, from `exec.agent` (docs/architecture.md §2). */
export interface Caller {
  readonly sessionId: string
  readonly header: SessionHeaderView
  /**
   * What this plugin recorded on the message that started the caller's
   * current turn (`src/model/provenance.ts`), used for the causal hop count;
   * `undefined` when a human (or nothing) started it. Never read from text.
   */
  latestRelay(): RelayProvenance | undefined
}
