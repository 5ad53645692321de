/**
 * The raw tool definitions as `ctx.tools.register` takes them, one per
 * catalog entry (`catalog.ts`). The rc.8 raw definition is `name`,
 * `description`, `parameters`, `output: {schema, render, presentationMeta}`,
 * `execute(args, exec)` (raw tools validate their own arguments), plus the
 * UI-only `presentCall` / `presentResult` (`@deepseek-ai/dsh-tools@0.1.0-rc.8`
 * lib/types/index.d.ts `ToolDefinition`, `ToolOutputDefinition`).
 *
 * Names are stable (docs/tools.md#tools: sessions and transcripts cite them).
 * `execute` resolves to the result's value (`src/presentation/results.ts`);
 * `output.render` writes its one plain-text block and `presentationMeta`
 * hands the same value to clients. Every outcome, refusals included, is a
 * successful result (`isError: false`, docs/tools.md#what-the-model-sees).
 * `execute` has a last safety net: an unexpected throw becomes a readable
 * `rejected` refusal and the full error goes to the log, never to the model.
 *
 * @module dsh-cross-session/tools/definitions
 */

import { nanoid } from 'nanoid'
import type { HostToolDefinition, HostToolExec } from '../harness/host.js'
import { classifyFailure } from '../core/failure-kinds.js'
import type { Caller } from '../ports.js'
import { commonRefusals, refused, STEPS } from '../presentation/common.js'
import { RESULT_SCHEMA, renderResult, type ResultValue } from '../presentation/results.js'
import { presentCall, presentResult, type PresentedResult } from '../presentation/presenters.js'
import { fullError } from '../model/service-boundary.js'
import { parametersOf, TOOL_CATALOG } from './catalog.js'
import type { ToolCallContext, ToolDeps } from './shared.js'

export { TOOL_DESCRIPTIONS, parametersOf } from './catalog.js'

/** rc.8's output contract: the value's schema, its text, and the value itself for clients. */
const RESULT_OUTPUT = {
  schema: RESULT_SCHEMA,
  render: (_args: unknown, value: unknown) => [{ type: 'text' as const, text: renderResult(value as ResultValue) }],
  presentationMeta: (_args: unknown, value: unknown) => value,
}

/**
 * A value as the registry keeps it: lossless JSON, so no `undefined` field
 * (rc.8 `snapshotToolValue` refuses one, `@deepseek-ai/dsh-session@0.1.0-rc.8`
 * lib/index.js `walkJsonValue`).
 */
export function asJsonValue(value: ResultValue): ResultValue {
  return JSON.parse(JSON.stringify(value)) as ResultValue
}

/** A tool's executor whose answer is the model's text, as the registry renders it (tests and the docs' examples). */
export function textOf<A extends unknown[]>(execute: (...args: A) => Promise<ResultValue>): (...args: A) => Promise<string> {
  return async (...args) => renderResult(asJsonValue(await execute(...args)))
}

const NEVER_ABORTED = new AbortController().signal

/**
 * Build one definition per catalog entry, in catalog order.
 * @param deps - ports, settings, limits, log.
 * @param callerOf - the calling session of one execution (from `exec.agent`,
 *   else the host's current initiator), or `undefined`.
 * @param lifetime - aborted when the plugin is disposed: every call in flight
 *   is cancelled with it, so no wait or poll outlives the plugin.
 */
export function toolDefinitions(deps: ToolDeps, callerOf: (exec: HostToolExec) => Caller | undefined,
  lifetime: AbortSignal = NEVER_ABORTED): HostToolDefinition[] {
  return TOOL_CATALOG.map(({ name, description, execute, concurrencySafe, afterUnexpectedFailure }) => ({
    name,
    description,
    parameters: parametersOf(name),
    output: RESULT_OUTPUT,
    isConcurrencySafe: () => concurrencySafe,
    // UI presentation only, never sent to the model (src/presentation/presenters.ts).
    presentCall: (args: unknown) => presentCall(name, args),
    presentResult: (args: unknown, result: PresentedResult) => presentResult(name, args, result),
    async execute(args: unknown, exec: HostToolExec): Promise<ResultValue> {
      try {
        const call: ToolCallContext = {
          caller: callerOf(exec ?? {}),
          callId: typeof exec?.callId === 'string' && exec.callId.length > 0 ? exec.callId : `local-${nanoid()}`,
          signal: AbortSignal.any([exec?.signal ?? NEVER_ABORTED, lifetime]),
        }
        return asJsonValue(await execute(args, call, deps))
      } catch (error: unknown) {
        deps.log(`${name} failed unexpectedly: ${fullError(error)}`)
        return refused(commonRefusals.backend(STEPS.running(name), classifyFailure(error), name), afterUnexpectedFailure)
      }
    },
  }))
}
