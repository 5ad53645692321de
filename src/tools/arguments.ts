/**
 * Argument validation against the tools' own schemas (`src/model/schemas.ts`),
 * and the `session_id` rules the schema leaves to code.
 *
 * Validation never throws and never defaults over a wrong value: a wrong
 * type, an out-of-range number, an unknown enum value, a missing required
 * argument or an unknown argument name yields one readable line
 * (`src/presentation/arguments.ts`) naming the argument, what it got and
 * what it accepts.
 *
 * @module dsh-cross-session/tools/arguments
 */

import type { Static, TSchema } from 'typebox'
import Value from 'typebox/value'
import { argumentProblems, type PropertyView } from '../presentation/arguments.js'

/** Result of {@link validateArguments}. */
type Validated<T> = { readonly ok: true, readonly value: T } | { readonly ok: false, readonly problem: string }

interface ObjectSchema {
  readonly properties: Readonly<Record<string, PropertyView>>
  readonly required?: readonly string[]
}

/**
 * Check `args` against a tool's schema.
 * @param schema - one of the three schemas of `src/model/schemas.ts`.
 * @param args - the parsed arguments as the harness passed them (untrusted).
 * @returns the typed arguments, or one line saying what is wrong: the first
 *   unknown argument, else the first missing required argument, else the first
 *   argument (in schema order) whose value the schema rejects.
 */
export function validateArguments<S extends TSchema>(schema: S, args: unknown): Validated<Static<S>> {
  const shape = schema as unknown as ObjectSchema
  const names = Object.keys(shape.properties)
  if (args === undefined || args === null) args = {}
  if (typeof args !== 'object' || Array.isArray(args)) return { ok: false, problem: argumentProblems.notObject(args, names) }
  if (Value.Check(schema, args)) return { ok: true, value: args as Static<S> }
  const record = args as Record<string, unknown>
  const unknown = Object.keys(record).find(key => !Object.hasOwn(shape.properties, key))
  if (unknown !== undefined) return { ok: false, problem: argumentProblems.unknown(unknown, names) }
  for (const name of shape.required ?? []) {
    if (record[name] === undefined) return { ok: false, problem: argumentProblems.required(name, shape.properties[name] ?? {}) }
  }
  for (const name of names) {
    if (record[name] === undefined) continue
    const property = shape.properties[name] ?? {}
    if (!Value.Check(property as TSchema, record[name])) {
      return { ok: false, problem: argumentProblems.rejected(name, record[name], property) }
    }
  }
  // Unreachable in practice: some rule failed that the per-property pass did not find.
  return { ok: false, problem: argumentProblems.noMatch(names) }
}

/**
 * Rules on a `session_id` the schema leaves to code (kept out of the schema
 * to save prompt bytes): not empty, no white space anywhere.
 * @returns one readable line, or `undefined` when the id is well-formed.
 */
export function sessionIdProblem(sessionId: string): string | undefined {
  if (sessionId.length === 0) return argumentProblems.emptyId()
  if (/\s/u.test(sessionId)) return argumentProblems.idWhiteSpace(sessionId)
  return undefined
}
