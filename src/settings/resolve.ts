/**
 * Settings of the `cross-session` namespace, resolved by one pure function
 * over the keys and rules of src/settings/keys.ts (re-exported here, where
 * most modules read them).
 *
 * Keys, defaults and ranges: docs/tools.md#settings (its table is printed
 * from the `Config` that `src/settings/config.ts` builds from the same rules).
 *
 * @module dsh-cross-session/settings/resolve
 */

import { clipLine, oneLine } from '../core/text.js'
import { DEFAULT_SETTINGS, SETTING_KEYS, SETTING_RULES, type SettingRule, type Settings } from './keys.js'

export { DEFAULT_SETTINGS, SETTING_KEYS, SETTING_RULES }
export type { InboundMode, Settings, Visibility } from './keys.js'

/** Result of {@link resolveSettings}: the settings and one note per change made. */
interface ResolvedSettings {
  readonly settings: Settings
  /** Human-readable notes, one per value that was not taken as given. */
  readonly notes: string[]
}

/**
 * Resolve settings from an untrusted value: the composition row's `config`,
 * or the `cross-session` section the settings service layered over it
 * (its schema lets every value through, docs/architecture.md §6 "A
 * permissive schema", so that this function, the one place that judges
 * values, can clamp, default and note them).
 *
 * Never throws. A missing key takes its default silently; a value of the
 * wrong type falls back to the default, a number out of range is clamped
 * (non-integers are rounded), an unknown key is ignored — each of these
 * leaves a note so the caller can log what it changed. A text (`store`,
 * `machine`) is trimmed (surrounding white space is not part of a value, so
 * trimming is no note); one its rule refuses falls back to the default, but
 * the `store`, which is kept as given so that what reads it refuses to open
 * a store rather than fall back to SQLite (docs/architecture.md §6, "Text"):
 * both leave a note naming what is wrong, never a password.
 * @param raw - anything (`undefined`, an object, garbage).
 * @returns the resolved settings and the notes.
 */
export function resolveSettings(raw: unknown): ResolvedSettings {
  const notes: string[] = []
  const source: Record<string, unknown> = isPlainObject(raw) ? raw : {}
  if (raw !== undefined && raw !== null && !isPlainObject(raw)) {
    notes.push(`config is ${describe(raw)}, not an object; using all defaults`)
  }
  const out: Record<string, unknown> = {}
  for (const key of SETTING_KEYS) {
    const rule = SETTING_RULES[key]
    const fallback = DEFAULT_SETTINGS[key]
    const value = source[key]
    if (value === undefined) {
      out[key] = fallback
      continue
    }
    out[key] = resolveOne(key, rule, value, fallback, notes)
  }
  for (const key of Object.keys(source)) {
    // Own keys only: `constructor` or `toString` is `in` every object.
    if (!Object.hasOwn(SETTING_RULES, key)) notes.push(`unknown setting ${JSON.stringify(clipLine(oneLine(key), 60))} ignored`)
  }
  return { settings: Object.freeze(out) as unknown as Settings, notes }
}

function resolveOne(key: string, rule: SettingRule, value: unknown, fallback: unknown, notes: string[]): unknown {
  switch (rule.kind) {
    case 'boolean':
      if (typeof value === 'boolean') return value
      notes.push(`${key}: expected true or false, got ${describe(value)}; using ${String(fallback)}`)
      return fallback
    case 'enum':
      if (typeof value === 'string' && rule.values.includes(value)) return value
      notes.push(`${key}: expected one of ${rule.values.join(' | ')}, got ${describe(value)}; using ${String(fallback)}`)
      return fallback
    case 'integer': {
      if (typeof value !== 'number' || Number.isNaN(value)) {
        notes.push(`${key}: expected an integer ${rule.min}–${rule.max}, got ${describe(value)}; using ${String(fallback)}`)
        return fallback
      }
      const rounded = Number.isFinite(value) ? Math.round(value) : value
      const clamped = Math.min(rule.max, Math.max(rule.min, rounded))
      if (clamped !== value) notes.push(`${key}: ${value} is outside ${rule.min}–${rule.max} or not an integer; using ${clamped}`)
      return clamped
    }
    case 'text': {
      if (typeof value !== 'string') {
        notes.push(`${key}: expected text, got ${describe(value)}; using ${JSON.stringify(fallback)}`)
        return fallback
      }
      const text = value.trim()
      const problem = rule.problem(text)
      if (problem === undefined) return text
      // The rule's sentence quotes a refused value (passwords masked); a log line stays one short line.
      const said = clipLine(oneLine(problem), 300)
      if (rule.whenRefused === 'keep') {
        notes.push(`${said}; kept as given, not replaced by ${JSON.stringify(fallback)}`)
        return text
      }
      notes.push(`${said}; using ${JSON.stringify(fallback)}`)
      return fallback
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return JSON.stringify(clipLine(value, 40))
  if (typeof value === 'object') return 'an object'
  return `${typeof value} ${String(value)}`
}
