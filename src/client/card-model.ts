/**
 * Decisions of the web settings card (src/client/settings-card.jsx), as pure
 * functions: what a field shows, whether a save may write, and what a save
 * that did not land means (docs/architecture.md §7, "Two halves").
 *
 * The card writes through the client settings scope (rc.8
 * `@deepseek-ai/dsh-client-runtime` lib/types/client/contract/settings-scope.d.ts
 * `SettingsScope`): `set(field, value)` carries the namespace revision the
 * mirror last saw and, when the host refuses (stale revision or invalid
 * value), reloads the host state and resolves without saying why. So the card
 * fences on its own too: it remembers the revision its edits were made
 * against, refuses to write over a newer one, and reads a write's outcome
 * back from the user layer.
 *
 * @module dsh-cross-session/client/card-model
 */

import { parseSettingInput, type Bilingual, type SettingRow } from '../settings/table.js'

/** The scope snapshot as the card reads it (`SettingsScopeSnapshot`). */
export interface ScopeView {
  readonly status: 'loading' | 'ready' | 'unavailable'
  readonly value?: unknown
  readonly user?: unknown
  readonly revision?: number
  readonly writable: boolean
}

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}
}

/** The effective value of one setting (host-resolved section, else the default). */
export function currentValue(row: SettingRow, view: ScopeView): boolean | number | string {
  const value = recordOf(view.value)[row.key]
  return typeof value === typeof row.default ? value as boolean | number | string : row.default
}

/** Whether the user layer carries the key (presence, not value, marks an override). */
export function isOverridden(row: SettingRow, view: ScopeView): boolean {
  return Object.hasOwn(recordOf(view.user), row.key)
}

/** The language of the card's words (the client locale, `zh*` or else `en`). */
export type Lang = 'en' | 'zh'

/** Unit words by language: durations largest first, then the settings table's units. */
const UNITS: Readonly<Record<Lang, Readonly<Record<string, string>>>> = {
  en: { d: 'd', h: 'h', min: 'min', s: 's', ms: 'ms', characters: 'characters' },
  zh: { d: '天', h: '小时', min: '分钟', s: '秒', ms: '毫秒', characters: '个字符' },
}

function unitWord(unit: string, lang: Lang): string {
  return UNITS[lang][unit] ?? unit
}

/** A duration in ms as people say it: `12 h`, `10 min`, `5 s` (the largest unit that divides it), else `250 ms`; in zh `12 小时`. */
export function durationText(ms: number, lang: Lang = 'en'): string {
  for (const [name, size] of [['d', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unitWord(name, lang)}`
  }
  return `${ms} ${unitWord('ms', lang)}`
}

/** A setting's value as shown beside its default: a duration in ms also as people say it, `43200000 (12 h)`. */
export function defaultText(row: SettingRow, lang: Lang = 'en'): string {
  const value = String(row.default)
  if (row.unit !== 'ms' || typeof row.default !== 'number' || row.default < 1000) return value
  return `${value} (${durationText(row.default, lang)})`
}

/**
 * `1–200`, `queue | steer`, `true | false`, with the unit when there is one (a duration in ms also as
 * `1 min–7 d`); units in `lang`.
 */
export function rangeText(row: SettingRow, lang: Lang = 'en'): string {
  if (row.kind === 'integer' && row.unit === 'ms') {
    const said = `${durationText(row.min ?? 0, lang)}–${durationText(row.max ?? 0, lang)}`
    return `${row.min}–${row.max} ${unitWord('ms', lang)} (${said})`
  }
  if (row.kind === 'integer') return `${row.min}–${row.max}${row.unit === undefined ? '' : ` ${unitWord(row.unit, lang)}`}`
  // Option values stay as settings.yaml spells them (the select shows their names).
  if (row.kind === 'enum') return (row.values ?? []).join(' | ')
  return 'true | false'
}

/** What a save should do. */
type SavePlan =
  | { readonly kind: 'nothing' }
  | { readonly kind: 'invalid', readonly errors: Readonly<Record<string, Bilingual>> }
  | { readonly kind: 'conflict', readonly editedAt: number | undefined, readonly now: number | undefined }
  | { readonly kind: 'write', readonly writes: ReadonlyArray<{ readonly key: string, readonly value: boolean | number | string }> }

/**
 * Decide a save.
 * @param rows - the settings table.
 * @param drafts - typed text per key (only edited keys).
 * @param view - the scope snapshot now.
 * @param editedAt - the revision the first draft was typed against.
 * @returns `invalid` (every bad field with its reason) before `conflict`
 *   (the document moved since editing began), else the writes of the drafts
 *   that differ from the current value.
 */
export function planSave(
  rows: readonly SettingRow[], drafts: ReadonlyMap<string, string>, view: ScopeView, editedAt: number | undefined,
): SavePlan {
  const errors: Record<string, Bilingual> = {}
  const writes: Array<{ key: string, value: boolean | number | string }> = []
  for (const row of rows) {
    const text = drafts.get(row.key)
    if (text === undefined) continue
    const parsed = parseSettingInput(row, text)
    if (!parsed.ok) errors[row.key] = parsed.reason
    else if (parsed.value !== currentValue(row, view)) writes.push({ key: row.key, value: parsed.value })
  }
  if (Object.keys(errors).length > 0) return { kind: 'invalid', errors }
  if (writes.length === 0) return { kind: 'nothing' }
  if (editedAt !== view.revision) return { kind: 'conflict', editedAt, now: view.revision }
  return { kind: 'write', writes }
}

/** Keys whose write did not land: the user layer after the write does not hold the value. */
export function unlanded(writes: ReadonlyArray<{ readonly key: string, readonly value: unknown }>, after: ScopeView): string[] {
  const user = recordOf(after.user)
  return writes.filter(write => user[write.key] !== write.value).map(write => write.key)
}
