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
 * A password is never shown: the `store` field shows its value through
 * shownStore (src/settings/store-url.ts; `***` for a password), and a save
 * never writes that masked text back (docs/architecture.md §6, "Text").
 *
 * @module dsh-cross-session/client/card-model
 */

import { shownStore, storePlace } from '../settings/store-url.js'
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

/** How a text setting that may hold a secret is shown, by key: the `store` URL without its password. */
const SHOWN: Readonly<Partial<Record<string, (value: string) => string>>> = { store: shownStore }

/** The effective value as the field shows it (and as the page may hold it): a password masked as `***`. */
export function shownValue(row: SettingRow, view: ScopeView): string {
  const value = currentValue(row, view)
  const shown = SHOWN[row.key]
  return typeof value === 'string' && shown !== undefined ? shown(value) : String(value)
}

/** Why a draft that still holds the masked password is refused (writing it would store `***` as the password). */
const MASKED: Bilingual = {
  en: 'The password is shown as ***. Type the whole URL with its password, or keep the password in PGPASSWORD or ~/.pgpass '
    + 'and leave it out of the URL.',
  zh: '密码显示为 ***。请输入带密码的完整 URL，或将密码放在 PGPASSWORD 或 ~/.pgpass 中，并从 URL 中去掉。',
}

/** Whether a typed URL carries `***` as its password (in the URL or as `?password=`). */
function holdsMask(text: string): boolean {
  const place = storePlace(text)
  if ('error' in place || place.kind !== 'postgres') return false
  const url = new URL(place.url)
  return url.password === '***' || url.searchParams.get('password') === '***'
}

/**
 * A draft of a field whose shown value hides something: `unchanged` when it is
 * the shown text itself (nothing to save), a refusal when it keeps the mask,
 * else `undefined` (judged as any draft).
 */
function maskedDraft(row: SettingRow, text: string, view: ScopeView): 'unchanged' | Bilingual | undefined {
  const value = currentValue(row, view)
  const shown = shownValue(row, view)
  if (SHOWN[row.key] === undefined || typeof value !== 'string' || shown === value.trim()) return undefined
  if (text.trim() === shown) return 'unchanged'
  return holdsMask(text.trim()) ? MASKED : undefined
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

/** The word for an empty text, by language. */
const EMPTY: Readonly<Record<Lang, string>> = { en: 'empty', zh: '空' }

/**
 * A setting's value as shown beside its default: a duration in ms also as people say it, `43200000 (12 h)`; an
 * empty text with what it means, `empty (this host's name)`.
 */
export function defaultText(row: SettingRow, lang: Lang = 'en'): string {
  if (row.default === '') return row.empty === undefined ? EMPTY[lang] : `${EMPTY[lang]} (${row.empty[lang]})`
  const value = String(row.default)
  if (row.unit !== 'ms' || typeof row.default !== 'number' || row.default < 1000) return value
  return `${value} (${durationText(row.default, lang)})`
}

/**
 * `1–200`, `queue | steer`, `true | false`, `at most 64 characters`, with the unit when there is one (a duration in ms also as
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
  if (row.kind === 'text') {
    const chars = `${row.maxChars} ${unitWord('characters', lang)}`
    return lang === 'zh' ? `最多 ${chars}` : `at most ${chars}`
  }
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
 *   that differ from the current value. A draft that is a masked value as
 *   shown is no write; one that keeps the mask in an edited URL is invalid.
 */
export function planSave(
  rows: readonly SettingRow[], drafts: ReadonlyMap<string, string>, view: ScopeView, editedAt: number | undefined,
): SavePlan {
  const errors: Record<string, Bilingual> = {}
  const writes: Array<{ key: string, value: boolean | number | string }> = []
  for (const row of rows) {
    const text = drafts.get(row.key)
    if (text === undefined) continue
    const masked = maskedDraft(row, text, view)
    if (masked === 'unchanged') continue
    if (masked !== undefined) {
      errors[row.key] = masked
      continue
    }
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
