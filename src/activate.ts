/**
 * What the plugin does once mounted, behind its public face (`src/plugin.ts`):
 * the required host services and the message a mount without one logs, and
 * {@link activate}, which builds the ports and keeps the three tools
 * registered while `enabled` is true (docs/architecture.md §1, §2, §6).
 *
 * @module dsh-cross-session/activate
 */

import { createControllerPort } from './adapters/controller.js'
import { createIndexedSessionQueryPort } from './adapters/persistence-index.js'
import type { CorpusRows } from './index/shared-rows.js'
import { listenSessionEvents } from './harness/session-events.js'
import { createSessionQueryPort } from './adapters/session-query.js'
import { WokenSessions } from './adapters/woken.js'
import { resolveCaller } from './adapters/caller.js'
import { mountHome } from './home/mount.js'
import { sessionFlush, type HostContext, type HostDefaultModel, type HostSessionController } from './harness/host.js'
import { SendLimits } from './model/limits.js'
import type { AcceptedValue } from './presentation/accepted.js'
import type { HeldValue } from './presentation/inbound.js'
import type { SettingsSource } from './settings/source.js'
import { spokenToolNames, TOOL_NAMES } from './model/tool-names.js'
import { toolDefinitions } from './tools/definitions.js'

/**
 * Required host services and what each is for. Not declared as Cordis
 * `inject` on purpose: Cordis would leave the plugin pending in silence when
 * one is missing, and a dsh user must be told which one and why.
 */
export const REQUIRED_SERVICES = {
  tools: `registers ${spokenToolNames()}`,
  sessionQuery: `reads the session corpus for ${spokenToolNames([TOOL_NAMES.list, TOOL_NAMES.read])}`,
  agents: `identifies the calling session and delivers ${TOOL_NAMES.send} messages`,
} as const

/** How long the mount waits for a required service before reporting it, ms. */
export const MOUNT_GRACE_MS = 5000

/** Names of required services the host does not provide right now. */
export function missingServices(has: (service: string) => boolean): string[] {
  return Object.keys(REQUIRED_SERVICES).filter(service => !has(service))
}

/** The one message a failed mount logs. */
export function missingServiceMessage(missing: readonly string[]): string {
  const listed = missing.map(service => `"${service}" (${REQUIRED_SERVICES[service as keyof typeof REQUIRED_SERVICES]})`).join(', ')
  const noun = missing.length === 1 ? 'service' : 'services'
  const verb = missing.length === 1 ? 'is' : 'are'
  return `mount failed: required host ${noun} ${listed} ${verb} not available; no tool was registered. `
    + 'Mount this plugin in a dsh host or preset composition that provides it.'
}

/** Cordis context as `apply` needs it (structural; see src/harness/host.ts). */
export interface PluginContext extends HostContext {
  get(name: string): unknown
  inject(deps: string[], callback: (ctx: PluginContext) => void): unknown
  effect(execute: () => () => void, label?: string): unknown
  on?(event: string, listener: (...args: unknown[]) => void, options?: { global?: boolean }): unknown
  readonly fiber?: { readonly state: number }
  /** Cordis 4.0.1 `ctx.plugin`: a child fiber (`src/activation.ts` starts the activation in one, to start it again). */
  plugin?(plugin: { name: string, apply(ctx: PluginContext): void }): { dispose(): Promise<void> | void }
}

/**
 * Build the ports and keep the three tools registered while the current
 * settings say `enabled` (`false` unregisters them, `true`
 * registers them again; each toggle is logged).
 * @returns `sync`: re-judge registration against the current settings.
 */
export function activate(ctx: PluginContext, source: SettingsSource, log: (level: 'info' | 'warn', message: string) => void): () => void {
  // Optional services may be mounted after this plugin: read them per call.
  const sessionController = (): HostSessionController | undefined => ctx.get('sessionController') as HostSessionController | undefined
  const defaultModel = (): HostDefaultModel | undefined => ctx.get('agentDefaultModel') as HostDefaultModel | undefined
  // Disposal cancels calls in flight (and their bounded waits) with this.
  const lifetime = new AbortController()
  const woken = new WokenSessions(lifetime.signal)
  // Appends of live sessions wake a send's record wait (`harness/session-events.ts`).
  const events = listenSessionEvents(ctx)
  // The home store's shared corpus rows, once the home is mounted and while its store can be used (docs/performance.md
  // "What a new process reads").
  const home: { corpus?: () => CorpusRows | undefined } = {}
  const local = {
    sessions: createIndexedSessionQueryPort({
      fallback: createSessionQueryPort(ctx.sessionQuery, ctx.agents, sessionController),
      agents: ctx.agents,
      // Read per call: the JSONL corpus index (docs/performance.md) or, for any other backend, sessionQuery.
      persistence: () => ctx.get('sessionPersistence'),
      sessions: () => ctx.get('sessions'),
      shared: () => home.corpus?.(),
      log: message => log('warn', message), lifetime: lifetime.signal,
    }),
    controller: createControllerPort({ agents: ctx.agents, sessionController, defaultModel, events, flush: sessionFlush(ctx) }, woken),
  }
  // Several dsh processes on one DSH_HOME: the home store (docs/architecture.md §8).
  // The store is chosen when the home starts in this process (docs/tools.md#settings, `store`; src/activation.ts).
  const { store, machine } = source.current
  const mounted = mountHome(ctx, local, log, () => source.current, { store, machine })
  const { sessions, controller } = mounted
  home.corpus = mounted.corpus
  // `settings` is a getter: every tool call reads the current value (O(1), src/settings/source.ts).
  const deps = {
    sessions, controller, limits: new SendLimits<AcceptedValue | HeldValue>(), log: (message: string) => log('warn', message),
    inbound: mounted.inbound,
    get settings() { return source.current },
  }
  const definitions = toolDefinitions(deps, exec => resolveCaller(exec, ctx.agents), lifetime.signal)
  let registered: Array<() => void> | undefined
  let disposed = false
  const unregister = (): void => {
    for (const dispose of registered?.splice(0).reverse() ?? []) dispose()
    registered = undefined
  }
  const sync = (): void => {
    if (disposed) return
    const enabled = source.current.enabled
    if (enabled && registered === undefined) {
      const done: Array<() => void> = []
      try {
        for (const definition of definitions) done.push(ctx.tools.register(definition))
      } catch (error: unknown) {
        // All three or none: a half-registered set would offer a list without its read.
        for (const dispose of done.reverse()) dispose()
        log('warn', `could not register the tools: ${error instanceof Error ? error.message : String(error)}`)
        return
      }
      registered = done
      const names = definitions.map(definition => definition.name).join(', ')
      const via = sessionController() === undefined ? 'ctx.agents' : 'ctx.sessionController'
      log('info', `registered ${names} (wakes via ${via}, re-read per call)`)
    } else if (!enabled && registered !== undefined) {
      unregister()
      log('info', `enabled: false; ${spokenToolNames()} unregistered`)
    }
  }
  ctx.effect(() => () => {
    disposed = true
    unregister()
    lifetime.abort(new Error('dsh-cross-session was disposed'))
    void woken.releaseAll(message => log('warn', message))
  }, 'cross-session.lifetime')
  if (!source.current.enabled) log('info', 'enabled: false; no tools registered')
  sync()
  return sync
}
