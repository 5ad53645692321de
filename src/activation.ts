/**
 * One activation of the package inside its required services, started
 * again when the `store` or `machine` setting changes (docs/tools.md#settings):
 * the home chooses its store when it starts (`home/store-choice.ts`), so a
 * change of either, from `settings.yaml` or the web UI, and the section the
 * settings service reads only after the first activation at boot, start the
 * activation again as a child fiber of its own (Cordis 4.0.1
 * `ctx.plugin`, `@deepseek-ai/cordis@4.0.1` lib/types/registry.d.ts): its
 * disposal unregisters the tools, cancels calls in flight and lets the home
 * go (the store's holds released), and the new one opens the store the
 * settings now name. The tools are registered again at once (one change of
 * the model's tool catalog, logged).
 *
 * @module dsh-cross-session/activation
 */

import { activate, type PluginContext } from './activate.js'
import type { SettingsSource } from './settings/source.js'
import type { Settings } from './settings/resolve.js'
import { isScopedContext } from './settings/wiring.js'

/** Where the home's store is, as the settings say now: `store` and `machine`. */
export function storeKey(settings: Pick<Settings, 'store' | 'machine'>): string {
  return JSON.stringify([settings.store, settings.machine])
}

/** The activation of one `inner` context, and how to follow the settings. */
export interface Activation {
  /** Re-judge what depends on the settings: tool registration, and the store (a change starts the activation again). */
  readonly settingsChanged: () => void
}

/**
 * Activate in `inner` now. A preset's row (it reads the host plane's section, and shares the home the host plane's
 * row started, `home/mount.ts`) and a context without `plugin` (a test's fake host) are activated in place and never
 * started again.
 */
export function startActivation(inner: PluginContext, source: SettingsSource, log: (level: 'info' | 'warn', message: string) => void):
Activation {
  let sync: (() => void) | undefined
  let running: { key: string, fiber?: { dispose(): Promise<void> | void } } | undefined
  const start = (): void => {
    const key = storeKey(source.current)
    if (inner.plugin === undefined || isScopedContext(inner)) {
      sync = activate(inner, source, log)
      running = { key }
      return
    }
    const apply = (ctx: PluginContext): void => { sync = activate(ctx, source, log) }
    const fiber = inner.plugin({ name: 'dsh-cross-session.activation', apply })
    running = { key, fiber }
  }
  const restart = async (): Promise<void> => {
    const was = running
    if (was?.fiber === undefined || storeKey(source.current) === was.key) return
    running = undefined
    sync = undefined
    log('info', 'settings: store or machine changed; the cross-session home starts again on the store they name')
    await was.fiber.dispose()
    start()
  }
  start()
  return {
    settingsChanged() {
      // A plugin unloading under the restart (its fiber disposed) leaves nothing to start: said, never thrown.
      restart().catch((error: unknown) => log('warn', `settings: the cross-session activation could not start again: ${String(error)}`))
      sync?.()
    },
  }
}
