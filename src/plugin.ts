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
 * What `apply` does (docs/architecture.md §1, §2, §6):
 * 1. resolves the row's `config` with `resolveSettings` (never throws;
 *    every value it changed is logged) into a {@link SettingsSource};
 * 2. on the host plane registers the `cross-session` settings namespace
 *    (schema defaults < row config < `$DSH_HOME/settings.yaml`); a preset row
 *    reads the host's section instead (src/settings/wiring.ts); every tool
 *    call reads the current value;
 * 3. waits for the required host services (`tools`, `sessionQuery`,
 *    `agents`); if one is still missing after {@link MOUNT_GRACE_MS} it logs
 *    one message naming the service and what it is for, and registers
 *    nothing;
 * 4. builds the ports — reads through the corpus index when
 *    `ctx.sessionPersistence` is the JSONL backend, else `ctx.sessionQuery`
 *    (docs/performance.md); waking through `ctx.sessionController` when the host has
 *    one at call time, else `ctx.agents` (rc.8); delivery through the live
 *    agent's inbox; both wrapped for several processes on one home (§8)
 *    — and keeps the three tools registered while `enabled` is true (a live
 *    `false` unregisters them);
 * 5. starts that activation again when the `store` or `machine` setting
 *    changes: the home chooses its store when it starts (src/activation.ts);
 * 6. on disposal unregisters all three, clears its timer, cancels calls in flight
 *    (and their bounded waits), and disposes every session it woke once its turn ended.
 *
 * @module dsh-cross-session
 */

import { MOUNT_GRACE_MS, missingServiceMessage, missingServices, REQUIRED_SERVICES, type PluginContext } from './activate.js'
import { startActivation, type Activation } from './activation.js'
import { SettingsSource } from './settings/source.js'
import { attachSettings, isScopedContext, type SettingsContext } from './settings/wiring.js'

export { Config, SETTINGS_NAMESPACE } from './settings/config.js'

/** Plugin name shown by the Cordis loader and in log lines. */
export const name = 'dsh-cross-session'

/**
 * Cordis `apply`.
 * @param ctx - the plugin context (host plane or a preset's agent scope).
 * @param config - the composition row's `config` (untrusted; Cordis has
 *   run it through {@link Config}, which lets every value through).
 */
export function apply(ctx: PluginContext, config: unknown): void {
  const logger = ctx.logger('cross-session')
  const log = (level: 'info' | 'warn', message: string): void => logger[level](message)
  const source = new SettingsSource(config, log)
  let activation: Activation | undefined
  const onChange = (): void => {
    void source.current
    activation?.settingsChanged()
  }
  attachSettings(ctx as unknown as SettingsContext, isScopedContext(ctx) ? 'preset' : 'host', source, log, onChange)
  const required = Object.keys(REQUIRED_SERVICES)
  ctx.inject(required, inner => {
    activation = startActivation(inner, source, log)
  })
  // One check after the grace period: a required service still missing, and
  // whether this composition has a settings service at all.
  const timer = setTimeout(() => {
    if (ctx.get('settings') === undefined) log('info', 'settings: no settings service in this composition; the row config alone applies')
    if (activation !== undefined || !source.current.enabled) return
    const missing = missingServices(service => ctx.get(service) !== undefined)
    log('warn', missingServiceMessage(missing.length > 0 ? missing : required))
  }, MOUNT_GRACE_MS)
  timer.unref?.()
  ctx.effect(() => () => clearTimeout(timer), 'cross-session.mount-check')
}
