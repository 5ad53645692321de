/**
 * Every refusal this package returns, and `sessions_send`'s fixed order of
 * checks with its three ordering guarantees, as pure functions:
 *
 * - the closed catalog (`refusals/catalog.ts`): per code, the docs row
 *   (cause, next step, contract or added) and the texts the model reads,
 *   one source for both;
 * - what a refused call did not do, and how ids are echoed in a refusal
 *   (`refusals/refusal.ts`);
 * - the next step per controller error code (`refusals/controller-next.ts`);
 * - the order of checks, `decideSend` and its guarantees (`refusals/order.ts`).
 *
 * @module dsh-cross-session/refusals
 */

export { REFUSAL_CATALOG, REFUSAL_CODES, refusalTableMarkdown, type Refusal, type RefusalCode } from './refusals/catalog.js'
export { displayId, NOTHING_DELIVERED, NOTHING_LISTED, NOTHING_READ, shownId } from './refusals/refusal.js'
export { NEXT_BY_CONTROLLER_CODE } from './refusals/controller-next.js'
export * from './refusals/order.js'
