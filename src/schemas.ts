/**
 * Fixed JSON Schemas of the three tools (TypeBox) and argument validation
 * against the same schemas.
 *
 * Source: seed 004 argument tables. The schemas are registered once and are
 * part of the prefix-stable portion of every request, so descriptions are
 * kept short (the three together must stay at or under 1,200 bytes as the
 * model receives them; `test/unit/schemas.test.ts` measures it).
 *
 * Validation never throws and never defaults over a wrong value: a wrong
 * type, an out-of-range number, an unknown enum value, a missing required
 * argument or an unknown argument name yields one readable line naming the
 * argument, what it got and what it accepts (seed 002: an ignored argument
 * "looks like a filter that matched").
 *
 * @module dsh-cross-session/schemas
 */

import Type, { type Static, type TSchema } from 'typebox'
import Value from 'typebox/value'
import { clipLine, countChars } from './text.js'

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

/** Result of {@link validateArguments}. */
type Validated<T> = { readonly ok: true, readonly value: T } | { readonly ok: false, readonly problem: string }

interface PropertySchema {
  readonly type?: string
  readonly enum?: readonly unknown[]
  readonly minimum?: number
  readonly maximum?: number
}

interface ObjectSchema {
  readonly properties: Readonly<Record<string, PropertySchema>>
  readonly required?: readonly string[]
}

/**
 * Check `args` against a tool's schema.
 * @param schema - one of the three schemas above.
 * @param args - the parsed arguments as the harness passed them (untrusted).
 * @returns the typed arguments, or one line saying what is wrong: the first
 *   unknown argument, else the first missing required argument, else the first
 *   argument (in schema order) whose value the schema rejects.
 */
export function validateArguments<S extends TSchema>(schema: S, args: unknown): Validated<Static<S>> {
  const shape = schema as unknown as ObjectSchema
  const names = Object.keys(shape.properties)
  const accepted = `accepted arguments: ${names.join(', ')}`
  if (args === undefined || args === null) args = {}
  if (typeof args !== 'object' || Array.isArray(args)) {
    return { ok: false, problem: `arguments must be a JSON object, got ${describeValue(args)}; ${accepted}` }
  }
  if (Value.Check(schema, args)) return { ok: true, value: args as Static<S> }
  const record = args as Record<string, unknown>
  const unknown = Object.keys(record).find(key => !Object.hasOwn(shape.properties, key))
  if (unknown !== undefined) {
    return { ok: false, problem: `unknown argument "${clipLine(unknown, 40)}"; ${accepted}` }
  }
  for (const name of shape.required ?? []) {
    if (record[name] === undefined) {
      return { ok: false, problem: `argument "${name}" is required: ${describeAccepted(shape.properties[name] ?? {})}` }
    }
  }
  for (const name of names) {
    if (record[name] === undefined) continue
    const property = shape.properties[name] ?? {}
    if (!Value.Check(property as TSchema, record[name])) {
      return { ok: false, problem: `argument "${name}" got ${describeValue(record[name])}; it accepts ${describeAccepted(property)}` }
    }
  }
  // Unreachable in practice: some rule failed that the per-property pass did not find.
  return { ok: false, problem: `arguments do not match the schema; ${accepted}` }
}

/** What a property accepts, in words ("an integer from 1 to 200"). */
function describeAccepted(property: PropertySchema): string {
  if (property.enum !== undefined) return `one of ${property.enum.map(value => JSON.stringify(value)).join(', ')}`
  switch (property.type) {
    case 'integer':
      return `an integer from ${property.minimum ?? '-∞'} to ${property.maximum ?? '∞'}`
    case 'boolean':
      return 'true or false'
    case 'string':
      return 'a string'
    default:
      return 'a valid value'
  }
}

/** A short, safe description of an untrusted value for a refusal line. */
function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `an array of ${value.length}`
  switch (typeof value) {
    case 'string': {
      const chars = countChars(value)
      return `the string ${JSON.stringify(clipLine(value, 40))}${chars > 40 ? ` (${chars} characters)` : ''}`
    }
    case 'number':
      return Number.isFinite(value) ? `the number ${value}` : `the number ${String(value)}`
    case 'boolean':
      return `the boolean ${value}`
    case 'object':
      return 'an object'
    default:
      return typeof value
  }
}

/**
 * Rules on a `session_id` the schema leaves to code (kept out of the schema
 * to save prompt bytes): not empty, no white space anywhere.
 * @returns one readable line, or `undefined` when the id is well-formed.
 */
export function sessionIdProblem(sessionId: string): string | undefined {
  if (sessionId.length === 0) return 'argument "session_id" is empty; pass an id exactly as sessions_list prints it'
  if (/\s/u.test(sessionId)) {
    return `argument "session_id" contains white space (${JSON.stringify(clipLine(sessionId, 60))}); pass the id exactly as sessions_list prints it`
  }
  return undefined
}

/** The three tool schemas, by tool name, exactly as registered. */
export const TOOL_SCHEMAS = {
  sessions_list: SessionsListArgs,
  sessions_read: SessionsReadArgs,
  sessions_send: SessionsSendArgs,
} as const
