/**
 * Cordis plugin entry of `dsh-cross-session`: mounted by one composition row,
 * it gives every session's model `sessions_list`, `sessions_read` and
 * `sessions_send`.
 *
 * ```yaml
 * - insert:
 *     - id: cross-session
 *       name: dsh-cross-session        # or an absolute path to lib/plugin.js
 *       config: { allowResume: true }  # keys: docs/tools.md "Settings"
 * ```
 *
 * What `apply` does (PRODUCT.md §3, §6, §7):
 * 1. resolves the row's `config` with {@link resolveSettings} (never throws;
 *    every value it changed is logged);
 * 2. with `enabled: false`, registers no tool at all and logs that;
 * 3. waits for the required host services (`tools`, `sessionQuery`,
 *    `agents`); if one is still missing after {@link MOUNT_GRACE_MS} it logs
 *    one message naming the service and what it is for, and registers
 *    nothing;
 * 4. builds the ports — reads through the corpus index when
 *    `ctx.sessionPersistence` is the JSONL backend, else `ctx.sessionQuery`
 *    (issue 13); delivery through `ctx.sessionController` when the host has
 *    one, else the adapter over `ctx.agents` (rc.8) — and registers the three
 *    tools once;
 * 5. on disposal unregisters all three, clears its timer, cancels calls in
 *    flight (and their bounded waits), and disposes every session it woke.
 *
 * @module dsh-cross-session
 */

import { createSessionControllerPort, createAgentsController, WokenSessions } from './adapters/controller.js'
import { createIndexedSessionQueryPort } from './adapters/persistence-index.js'
import { createSessionQueryPort } from './adapters/session-query.js'
import { resolveCaller } from './caller.js'
import type { HostContext, HostDefaultModel, HostSessionController } from './host.js'
import { SendLimits } from './limits.js'
import { resolveSettings, type Settings } from './settings.js'
import { toolDefinitions } from './tools/definitions.js'

/** Plugin name shown by the Cordis loader and in log lines. */
export const name = 'dsh-cross-session'

/**
 * Required host services and what each is for. Not declared as Cordis
 * `inject` on purpose: Cordis would leave the plugin pending in silence when
 * one is missing, and a dsh user must be told which one and why.
 */
export const REQUIRED_SERVICES = {
  tools: 'registers sessions_list, sessions_read and sessions_send',
  sessionQuery: 'reads the session corpus for sessions_list and sessions_read',
  agents: 'identifies the calling session and delivers sessions_send messages',
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

/** Cordis context as `apply` needs it (structural; see src/host.ts). */
export interface PluginContext extends HostContext {
  get(name: string): unknown
  inject(deps: string[], callback: (ctx: PluginContext) => void): unknown
  effect(execute: () => () => void, label?: string): unknown
}

/**
 * Register the three tools on a context that has every required service.
 * @returns the number of tools registered (3).
 */
export function activate(ctx: PluginContext, settings: Settings, log: (level: 'info' | 'warn', message: string) => void): number {
  const controllerService = ctx.get('sessionController') as HostSessionController | undefined
  const defaultModel = ctx.get('agentDefaultModel') as HostDefaultModel | undefined
  const woken = new WokenSessions()
  const sessions = createIndexedSessionQueryPort({
    fallback: createSessionQueryPort(ctx.sessionQuery, ctx.agents, controllerService),
    agents: ctx.agents,
    // Read per call: the JSONL corpus index (issue 13) or, for any other backend, sessionQuery.
    persistence: () => ctx.get('sessionPersistence'),
    sessions: () => ctx.get('sessions'),
  })
  const controller = controllerService === undefined
    ? createAgentsController(ctx.agents, defaultModel, woken)
    : createSessionControllerPort(controllerService, ctx.agents, woken)
  const deps = { sessions, controller, settings, limits: new SendLimits(), log: (message: string) => log('warn', message) }
  // Disposal cancels calls in flight (and their bounded waits) with this.
  const lifetime = new AbortController()
  const definitions = toolDefinitions(deps, exec => resolveCaller(exec, ctx.agents), lifetime.signal)
  for (const definition of definitions) {
    ctx.effect(() => ctx.tools.register(definition), `tools.register(${definition.name})`)
  }
  ctx.effect(() => () => {
    lifetime.abort(new Error('dsh-cross-session was disposed'))
    void woken.releaseAll(message => log('warn', message))
  }, 'cross-session.lifetime')
  log('info', `registered ${definitions.map(definition => definition.name).join(', ')} (delivery via ${controllerService === undefined ? 'ctx.agents' : 'ctx.sessionController'})`)
  return definitions.length
}

/**
 * Cordis `apply`.
 * @param ctx - the plugin context (host plane or a preset's agent scope).
 * @param config - the composition row's `config` (untrusted).
 */
export function apply(ctx: PluginContext, config: unknown): void {
  const logger = ctx.logger('cross-session')
  const log = (level: 'info' | 'warn', message: string): void => logger[level](message)
  const { settings, notes } = resolveSettings(config)
  for (const note of notes) log('warn', `config: ${note}`)
  if (!settings.enabled) {
    log('info', 'enabled: false; no tools registered')
    return
  }
  const required = Object.keys(REQUIRED_SERVICES)
  let active = false
  ctx.inject(required, inner => {
    active = true
    activate(inner, settings, log)
  })
  if (active) return
  // Still pending: tell the user which service is missing if it stays so.
  const timer = setTimeout(() => {
    if (active) return
    const missing = missingServices(service => ctx.get(service) !== undefined)
    log('warn', missingServiceMessage(missing.length > 0 ? missing : required))
  }, MOUNT_GRACE_MS)
  timer.unref?.()
  ctx.effect(() => () => clearTimeout(timer), 'cross-session.mount-check')
}
