/**
 * The three raw tool definitions as `ctx.tools.register` takes them (seed 000
 * ToolRegistry API; rc.8 raw definition: `name`, `description`, `parameters`,
 * `output: {schema, render}`, `execute(args, exec)`; raw tools validate their
 * own arguments).
 *
 * Names are stable (seed 004: "sessions and transcripts may cite them").
 * Every result is one plain-text block. `execute` has a last safety net: an
 * unexpected throw becomes a readable `rejected` line and the full error goes
 * to the log, never to the model.
 *
 * @module dsh-cross-session/tools/definitions
 */

import { nanoid } from 'nanoid'
import type { HostToolDefinition, HostToolExec } from '../harness/host.js'
import { classifyFailure } from '../core/failure-kinds.js'
import type { Caller } from '../ports.js'
import { commonRefusals, DELIVERY_UNKNOWN, NOTHING_LISTED, NOTHING_READ, renderRefusal, STEPS } from '../presentation/common.js'
import { presentCall, presentResult, type PresentedResult } from '../presentation/presenters.js'
import { TOOL_SCHEMAS } from '../model/schemas.js'
import { fullError } from '../model/service-boundary.js'
import { sessionsList } from './sessions-list.js'
import { sessionsRead } from './sessions-read.js'
import { sessionsSend } from './sessions-send.js'
import type { ToolCallContext, ToolDeps } from './shared.js'

/** Model-facing descriptions (kept short: they ride every request). */
export const TOOL_DESCRIPTIONS = {
  sessions_list: 'List peer sessions.',
  sessions_read: 'Read a peer session\'s recent messages.',
  sessions_send: 'Send a message to a top-level peer session\'s inbox.',
} as const

type ToolName = keyof typeof TOOL_DESCRIPTIONS
type Executor = (args: unknown, call: ToolCallContext, deps: ToolDeps) => Promise<string>

const EXECUTORS: Record<ToolName, Executor> = {
  sessions_list: sessionsList,
  sessions_read: sessionsRead,
  sessions_send: sessionsSend,
}

/** JSON Schema exactly as sent to the model: TypeBox's object, plain JSON. */
export function parametersOf(name: ToolName): Record<string, unknown> {
  return JSON.parse(JSON.stringify(TOOL_SCHEMAS[name])) as Record<string, unknown>
}

const TEXT_OUTPUT = {
  schema: { type: 'string' },
  render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }],
}

const NEVER_ABORTED = new AbortController().signal

/**
 * Build the three definitions.
 * @param deps - ports, settings, limits, log.
 * @param callerOf - the calling session of one execution (from `exec.agent`,
 *   else the host's current initiator), or `undefined`.
 * @param lifetime - aborted when the plugin is disposed: every call in flight
 *   is cancelled with it, so no wait or poll outlives the plugin.
 */
export function toolDefinitions(deps: ToolDeps, callerOf: (exec: HostToolExec) => Caller | undefined, lifetime: AbortSignal = NEVER_ABORTED): HostToolDefinition[] {
  return (Object.keys(EXECUTORS) as ToolName[]).map(name => ({
    name,
    description: TOOL_DESCRIPTIONS[name],
    parameters: parametersOf(name),
    output: TEXT_OUTPUT,
    // Reads may run beside sibling calls; a send is exclusive (order matters).
    isConcurrencySafe: () => name !== 'sessions_send',
    // UI presentation only (never sent to the model): src/presenters.ts, issue 12.
    presentCall: (args: unknown) => presentCall(name, args),
    presentResult: (args: unknown, result: PresentedResult) => presentResult(name, args, result),
    async execute(args: unknown, exec: HostToolExec): Promise<string> {
      try {
        const call: ToolCallContext = {
          caller: callerOf(exec ?? {}),
          callId: typeof exec?.callId === 'string' && exec.callId.length > 0 ? exec.callId : `local-${nanoid()}`,
          signal: AbortSignal.any([exec?.signal ?? NEVER_ABORTED, lifetime]),
        }
        return await EXECUTORS[name](args, call, deps)
      } catch (error: unknown) {
        deps.log(`${name} failed unexpectedly: ${fullError(error)}`)
        // A send that failed unexpectedly may have got past admission: do not claim it did not.
        const consequence = name === 'sessions_send' ? DELIVERY_UNKNOWN : name === 'sessions_read' ? NOTHING_READ : NOTHING_LISTED
        return renderRefusal(commonRefusals.backend(STEPS.running(name), classifyFailure(error), name), consequence)
      }
    },
  }))
}
