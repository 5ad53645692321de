/**
 * The controller's steps against the host, one job each: the relay message
 * this package delivers, delivery into a live agent's inbox, a wake through
 * the host's session controller, the deployment's default model for a
 * resume, and a refused outcome. Composed by `src/adapters/controller.ts`.
 *
 * @module dsh-cross-session/adapters/controller-steps
 */

import type { HostAgent, HostDefaultModel, HostSessionController, HostUserMessage } from '../harness/host.js'
import type { Admitted, ControllerOutcome, DeliveryReason, SendMode } from '../ports.js'
import { relaySource, type RelayProvenance } from '../model/provenance.js'
import { controllerFailure, controllerFailureDetail, isControllerNotFound } from './remote-errors.js'
import type { WakeHandle } from './woken-release.js'

/** The message this package delivers: its id is the request id, its source the relay source. */
export function relayMessage(requestId: string, text: string, provenance: RelayProvenance): HostUserMessage {
  return { id: requestId, role: 'user', content: [{ type: 'text', text }], source: relaySource(provenance) }
}

/** `{provider, model}` of the deployment default, when the host offers one. */
export function defaultAgentOptions(defaultModel: HostDefaultModel | undefined): Record<string, unknown> | undefined {
  try {
    const selection = defaultModel?.currentSelection() as { provider?: unknown, model?: unknown } | undefined
    if (typeof selection?.provider === 'string' && typeof selection.model === 'string') {
      return { provider: selection.provider, model: selection.model }
    }
  } catch {
    // No usable default: resume without options and let the harness decide.
  }
  return undefined
}

/** A refused controller step, with the backend's code and raw detail when it gave them. */
export function fail<T>(reason: DeliveryReason, code?: string, detail?: string): ControllerOutcome<T> {
  return { ok: false, reason, ...(code === undefined ? {} : { code }), ...(detail === undefined ? {} : { detail }) }
}

/** A wake that failed with a refusal (not a crash): carries the controller's code. */
export class WakeRefused extends Error {
  readonly code: string | undefined
  /** The controller's raw `code: message`, for the log only. */
  readonly detail: string
  readonly reason: DeliveryReason
  constructor(reason: DeliveryReason, code: string | undefined, detail: string) {
    super(detail)
    this.reason = reason
    this.code = code
    this.detail = detail
  }
}

/** Deliver to a live agent's inbox directly (never wakes anything). */
export function deliverToLiveAgent(agent: HostAgent, mode: SendMode, message: HostUserMessage): ControllerOutcome<Admitted> {
  const running = agent.status === 'running'
  const recordFrom = agent.session.events.length
  try {
    if (mode === 'queue') agent.followup(message)
    else agent.steer(message)
  } catch (error: unknown) {
    // The controller line maps this very failure to `session/agent-busy` ("prompt rejected").
    // Only the code's table row reaches the model; the raw error goes to the log.
    return fail({ kind: 'failure', failure: 'session/agent-busy' }, 'session/agent-busy',
      controllerFailureDetail({ code: 'session/agent-busy', message: error instanceof Error ? error.message : String(error) }))
  }
  return { ok: true, value: { mode, running, recordFrom } }
}

/** A wake through the host's session controller: the controller keeps the agent, no handle comes back. */
export async function wakeViaController(controller: HostSessionController, sessionId: string): Promise<WakeHandle> {
  const resolved = await controller.resolveAgent(sessionId)
  if ('error' in resolved) {
    const code = isControllerNotFound(resolved.error, sessionId) ? 'not-found' : resolved.error?.code
    throw new WakeRefused({ kind: 'failure', failure: controllerFailure(resolved.error) }, typeof code === 'string' ? code : undefined,
      controllerFailureDetail(resolved.error))
  }
  return { agent: resolved.agent, dispose: async () => undefined, external: true }
}
