/**
 * The REAL rc.8 settings service (`SettingsProvider` of
 * `@deepseek-ai/dsh-settings@0.1.0-rc.8`, lib/index.js) on a real Cordis
 * 4.0.1 root, with an in-memory document instead of `settings.yaml`. Only the
 * provider's two storage hooks are filled in (`load`, `persist`), exactly as
 * `@deepseek-ai/dsh-settings-file@0.1.0-rc.8` fills them for a file; every
 * rule (layering, schema validation, revisions, `settings/updated`, the
 * watcher chain) is the published code. `push` is what the file provider's
 * watcher does after an external edit: `publish(document)`.
 */
import { Context } from '@deepseek-ai/cordis'
import { SettingsProvider } from '@deepseek-ai/dsh-settings'

export class MemorySettings extends SettingsProvider {
  readonly writable = true
  static initial: Record<string, unknown> = {}
  stored: Record<string, unknown> = structuredClone(MemorySettings.initial)

  protected async load(): Promise<Record<string, unknown>> {
    return structuredClone(this.stored)
  }

  protected async persist(ns: string, section: Record<string, unknown>): Promise<void> {
    this.stored[ns] = structuredClone(section)
  }

  /** An external edit of the document (what the file watcher publishes). */
  push(document: Record<string, unknown>): void {
    this.stored = structuredClone(document)
    this.publish(structuredClone(document))
  }
}

/** Let Cordis run pending fibers, effects and watcher tails. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise(resolve => setTimeout(resolve, 5))
}

/** A real Cordis root with `ctx.settings` (holding `document`) when asked, and every log line collected. */
export async function realRoot(options: { settings?: Record<string, unknown> } = {}): Promise<{ root: Context, logs: Array<{ level: string, text: string }> }> {
  const root = new Context()
  const logs: Array<{ level: string, text: string }> = []
  root.logger.exporter({
    levels: { default: 5 },
    export(message: { type: string, name: string, args: unknown[] }) {
      if (message.name === 'cross-session' || message.name === 'settings') logs.push({ level: message.type, text: message.args.map(String).join(' ') })
    },
  } as never)
  if (options.settings !== undefined) {
    MemorySettings.initial = options.settings
    root.plugin(MemorySettings)
  }
  await settle()
  return { root, logs }
}
