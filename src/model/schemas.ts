/**
 * Fixed JSON Schemas of the three tools (TypeBox); validation against them
 * is `src/tools/arguments.ts`.
 *
 * Source: seed 004 argument tables. The schemas are registered once and are
 * part of the prefix-stable portion of every request, so descriptions are
 * kept short (the three together must stay at or under 1,200 bytes as the
 * model receives them; `test/unit/schemas.test.ts` measures it).
 *
 * @module dsh-cross-session/schemas
 */

import Type, { type Static } from 'typebox'

/** `sessions_list` arguments (seed 004). */
export const SessionsListArgs = Type.Object({
  query: Type.Optional(Type.String({ description: 'Match id/title/cwd/preset' })),
  scope: Type.Optional(Type.Enum(['top-level', 'subagents', 'all'])),
  live_only: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
}, { additionalProperties: false })

/** `sessions_read` arguments (seed 004). */
export const SessionsReadArgs = Type.Object({
  session_id: Type.String({ description: 'Id from sessions_list' }),
  max_messages: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  include_injected: Type.Optional(Type.Boolean()),
  include_system: Type.Optional(Type.Boolean()),
}, { additionalProperties: false })

/** `sessions_send` arguments (seed 004). */
export const SessionsSendArgs = Type.Object({
  session_id: Type.String(),
  message: Type.String(),
  mode: Type.Optional(Type.Enum(['queue', 'steer'], { description: 'queue: next turn; steer: running turn' })),
}, { additionalProperties: false })

export type SessionsListArgs = Static<typeof SessionsListArgs>
export type SessionsReadArgs = Static<typeof SessionsReadArgs>
export type SessionsSendArgs = Static<typeof SessionsSendArgs>

/** Delivery mode of seed 004: next turn (`queue`) or running turn (`steer`). */
export type SendMode = 'queue' | 'steer'

/** The three tool schemas, by tool name, exactly as registered. */
export const TOOL_SCHEMAS = {
  sessions_list: SessionsListArgs,
  sessions_read: SessionsReadArgs,
  sessions_send: SessionsSendArgs,
} as const
