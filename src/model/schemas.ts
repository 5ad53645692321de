/**
 * Fixed JSON Schemas of the three tools' arguments (TypeBox); the catalog
 * (`src/tools/catalog.ts`) sends each as its tool's `parameters`, and
 * `src/tools/arguments.ts` validates every call against the same object.
 *
 * Source: the argument tables of docs/tools.md#sessions_list,
 * docs/tools.md#sessions_read and docs/tools.md#sessions_send. The schemas
 * are registered once and are part of the prefix-stable portion of every
 * request, so descriptions are kept short (docs/tools.md#token-effect: the
 * three together stay at or under 1,400 bytes as the model receives them;
 * `test/unit/catalog.test.ts` pins every byte).
 *
 * @module dsh-cross-session/schemas
 */

import Type, { type Static } from 'typebox'

/** `sessions_list` arguments (docs/tools.md#sessions_list). */
export const SessionsListArgs = Type.Object({
  query: Type.Optional(Type.String({ description: 'Match id/title/cwd/preset' })),
  scope: Type.Optional(Type.Enum(['top-level', 'subagents', 'all'])),
  live_only: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
}, { additionalProperties: false })

/** `sessions_read` arguments (docs/tools.md#sessions_read). */
export const SessionsReadArgs = Type.Object({
  session_id: Type.String({ description: 'Id from sessions_list' }),
  max_messages: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  include_injected: Type.Optional(Type.Boolean()),
  include_system: Type.Optional(Type.Boolean()),
  after_seq: Type.Optional(Type.Integer({ minimum: 0 })),
  before_seq: Type.Optional(Type.Integer({ minimum: 0 })),
}, { additionalProperties: false })

/** `sessions_send` arguments (docs/tools.md#sessions_send). */
export const SessionsSendArgs = Type.Object({
  session_id: Type.String(),
  message: Type.String(),
  mode: Type.Optional(Type.Enum(['queue', 'steer'], { description: 'queue: next turn; steer: running turn' })),
  notify: Type.Optional(Type.Boolean({ description: 'Notice when its turn ends' })),
  withdraw: Type.Optional(Type.Boolean({ description: 'Take back (same args)' })),
}, { additionalProperties: false })

export type SessionsListArgs = Static<typeof SessionsListArgs>
export type SessionsReadArgs = Static<typeof SessionsReadArgs>
export type SessionsSendArgs = Static<typeof SessionsSendArgs>

/** Delivery mode: next turn (`queue`) or running turn (`steer`) (docs/tools.md#sessions_send). */
export type SendMode = 'queue' | 'steer'
