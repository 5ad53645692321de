/**
 * The tool catalog: one spec per tool, from which everything else derives —
 * the raw definitions registered with the harness (`definitions.ts`), the
 * model-facing tables ({@link TOOL_DESCRIPTIONS}, {@link parametersOf}) and
 * the tests' tool lists.
 *
 * A spec holds what the harness sends the model (name, description,
 * `parameters`), the executor, whether the tool may run beside sibling calls,
 * and what a call that failed unexpectedly says about what it did. Names come
 * from `src/model/tool-names.ts`; the specs here and the presenters
 * (`src/presentation/presenters.ts`) are keyed by them, so a tool missing
 * from either does not compile. Argument schemas are `src/model/schemas.ts`,
 * the very objects the executors validate against.
 *
 * Adding an argument: its schema, its executor, its presentation, and the
 * snapshot `test/unit/catalog.test.ts` (plus docs/tools.md). Adding a tool:
 * its name, schema, executor, presenter and one entry here.
 *
 * @module dsh-cross-session/tools/catalog
 */

import type { TSchema } from 'typebox'
import { DELIVERY_UNKNOWN, NOTHING_LISTED, NOTHING_READ } from '../presentation/common.js'
import { SessionsListArgs, SessionsReadArgs, SessionsSendArgs } from '../model/schemas.js'
import { TOOL_NAME_LIST, TOOL_NAMES, type ToolName } from '../model/tool-names.js'
import type { ToolExecutor } from './shared.js'
import { sessionsList } from './sessions-list.js'
import { sessionsRead } from './sessions-read.js'
import { sessionsSend } from './sessions-send.js'

/** One tool, completely. */
export interface ToolSpec {
  readonly name: ToolName
  /** Model-facing, one line: it rides every request (docs/tools.md#token-effect). */
  readonly description: string
  /** The arguments' schema: sent as JSON Schema `parameters`, and what every call is validated against. */
  readonly parameters: TSchema
  readonly execute: ToolExecutor
  /** Whether a call may run beside sibling calls (docs/tools.md#what-the-model-sees). */
  readonly concurrencySafe: boolean
  /** What the `rejected` line of a call that threw unexpectedly says it did, or did not, do. */
  readonly afterUnexpectedFailure: string
}

const SPECS: { readonly [N in ToolName]: Omit<ToolSpec, 'name'> } = {
  [TOOL_NAMES.list]: {
    description: 'List peer sessions.',
    parameters: SessionsListArgs,
    execute: sessionsList,
    concurrencySafe: true,
    afterUnexpectedFailure: NOTHING_LISTED,
  },
  [TOOL_NAMES.read]: {
    description: 'Read a peer session\'s recent messages.',
    parameters: SessionsReadArgs,
    execute: sessionsRead,
    concurrencySafe: true,
    afterUnexpectedFailure: NOTHING_READ,
  },
  [TOOL_NAMES.send]: {
    description: 'Send a message to a top-level peer session\'s inbox.',
    parameters: SessionsSendArgs,
    execute: sessionsSend,
    // A send is exclusive: the order of two sends matters.
    concurrencySafe: false,
    // A send that failed unexpectedly may have got past admission: it does not claim it did not.
    afterUnexpectedFailure: DELIVERY_UNKNOWN,
  },
}

/** Every tool, in registration order. */
export const TOOL_CATALOG: readonly ToolSpec[] = TOOL_NAME_LIST.map(name => ({ name, ...SPECS[name] }))

/** Model-facing descriptions, by tool name. */
export const TOOL_DESCRIPTIONS = Object.fromEntries(TOOL_CATALOG.map(spec => [spec.name, spec.description])) as {
  readonly [N in ToolName]: string
}

/** JSON Schema exactly as sent to the model: TypeBox's object, plain JSON. */
export function parametersOf(name: ToolName): Record<string, unknown> {
  return JSON.parse(JSON.stringify(SPECS[name].parameters)) as Record<string, unknown>
}
