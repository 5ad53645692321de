/**
 * The current settings of one mounted row, read in O(1) per tool call.
 *
 * A {@link SettingsSource} holds a thunk returning the authoritative raw
 * value — the row `config`, or the value the harness's settings service
 * resolved for the `cross-session` section (schema defaults < row config <
 * the user's section of `$DSH_HOME/settings.yaml`). Reading
 * {@link SettingsSource.current} calls the thunk (one Map lookup in the
 * settings service) and compares the result by identity with the last raw
 * value; only a new value (the service swaps in a new frozen object on each
 * committed change) runs {@link resolveSettings} again (docs/architecture.md
 * §6, "Read per call, O(1)").
 *
 * @module dsh-cross-session/settings/source
 */

import { resolveSettings, type Settings } from './resolve.js'

/** Where the current value comes from, as log lines name it. */
type SettingsOrigin = 'config' | 'settings'

/** Log sink: level and one line. */
export type SettingsLog = (level: 'info' | 'warn', message: string) => void

/**
 * Notes of a new resolution that the previous one did not already log
 * (pure): a clamped value stays logged once, not again on every change of
 * another key.
 */
export function freshNotes(previous: readonly string[], next: readonly string[]): string[] {
  const seen = new Set(previous)
  return next.filter(note => !seen.has(note))
}

/** The live settings of one row. */
export class SettingsSource {
  private read: () => unknown
  private origin: SettingsOrigin = 'config'
  private lastRaw: unknown
  private resolved: Settings
  private notes: readonly string[]
  /** The row's `config`, the layer under the user's section. */
  readonly rowConfigValue: unknown
  private readonly log: SettingsLog

  /**
   * @param rowConfigValue - the row's `config` (what Cordis handed `apply`).
   * @param log - where each change resolveSettings made is reported.
   */
  constructor(rowConfigValue: unknown, log: SettingsLog) {
    this.rowConfigValue = rowConfigValue
    this.log = log
    this.read = () => rowConfigValue
    this.lastRaw = rowConfigValue
    const { settings, notes } = resolveSettings(rowConfigValue)
    this.resolved = settings
    this.notes = notes
    for (const note of notes) log('warn', `config: ${note}`)
  }

  /** The current resolved settings; O(1) unless the raw value changed since the last read. */
  get current(): Settings {
    const raw = this.read()
    if (raw !== this.lastRaw) this.resolve(raw)
    return this.resolved
  }

  /**
   * Point the source at a new authoritative value (the settings service's
   * section, or back to the row config) and resolve it now, so its notes are
   * logged at once rather than at the next tool call.
   */
  setSource(read: () => unknown, origin: SettingsOrigin): void {
    this.read = read
    this.origin = origin
    this.resolve(read())
  }

  /** Fall back to the row config alone. */
  useRowConfig(): void {
    const row = this.rowConfigValue
    this.setSource(() => row, 'config')
  }

  private resolve(raw: unknown): void {
    const { settings, notes } = resolveSettings(raw)
    for (const note of freshNotes(this.notes, notes)) this.log('warn', `${this.origin}: ${note}`)
    this.lastRaw = raw
    this.resolved = settings
    this.notes = notes
  }
}
