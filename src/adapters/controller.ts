/**
 * The controller port over the host's services: the live agent's inbox for
 * delivery, and for a wake `ctx.sessionController.resolveAgent` when the host
 * composes one (the 0.1.2-alpha.2 line), else rc.8's `ctx.agents.resume`.
 * docs/architecture.md §2 and §5.
 *
 * Optional host services (`sessionController`, `agentDefaultModel`) may be
 * mounted after this plugin: they are read when a call needs them, never
 * captured once at activation.
 *
 * Waking rule (docs/tools.md#refusals-and-their-order, the first guarantee): with
 * `mayWake: false` nothing that can resume a session is called — no
 * `agents.resume`, no `sessionController.resolveAgent` — and a target that
 * went cold between resolution and admission is refused, not woken.
 *
 * Delivery, on both host lines, is `Agent.followup` / `Agent.steer` on the
 * live agent with this package's relay source (`src/model/provenance.ts`), so the
 * provenance is durable in the log. Not `sessionController.prompt`: in
 * 0.1.2-alpha.2 it overwrites the source with `{ kind: 'user', rpcId }`
 * (lib/index.js `SessionCommandController.prompt`), which would leave the
 * hop count and the sender to text a model can write. The
 * wait still recognises a message by `source.rpcId` (`src/harness/recorded.ts`).
 *
 * A wake is recorded as one (`woke: true`) on both lines. rc.8: this plugin
 * holds the `AgentHandle` (`src/adapters/woken.ts`: shared resume, claims,
 * idle release). Controller line: the controller's resume keeps the agent
 * and returns no handle, so this plugin cannot put it back to sleep and says
 * so (docs/architecture.md "Known limitations").
 *
 * @module dsh-cross-session/adapters/controller
 */

import type { HostAgent, HostAgents, HostDefaultModel, HostSessionController } from '../harness/host.js'
import type { ControllerPort, RecordWaitOptions, ResolvedTarget } from '../ports.js'
import { waitUntilRecorded, type Recorded } from '../harness/recorded.js'
import type { SessionEvents } from '../harness/session-events.js'
import { defaultAgentOptions, deliverToLiveAgent, fail, relayMessage, wakeViaController, WakeRefused } from './controller-steps.js'
import { isNotFoundError } from './session-query.js'
import type { WokenSessions } from './woken.js'

export { WokenSessions } from './woken.js'
export { relayMessage } from './controller-steps.js'

/** Host services the port reads; the optional ones per call. */
interface ControllerServices {
  readonly agents: HostAgents
  /** `ctx.sessionController`, read when a wake needs it. */
  readonly sessionController: () => HostSessionController | undefined
  /** `ctx.agentDefaultModel`, read when a wake needs it. */
  readonly defaultModel: () => HostDefaultModel | undefined
  /** Appends of live sessions (`session/event`), when the host delivers them: the record wait wakes on them instead of polling. */
  readonly events?: SessionEvents
  /** Write a live session's log to disk now (rc.8 `ctx.sessions.flush`), so "recorded" means the durable log on this path too. */
  readonly flush?: (agent: HostAgent) => Promise<unknown>
}

/**
 * The controller port.
 * @param services - `ctx.agents` and getters for the optional services.
 * @param woken - the plugin's registry of sessions it woke.
 */
export function createControllerPort(services: ControllerServices, woken: WokenSessions): ControllerPort {
  const { agents } = services
  return {
    async resolve(sessionId, { mayWake, signal }) {
      const live = agents.get(sessionId)
      if (live !== undefined) {
        woken.touch(sessionId)
        return { ok: true, value: { sessionId, woke: false, running: live.status === 'running' } }
      }
      if (!mayWake) return fail({ kind: 'not-live' })
      const controller = services.sessionController()
      try {
        const outcome = await woken.wake(sessionId, async lifetime => {
          if (controller !== undefined) return await wakeViaController(controller, sessionId)
          const options = defaultAgentOptions(services.defaultModel())
          const agentOptions = options === undefined ? {} : { agentOptions: options }
          return await agents.resume({ resumeSessionId: sessionId, ...agentOptions, signal: lifetime })
        }, () => agents.get(sessionId), signal)
        const woke = outcome.kind === 'woken'
        return { ok: true, value: { sessionId, woke, running: outcome.agent.status === 'running' } }
      } catch (error: unknown) {
        if (signal.aborted) throw error
        if (error instanceof WakeRefused) return fail(error.reason, error.code, error.detail)
        // rc.8: the session was deleted between the lookup and the resume.
        // rc.8 resume of a deleted session: a plain Error naming it (no code).
        if (isNotFoundError(error, sessionId)) return fail({ kind: 'not-found', sessionId }, 'not-found')
        throw error
      }
    },
    async admit(target, { requestId, mode, text, provenance }) {
      // Re-read: the agent may have gone away since resolve. Never wake here.
      const agent = agents.get(target.sessionId)
      if (agent === undefined) return fail({ kind: target.woke ? 'went-cold-after-wake' : 'went-cold' })
      const admitted = deliverToLiveAgent(agent, mode, relayMessage(requestId, text, provenance))
      if (admitted.ok && target.woke) woken.delivered(target.sessionId)
      return admitted
    },
    async waitRecorded(target, requestId, options) {
      const seen: { agent?: HostAgent } = {}
      const recorded = await waitInMemory(target, requestId, options, seen)
      // As on the cross-process path (the holder flushes before it records): rc.8 writes a live log in batches
      // (`@deepseek-ai/dsh-session-persistence@0.1.0-rc.8` lib/index.js `DEFAULT_WRITE_BATCH_MAX_DELAY_MS`).
      // The agent whose log held it (no second lookup), else the registry's.
      const agent = recorded?.stage === 'conversation' ? seen.agent ?? agents.get(target.sessionId) : undefined
      if (agent !== undefined && services.flush !== undefined) await services.flush(agent)
      return recorded
    },
    async releaseWoken(target) {
      return await woken.giveUp(target.sessionId)
    },
    markDelivered(target) {
      if (target.woke) woken.delivered(target.sessionId)
    },
  }

  /** Wait, bounded, until the live log in memory holds the message. */
  async function waitInMemory(target: ResolvedTarget, requestId: string, { timeoutMs, signal, settleForInbox, from = 0 }: RecordWaitOptions,
    seen: { agent?: HostAgent }): Promise<Recorded | undefined> {
    const events = services.events
    if (events?.available !== true) {
      return await waitUntilRecorded(() => (seen.agent = agents.get(target.sessionId))?.session.events, requestId,
        { timeoutMs, signal, from, settleForInbox })
    }
    // Woken by the session's own appends: the agent is looked up again only after a quiet backstop (it may have gone).
    let agent = agents.get(target.sessionId)
    let quiet = false
    const read = (): readonly unknown[] | undefined => {
      if (quiet) agent = agents.get(target.sessionId)
      quiet = false
      return (seen.agent = agent)?.session.events
    }
    const appended = async (ms: number, wait: AbortSignal): Promise<void> => {
      quiet = !await events.next(target.sessionId, ms, wait)
    }
    return await waitUntilRecorded(read, requestId, { timeoutMs, signal, from, settleForInbox, appended })
  }
}

/** Controller port over rc.8's `ctx.agents` only (no session controller). */
export function createAgentsController(agents: HostAgents, defaultModel: HostDefaultModel | undefined,
  woken: WokenSessions): ControllerPort {
  return createControllerPort({ agents, sessionController: () => undefined, defaultModel: () => defaultModel }, woken)
}
