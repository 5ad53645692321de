/**
 * Connect a row's {@link SettingsSource} to the harness's settings service
 * (`ctx.settings`, rc.8 `@deepseek-ai/dsh-settings`). Behaviour:
 * docs/architecture.md §6 and docs/tools.md#settings.
 *
 * - **Host plane** (an unscoped context): register the `cross-session`
 *   namespace once, with the row `config` as the `base` layer, and read the
 *   service's resolved value from then on (schema defaults < row config <
 *   the user's section). This mirrors `installSettingsSection` of rc.8
 *   `@deepseek-ai/dsh-settings` (lib/index.js) step for step — register,
 *   point the source at `scope.get()`, fall back to the row when the service
 *   goes away, re-judge on `scope.watch` — with one difference: the
 *   registration is wrapped, because rc.8 throws from `register` when the
 *   stored section is not an object, and the plugin must still boot with the
 *   row config and say why (docs/architecture.md §6, "A permissive
 *   schema"). It also avoids a runtime import of the harness package: a
 *   path-mounted plugin would load a second copy, and with it a second
 *   `@deepseek-ai/cordis` (docs/architecture.md §6, "Which copy of the
 *   harness packages").
 * - **Preset scope**: never register (the service rejects a second
 *   registration of one namespace); read the host plane's section when one
 *   is registered, else this row's own config, and re-judge on
 *   `settings/updated` for the namespace.
 *
 * @module dsh-cross-session/settings/wiring
 */

import type { SettingsNamespace, SettingsProvider } from '@deepseek-ai/dsh-settings'
import { Config, SETTINGS_NAMESPACE } from './config.js'
import type { SettingsLog, SettingsSource } from './source.js'

/** Where a row is mounted. */
type MountMode = 'host' | 'preset'

/** The Cordis context members this module uses (structural). */
export interface SettingsContext {
  get(name: string): unknown
  inject(deps: string[], callback: (ctx: SettingsContext) => void): unknown
  effect(execute: () => () => void, label?: string): unknown
  on?(event: string, listener: (...args: unknown[]) => void): unknown
  readonly fiber?: { readonly state: number }
}

/**
 * Cordis `FiberState` values of a fiber tearing down (rc.8 cordis; the same
 * mirror rc.8 dsh-settings keeps for `installSettingsSection`: a const enum
 * has no runtime object).
 */
const FIBER_DISPOSED = 4
const FIBER_UNLOADING = 5

/** Whether the row's own fiber is tearing down (not merely losing the settings service). */
function isUnloading(ctx: SettingsContext): boolean {
  const state = ctx.fiber?.state
  return state === FIBER_UNLOADING || state === FIBER_DISPOSED
}

/**
 * Whether `ctx` is an agent-preset scope: rc.8 `@deepseek-ai/dsh-scope`
 * tags a scoped context with an own symbol property described `dsh.scope`
 * (`createScope`: `ctx.extend({ [kScope]: key })`; the preset service keys
 * it `{ agentPreset }`). The symbol is module-private, and a path-mounted
 * plugin would import a second copy of it, so it is found by description.
 */
export function isScopedContext(ctx: object): boolean {
  for (let level: object | null = ctx; level !== null; level = Object.getPrototypeOf(level) as object | null) {
    for (const key of Object.getOwnPropertySymbols(level)) {
      if (key.description === 'dsh.scope' && (ctx as Record<symbol, unknown>)[key] !== undefined) return true
    }
  }
  return false
}

/**
 * Attach `source` to the settings service while one exists.
 * @param onChange - re-judge what depends on the settings (tool registration).
 */
export function attachSettings(ctx: SettingsContext, mode: MountMode, source: SettingsSource, log: SettingsLog,
  onChange: () => void): void {
  const ns = SETTINGS_NAMESPACE as SettingsNamespace
  ctx.inject(['settings'], sctx => {
    const settings = sctx.get('settings') as SettingsProvider
    if (mode === 'host') {
      let scope: { get(): unknown, watch(callback: () => void): () => void }
      try {
        scope = settings.register(ns, Config as never, { base: source.rowConfigValue as never })
      } catch (error: unknown) {
        log('warn', `settings: the "${ns}" section was not registered (${error instanceof Error ? error.message : String(error)}); `
        + 'the row config alone applies until the plugin reloads. Make the section a map of keys in settings.yaml.')
        onChange() // what waited for the section goes on with the row config
        return
      }
      source.setSource(() => scope.get(), 'settings')
      log('info', `settings: section "${ns}" registered; changes apply to the next tool call`)
      // A watcher is cut off when its registration is disposed; no disposer needed.
      scope.watch(() => {
        if (!isUnloading(ctx)) onChange()
      })
    } else {
      source.setSource(() => settings.get(ns) ?? source.rowConfigValue, 'settings')
      log('info', `settings: preset row; reads the host plane's "${ns}" section when one is registered, else its row config`)
      sctx.on?.('settings/updated', (changed: unknown) => {
        if (changed === ns && !isUnloading(ctx)) onChange()
      })
    }
    sctx.effect(() => () => {
      if (isUnloading(ctx)) return
      source.useRowConfig()
      onChange()
    }, 'cross-session.settings')
    onChange()
  })
}
