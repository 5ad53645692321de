/**
 * The `invalid-arguments` problem lines: what was wrong with one argument,
 * what it got and what it accepts, in one line
 * (docs/tools.md#arguments-are-checked-never-defaulted-over: an ignored
 * argument "would look like a filter that matched"). Untrusted values are
 * echoed clipped.
 *
 * @module dsh-cross-session/presentation/arguments
 */

import { clipLine, countChars } from '../core/text.js'

/** The parts of a property schema the wording reads. */
export interface PropertyView {
  readonly type?: string
  readonly enum?: readonly unknown[]
  readonly minimum?: number
  readonly maximum?: number
}

/** A character a message body must not carry (found by `src/tools/send/arguments.ts`). */
export interface ForbiddenCharView {
  readonly position: number
  readonly codePoint: string
  readonly kind: 'control character' | 'unpaired surrogate'
}

/** One line per kind of argument problem. */
export const argumentProblems = {
  notObject: (value: unknown, names: readonly string[]): string =>
    `arguments must be a JSON object, got ${describeValue(value)}; ${accepted(names)}`,
  unknown: (name: string, names: readonly string[]): string => `unknown argument "${clipLine(name, 40)}"; ${accepted(names)}`,
  required: (name: string, property: PropertyView): string => `argument "${name}" is required: ${describeAccepted(property)}`,
  rejected: (name: string, value: unknown, property: PropertyView): string =>
    `argument "${name}" got ${describeValue(value)}; it accepts ${describeAccepted(property)}`,
  noMatch: (names: readonly string[]): string => `arguments do not match the schema; ${accepted(names)}`,
  emptyId: (): string => 'argument "session_id" is empty; pass an id exactly as sessions_list prints it',
  idWhiteSpace: (sessionId: string): string => `argument "session_id" contains white space (${JSON.stringify(clipLine(sessionId, 60))}); `
    + 'pass the id exactly as sessions_list prints it',
  /** A subagent asked for a notice: no process ever holds a subagent, so a notice to it would never be delivered. */
  subagentNotify: (): string => 'argument "notify" is true, but this session is a subagent: '
    + 'no dsh process holds a subagent, so a notice could never reach it; '
    + 'call again without "notify" and check the target with sessions_read',
  forbiddenChar: (found: ForbiddenCharView): string => {
    const article = found.kind === 'control character' ? 'a' : 'an'
    return `argument "message" contains ${article} ${found.kind} (${found.codePoint}) at character ${found.position}; `
      + 'remove it (tab and newline are fine)'
  },
} as const

function accepted(names: readonly string[]): string {
  return `accepted arguments: ${names.join(', ')}`
}

/** What a property accepts, in words ("an integer from 1 to 200"). */
function describeAccepted(property: PropertyView): string {
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
