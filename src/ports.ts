/**
 * The injected interfaces (ports) the tools and the home depend on, in one
 * place (docs/architecture.md §2): the read side of the corpus and the
 * calling session (`ports/session-query.ts`), the controller
 * (`ports/controller.ts`), and the home store's halves the tools and the
 * web face reach: messages held for a user's approval
 * (`ports/approvals.ts`), notices (`ports/notices.ts`) and withdrawing a
 * waiting message (`ports/withdraw.ts`).
 *
 * The tools never touch the Cordis `ctx`: `src/plugin.ts` builds these ports
 * from whatever services the host composes (`src/adapters/*`, `src/home/*`),
 * and unit tests drive the tools through in-memory fakes of the same shapes.
 * The session shapes they carry are the model's (`src/model/sessions.ts`,
 * mirroring `@deepseek-ai/dsh-session@0.1.0-rc.8` `SessionHeader`).
 *
 * @module dsh-cross-session/ports
 */

export type { AnswerWait, AnswerWatch, DeliveryReason, HolderRefusal, MailboxStage, ReleaseOutcome } from './model/outcomes.js'
export type { SessionHeaderView, SessionRecordView } from './model/sessions.js'
/** Delivery mode (docs/tools.md#sessions_send; declared with the argument schema, `src/model/schemas.ts`). */
export type { SendMode } from './model/schemas.js'
export type * from './ports/session-query.js'
export type * from './ports/controller.js'
export * from './ports/approvals.js'
export type * from './ports/notices.js'
export type * from './ports/withdraw.js'
