/**
 * What the three tool executors share: their dependencies and the context
 * of one call.
 *
 * @module dsh-cross-session/tools/shared
 */

import type { SendLimits } from '../model/limits.js'
import type { ApprovalStore, Caller, ControllerPort, SessionQueryPort, WithdrawStore } from '../ports.js'
import type { DiagnosticSink } from '../model/service-boundary.js'
import type { Settings } from '../settings/resolve.js'
import type { AcceptedValue } from '../presentation/accepted.js'
import type { HeldValue } from '../presentation/inbound.js'
import type { ResultValue } from '../presentation/results.js'

/**
 * The home store's approval half as the tools use it: the target's own
 * inbound choice, holding a message for its user, the journal of local
 * deliveries (docs/tools.md#inbound-messages), and withdrawing a waiting
 * message (docs/tools.md#withdrawing-a-message). Absent when this process has
 * no usable home store.
 */
export type InboundPort = Pick<ApprovalStore, 'inboundOf' | 'holdForApproval' | 'journal'>
  & Partial<Pick<ApprovalStore, 'approvals'>> & Partial<WithdrawStore>

/** Everything a tool executor depends on (built once per plugin instance). */
export interface ToolDeps {
  readonly sessions: SessionQueryPort
  readonly controller: ControllerPort
  readonly settings: Settings
  /** Send limits, and the first result of each delivered or held call (a retry returns it). */
  readonly limits: SendLimits<AcceptedValue | HeldValue>
  /** Absent without a home store: the `inbound` setting alone applies, and `hold` cannot keep a message. */
  readonly inbound?: InboundPort | undefined
  /** Full diagnostics (stacks) go here, never to the model. */
  readonly log: DiagnosticSink
}

/** Everything one tool call needs besides its arguments. */
export interface ToolCallContext {
  readonly caller: Caller | undefined
  /** The harness tool call id; `requestId`s derive from it. */
  readonly callId: string
  readonly signal: AbortSignal
}

/**
 * One tool's executor: the arguments as the harness passed them (validated
 * inside), the call, the dependencies; resolves to the result's value (its
 * text is `renderResult`'s, `src/presentation/results.ts`) and never rejects
 * on purpose (`src/tools/definitions.ts` catches the rest).
 */
export type ToolExecutor = (args: unknown, call: ToolCallContext, deps: ToolDeps) => Promise<ResultValue>
