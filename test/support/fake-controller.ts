/**
 * A unit fake of the host `ctx.sessionController`, built from the PUBLISHED
 * code of `@deepseek-ai/dsh-api-session-controller@0.1.2-alpha.2`
 * (`npm pack`, lib/index.js), reduced to the members this package uses:
 *
 * - `resolveAgent` — `SessionController.resolveAgent` →
 *   `ApiSessionAgentController.resolve`: a live agent is returned as is
 *   (`liveAgent`; a subagent-owned one is refused `session/agent-busy`
 *   "is owned by subagent routing"); concurrent resumes share one promise
 *   (`this.resumes`); a cold id not in persistence is
 *   `{ error: RemoteError('session/not-found', 'session "<id>" not found') }`;
 *   the resume is `ctx.agents.resume(...)` whose HANDLE IS DROPPED (`.agent`
 *   only); a failed resume re-checks liveness (`raced`) and is otherwise
 *   `gateway/internal` "resume failed for session …".
 * - `prompt(request, signal)` — `signal.throwIfAborted()`, then
 *   `SessionCommandController.prompt`: resolve (throws the RemoteError),
 *   `createUserMessage` with a FRESH id and `source: { kind: 'user', rpcId:
 *   request.requestId }`, `followup` / `steer`; a throw there becomes
 *   `RemoteError('session/agent-busy', 'prompt rejected')`.
 * - `inspect(id)` — attached: `{ meta: header, events }`; persisted: the
 *   same from persistence; else `ApiSessionNotFound`, a plain `Error`
 *   subclass (no `code`, `name` is `Error`) with message `session "<id>" not found`.
 *
 * The real package could not be imported in tests: installing it beside the
 * rc.8 devDependencies fails with ERESOLVE (its peers pin the 0.1.2-alpha.2
 * line, e.g. `@deepseek-ai/dsh-util-time` → `dsh-invariants@^0.1.2-alpha.2`),
 * its dependency `@deepseek-ai/dsh-brand@^0.1.2-alpha.2` is not published
 * (pnpm `ERR_PNPM_NO_MATCHING_VERSION`), and unpacked beside rc.8 its import
 * fails (`Cannot find package '@deepseek-ai/dsh-util-time'`). See
 * docs/architecture.md "Known limitations".
 *
 * @module test/support/fake-controller
 */

import { randomUUID } from 'node:crypto'
import type { HostAgent, HostAgentHandle } from '../../src/testing.js'

/** `RemoteError` of `@deepseek-ai/dsh-typert-protocol` as the controller throws it. */
export class RemoteError extends Error {
  readonly isDSHRemoteError = true
  readonly code: string
  readonly details: Record<string, unknown>
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message)
    this.code = code
    this.details = details
  }
}

/** `ApiSessionNotFound` (lib/index.js): `class extends Error` without a name or code. */
export class ApiSessionNotFound extends Error {}

/** What the fake needs from the host. */
export interface ControllerHost {
  agents: {
    get(id: string): HostAgent | undefined
    resume(options: { resumeSessionId: string, agentOptions?: unknown }): Promise<HostAgentHandle>
  }
  /** Persisted header of a cold id, or `undefined` (`sessionQuery.observeSession` not-found). */
  persistedHeader(id: string): Record<string, unknown> | undefined
  persistedEvents(id: string): unknown[]
}

/** The fake controller service; `calls` counts each member used. */
export class FakeSessionController {
  readonly calls: Record<string, number> = {}
  private readonly resumes = new Map<string, Promise<HostAgent>>()
  private readonly host: ControllerHost

  constructor(host: ControllerHost) {
    this.host = host
  }

  private count(name: string): void {
    this.calls[name] = (this.calls[name] ?? 0) + 1
  }

  private liveAgent(sessionId: string): { agent: HostAgent } | { error: RemoteError } | undefined {
    const agent = this.host.agents.get(sessionId)
    if (agent === undefined) return undefined
    const header = agent.session.header as { origin?: unknown }
    return header.origin === 'subagent'
      ? { error: new RemoteError('session/agent-busy', `session "${sessionId}" is owned by subagent routing`, { reason: 'use subagent delivery for this child session' }) }
      : { agent }
  }

  async resolveAgent(sessionId: string): Promise<{ agent: HostAgent } | { error: RemoteError }> {
    this.count('resolveAgent')
    const live = this.liveAgent(sessionId)
    if (live !== undefined) return live
    let resume = this.resumes.get(sessionId)
    if (resume === undefined) {
      resume = this.resume(sessionId).finally(() => this.resumes.delete(sessionId))
      this.resumes.set(sessionId, resume)
    }
    try {
      return { agent: await resume }
    } catch (error: unknown) {
      if (error instanceof ApiSessionNotFound) return { error: new RemoteError('session/not-found', error.message, { sessionId }) }
      const raced = this.liveAgent(sessionId)
      if (raced !== undefined) return raced
      return { error: new RemoteError('gateway/internal', `resume failed for session "${sessionId}": ${String(error)}`) }
    }
  }

  private async resume(sessionId: string): Promise<HostAgent> {
    const header = this.host.persistedHeader(sessionId)
    if (header === undefined || header.cwd === undefined) throw new ApiSessionNotFound(`session "${sessionId}" not found`)
    // The controller keeps the agent and drops the handle.
    return (await this.host.agents.resume({ resumeSessionId: sessionId, agentOptions: {} })).agent
  }

  async prompt(request: { requestId: string, sessionId: string, mode: 'queue' | 'steer', content: ReadonlyArray<{ type: 'text', text: string }> }, signal: AbortSignal): Promise<{ accepted: true }> {
    this.count('prompt')
    signal.throwIfAborted()
    const found = await this.resolveAgent(request.sessionId)
    if ('error' in found) throw found.error
    const message = { id: randomUUID(), role: 'user' as const, content: [...request.content], source: { kind: 'user', rpcId: request.requestId } }
    try {
      if (request.mode === 'steer') found.agent.steer(message)
      else found.agent.followup(message)
    } catch (error: unknown) {
      throw new RemoteError('session/agent-busy', 'prompt rejected', { reason: String(error) })
    }
    return { accepted: true }
  }

  async inspect(sessionId: string): Promise<{ meta: unknown, events: unknown[] }> {
    this.count('inspect')
    const attached = this.host.agents.get(sessionId)
    if (attached !== undefined) return { meta: attached.session.header, events: [...attached.session.events] }
    const header = this.host.persistedHeader(sessionId)
    if (header === undefined || header.cwd === undefined) throw new ApiSessionNotFound(`session "${sessionId}" not found`)
    return { meta: header, events: [...this.host.persistedEvents(sessionId)] }
  }
}
