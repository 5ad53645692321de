/**
 * Settings of the `cross-session` namespace, resolved by one pure function.
 *
 * Keys, defaults and ranges: docs/tools.md#settings (its table is printed
 * from the `Config` that `src/settings/config.ts` builds from this module).
 * `recordWaitMs` bounds the wait of "Accepted means recorded" and
 * `answerWaitMs` the wait for a woken session's answer
 * (docs/tools.md#sessions_send).
 *
 * @module dsh-cross-session/settings/resolve
 */

import type { SendMode } from '../model/schemas.js'
import type { Visibility } from '../model/sessions.js'
import { clipLine, oneLine } from '../core/text.js'

/** Who a session may see (`src/model/sessions.ts`). */
export type { Visibility }

/** Resolved settings; every field is present and in range. */
export interface Settings {
  /** `false` registers no tool at all. */
  readonly enabled: boolean
  /** Mode of a `sessions_send` that gives none. */
  readonly defaultSendMode: SendMode
  /** Whether a send may wake (resume) a cold session. */
  readonly allowResume: boolean
  /** Whether delivered messages carry the cross-session frame (docs/tools.md#the-frame). */
  readonly frameMessages: boolean
  /** Default of `sessions_read`'s `include_injected`. */
  readonly includeInjectedByDefault: boolean
  /** Cap on `sessions_list` rows (1–200). */
  readonly maxListResults: number
  /** Cap on `sessions_read` messages (1–100). */
  readonly maxReadMessages: number
  /** Cap on characters (code points) per read message (100–20000). */
  readonly maxMessageChars: number
  /** Cap on characters (code points) of a sent body (100–40000). */
  readonly maxSendChars: number
  /** `workspace`: only sessions with the caller's `cwd` exist for the tools. */
  readonly visibility: Visibility
  /** Sends per minute per sender→target pair (1–120). */
  readonly maxSendsPerMinute: number
  /** Longest causal relay chain, in hops (1–32). */
  readonly maxHops: number
  /** How long a send waits for its message to reach the target's log, ms (0–30000). */
  readonly recordWaitMs: number
  /** How long a send from a headless run that woke its target waits for that turn to end (its exit would cut it off), ms (0–600000). */
  readonly answerWaitMs: number
  /** Default of `sessions_send`'s `notify` (docs/tools.md#notices). */
  readonly notifyByDefault: boolean
  /** How long a notice waits for the watched turn to end and then for its sender, ms (60000–604800000). */
  readonly noticeTtlMs: number
  /** Whether a notice may resume this session in `dsh web` once its headless run exited (docs/tools.md#notices). */
  readonly noticeWakesEndedRun: boolean
  /** What a peer message does (docs/tools.md#inbound-messages): `accept`, `hold` for its user, `refuse`; a session's own choice wins. */
  readonly inbound: InboundMode
  /** How long a held message waits for its user's decision before it expires, ms (60000–86400000). */
  readonly holdExpiryMs: number
}

/** What a peer message to a session does: docs/tools.md#inbound-messages. */
export type InboundMode = 'accept' | 'hold' | 'refuse'

/** Defaults (the `default` column of docs/tools.md#settings). */
export const DEFAULT_SETTINGS: Settings = Object.freeze({
  enabled: true,
  defaultSendMode: 'queue',
  allowResume: true,
  frameMessages: true,
  includeInjectedByDefault: false,
  maxListResults: 25,
  maxReadMessages: 12,
  maxMessageChars: 1200,
  maxSendChars: 4000,
  visibility: 'all',
  maxSendsPerMinute: 6,
  maxHops: 4,
  recordWaitMs: 5000,
  answerWaitMs: 120_000,
  notifyByDefault: false,
  noticeTtlMs: 12 * 60 * 60_000,
  noticeWakesEndedRun: false,
  inbound: 'accept',
  holdExpiryMs: 600_000,
})

/** How one setting is judged: its type and, for numbers, the range it is clamped into. */
type SettingRule =
  | { readonly kind: 'boolean' }
  | { readonly kind: 'integer', readonly min: number, readonly max: number }
  | { readonly kind: 'enum', readonly values: readonly string[] }

/** Type and range of every setting (docs/tools.md#settings); src/settings/config.ts builds the schemastery `Config` from it. */
export const SETTING_RULES: { readonly [K in keyof Settings]: SettingRule } = {
  enabled: { kind: 'boolean' },
  defaultSendMode: { kind: 'enum', values: ['queue', 'steer'] },
  allowResume: { kind: 'boolean' },
  frameMessages: { kind: 'boolean' },
  includeInjectedByDefault: { kind: 'boolean' },
  maxListResults: { kind: 'integer', min: 1, max: 200 },
  maxReadMessages: { kind: 'integer', min: 1, max: 100 },
  maxMessageChars: { kind: 'integer', min: 100, max: 20000 },
  maxSendChars: { kind: 'integer', min: 100, max: 40000 },
  visibility: { kind: 'enum', values: ['all', 'workspace'] },
  maxSendsPerMinute: { kind: 'integer', min: 1, max: 120 },
  maxHops: { kind: 'integer', min: 1, max: 32 },
  recordWaitMs: { kind: 'integer', min: 0, max: 30000 },
  answerWaitMs: { kind: 'integer', min: 0, max: 600_000 },
  notifyByDefault: { kind: 'boolean' },
  noticeTtlMs: { kind: 'integer', min: 60_000, max: 7 * 24 * 60 * 60_000 },
  noticeWakesEndedRun: { kind: 'boolean' },
  inbound: { kind: 'enum', values: ['accept', 'hold', 'refuse'] },
  holdExpiryMs: { kind: 'integer', min: 60_000, max: 86_400_000 },
}

/** Setting keys, in table order. */
export const SETTING_KEYS = Object.keys(SETTING_RULES) as Array<keyof Settings>

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
 * leaves a note so the caller can log what it changed.
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
