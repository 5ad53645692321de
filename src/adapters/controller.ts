/**
 * The controller port, two ways: over `ctx.sessionController` when the host
 * composes one (later harness lines), else over `ctx.agents` (rc.8, which has
 * no controller). PRODUCT.md §3.
 *
 * Waking rule (seed 004 ordering guarantee 1, PRODUCT.md §4 step 7): with
 * `mayWake: false` neither adapter calls anything that can resume a session —
 * no `agents.resume`, no `sessionController.resolveAgent`, no
 * `sessionController.prompt` (it "admits one prompt after explicitly resuming
 * its Session"). A target that is not live is refused instead, and one that
 * went cold between resolution and admission is refused, not woken: delivery
 * then goes straight to the live agent's inbox.
 *
 * Lifetime of a session this package wakes (rc.8 `AgentHandle`: "the
 * disposer is a capability"): the plugin holds the handle. The woken session
 * stays live after its turn, as one the web host resumes does, so it can take
 * further messages; every handle is disposed when the plugin is disposed; a
 * wake whose admission fails is disposed at once (`releaseWoken`), so no
 * session is left woken and abandoned. Concurrent wakes of one id share one
 * resume, as the harness's own `agent-lookup` does.
 *
 * @module dsh-cross-session/adapters/controller
 */

import type { HostAgent, HostAgentHandle, HostAgents, HostDefaultModel, HostSessionController, HostUserMessage } from '../host.js'
import type { Admitted, ControllerOutcome, ControllerPort, ResolvedTarget, SendMode } from '../ports.js'
import { waitUntilRecorded } from '../recorded.js'

/** Handles of sessions this plugin woke, and the shared in-flight wakes. */
export class WokenSessions {
  private readonly handles = new Map<string, HostAgentHandle>()
  private readonly pending = new Map<string, Promise<HostAgentHandle>>()

  /** Wake `sessionId` once, however many sends ask at the same time. */
  wake(sessionId: string, resume: () => Promise<HostAgentHandle>): Promise<HostAgentHandle> {
    const inFlight = this.pending.get(sessionId)
    if (inFlight !== undefined) return inFlight
    const started = resume().then(handle => {
      this.handles.set(sessionId, handle)
      return handle
    }).finally(() => this.pending.delete(sessionId))
    this.pending.set(sessionId, started)
    return started
  }

  /** Dispose the handle of one woken session (if this plugin holds it). */
  async release(sessionId: string): Promise<boolean> {
    const handle = this.handles.get(sessionId)
    if (handle === undefined) return false
    this.handles.delete(sessionId)
    await handle.dispose()
    return true
  }

  /** Dispose every handle (plugin disposal). Failures are reported, not thrown. */
  async releaseAll(report: (message: string) => void): Promise<void> {
    const held = [...this.handles.entries()]
    this.handles.clear()
    await Promise.all(held.map(async ([sessionId, handle]) => {
      try {
        await handle.dispose()
      } catch (error: unknown) {
        report(`disposing woken session ${sessionId} failed: ${String(error)}`)
      }
    }))
  }

  /** Number of sessions currently held awake by this plugin. */
  get size(): number {
    return this.handles.size
  }
}

