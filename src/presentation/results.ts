/**
 * What a tool call returns: one value per outcome (listed, read, accepted,
 * held, retried, withdraw, refused, cancelled), and the one place its model text is
 * written from it ({@link renderResult}).
 *
 * The executors (`src/tools/sessions-*.ts`) return these values; the
 * registry validates each against {@link RESULT_SCHEMA} and renders it with
 * `output.render`, and `output.presentationMeta` hands the same value to
 * every client as the `tool/result` event's `meta`
 * (`@deepseek-ai/dsh-tools@0.1.0-rc.8` lib/types/index.d.ts
 * `ToolOutputDefinition`). The presenters and the web rows read that value,
 * never the text (docs/architecture.md §7). Every field holds what the text
 * shows: ids, titles and paths one line and clipped as printed (a send's
 * target id as the call gave it; the text clips it at 200 code points).
 *
 * @module dsh-cross-session/presentation/results
 */

import type { AcceptedValue, RetriedValue } from './accepted.js'
import { renderAccepted, renderRetried } from './accepted.js'
import { renderCancelled, renderRefusal, type CancelledValue, type RefusedValue } from './common.js'
import { renderHeld, type HeldValue } from './inbound.js'
import { renderListed, type ListedValue } from './list.js'
import { renderReadValue, type ReadValue } from './read.js'
import { renderWithdraw, type WithdrawValue } from './withdraw.js'

export type { AcceptedValue, CancelledValue, HeldValue, ListedValue, ReadValue, RefusedValue, RetriedValue, WithdrawValue }

/** What a `sessions_send` call that was not stopped returns (`withdraw`: a call with `withdraw: true` the store answered). */
export type SendValue = AcceptedValue | HeldValue | RetriedValue | WithdrawValue

/** Every tool result, by `kind`. */
export type ResultValue = ListedValue | ReadValue | SendValue | RefusedValue | CancelledValue

/** The result kinds, each with its text (a kind missing here does not compile). */
const RENDER: { readonly [K in ResultValue['kind']]: (value: Extract<ResultValue, { kind: K }>) => string } = {
  listed: renderListed,
  read: renderReadValue,
  accepted: renderAccepted,
  held: renderHeld,
  retried: renderRetried,
  withdraw: renderWithdraw,
  refused: value => renderRefusal(value, value.consequence),
  cancelled: value => renderCancelled(value.tool, value.step, value.consequence),
}

/** The result kinds, in the order of {@link RENDER}. */
export const RESULT_KINDS = Object.keys(RENDER) as ReadonlyArray<ResultValue['kind']>

/** The model's text of a result: the one place it is written. */
export function renderResult(value: ResultValue): string {
  return (RENDER[value.kind] as (value: ResultValue) => string)(value)
}

/** A value of one of the result kinds (a `meta` from a client, or an older log's absent one). */
export function isResultValue(value: unknown): value is ResultValue {
  const kind = (value as { kind?: unknown } | null | undefined)?.kind
  return typeof value === 'object' && value !== null && typeof kind === 'string' && (RESULT_KINDS as readonly string[]).includes(kind)
}

/**
 * `output.schema`: an object with one of the kinds (rc.8's enforced JSON
 * Schema subset, `@deepseek-ai/dsh-tools@0.1.0-rc.8`
 * lib/types/json-schema.d.ts). The shapes themselves are the types above;
 * the registry checks only that a value is a result at all, so a value
 * never fails the registry's check on a field the type already fixes.
 */
export const RESULT_SCHEMA = {
  type: 'object',
  properties: { kind: { type: 'string', enum: [...RESULT_KINDS] } },
  required: ['kind'],
} as const