/** The user-source message this package delivers (its id is the request id). */
export function userMessage(requestId: string, text: string): HostUserMessage {
  return { id: requestId, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }
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

const NOT_LIVE = 'the session is not live and waking it is not allowed (allowResume: false); it was left untouched'
const WENT_COLD = 'the session went cold before delivery and waking it is not allowed; it was left untouched'

function fail<T>(reason: string): ControllerOutcome<T> {
  return { ok: false, reason }
}

interface Common {
  readonly agents: HostAgents
  readonly woken: WokenSessions
}

/** Deliver to a live agent's inbox directly (never wakes anything). */
function deliverToLiveAgent(agent: HostAgent, mode: SendMode, requestId: string, text: string): ControllerOutcome<Admitted> {
  const running = agent.status === 'running'
  const recordFrom = agent.session.events.length
  const message = userMessage(requestId, text)
  if (mode === 'queue') agent.followup(message)
  else agent.steer(message)
  return { ok: true, value: { mode, running, recordFrom } }
}

function makeWaitAndRelease(common: Common): Pick<ControllerPort, 'waitRecorded' | 'releaseWoken'> {
  return {
    async waitRecorded(target, requestId, { timeoutMs, signal, settleForInbox, from = 0 }) {
      return await waitUntilRecorded(() => common.agents.get(target.sessionId)?.session.events, requestId, { timeoutMs, signal, from, settleForInbox })
    },
    async releaseWoken(target) {
      return await common.woken.release(target.sessionId)
        ? 'the session this call woke was put back to sleep (its handle was disposed)'
        : 'the session was not woken by this plugin and was left as it was'
    },
  }
}

/**
 * Controller port over rc.8's `ctx.agents`.
 * @param agents - `ctx.agents`.
 * @param defaultModel - `ctx.agentDefaultModel`, for the options of a wake.
 * @param woken - the plugin's registry of sessions it woke.
 */
export function createAgentsController(agents: HostAgents, defaultModel: HostDefaultModel | undefined, woken: WokenSessions): ControllerPort {
  return {
    async resolve(sessionId, { mayWake, signal }) {
      const live = agents.get(sessionId)
      if (live !== undefined) return { ok: true, value: { sessionId, woke: false, running: live.status === 'running', mayWake } }
      if (!mayWake) return fail(NOT_LIVE)
      const options = defaultAgentOptions(defaultModel)
      const handle = await woken.wake(sessionId, () => agents.resume({
        resumeSessionId: sessionId,
        ...(options === undefined ? {} : { agentOptions: options }),
        signal,
      }))
      return { ok: true, value: { sessionId, woke: true, running: handle.agent.status === 'running', mayWake } }
    },
    async admit(target: ResolvedTarget, { requestId, mode, text }) {
      // Re-read: the agent may have gone away since resolve. Never wake here.
      const agent = agents.get(target.sessionId)
      if (agent === undefined) return fail(WENT_COLD)
      return deliverToLiveAgent(agent, mode, requestId, text)
    },
    ...makeWaitAndRelease({ agents, woken }),
  }
}

/**
 * Controller port over a host `ctx.sessionController` (later harness lines):
 * `resolveAgent` to wake, `prompt` (idempotent per `requestId`) to admit when
 * waking is allowed; a live agent's inbox directly when it is not.
 */
export function createSessionControllerPort(controller: HostSessionController, agents: HostAgents, woken: WokenSessions): ControllerPort {
  return {
    async resolve(sessionId, { mayWake }) {
      const live = agents.get(sessionId)
      if (live !== undefined) return { ok: true, value: { sessionId, woke: false, running: live.status === 'running', mayWake } }
      if (!mayWake) return fail(NOT_LIVE)
      const resolved = await controller.resolveAgent(sessionId)
      if ('error' in resolved) {
        const { code, message } = resolved.error ?? {}
        return fail([code, message].filter(part => typeof part === 'string' && part.length > 0).join(': ') || 'the controller refused to resolve the session')
      }
      return { ok: true, value: { sessionId, woke: true, running: resolved.agent.status === 'running', mayWake } }
    },
    async admit(target, { requestId, mode, text, signal }) {
      const agent = agents.get(target.sessionId)
      if (!target.mayWake) {
        if (agent === undefined) return fail(WENT_COLD)
        return deliverToLiveAgent(agent, mode, requestId, text)
      }
      const recordFrom = agent?.session.events.length ?? 0
      const running = agent?.status === 'running'
      await controller.prompt({ requestId, sessionId: target.sessionId, mode, content: [{ type: 'text', text }] }, signal)
      return { ok: true, value: { mode, running, recordFrom } }
    },
    ...makeWaitAndRelease({ agents, woken }),
  }
}
