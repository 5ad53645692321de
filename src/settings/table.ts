/**
 * The `cross-session` settings as plain data, for surfaces that show or edit
 * them (the web settings card, docs): one row per key with its kind, default,
 * range, and label/description in English and Chinese.
 *
 * Generated from `src/settings/keys.ts` (`SETTING_RULES`, `DEFAULT_SETTINGS`,
 * `SETTING_KEYS`), so ranges and defaults cannot drift from the resolver,
 * with the words of src/settings/copy.ts, the only copy of them: the
 * schemastery `Config` (src/settings/config.ts) takes them from this table,
 * and the browser half bundles this module without schemastery
 * (docs/architecture.md §6 and §7).
 *
 * @module dsh-cross-session/settings/table
 */

import { COPY, type Bilingual } from './copy.js'
import { DEFAULT_SETTINGS, SETTING_RULES, SETTING_KEYS, type Settings } from './keys.js'

export type { Bilingual }

/** The settings namespace (the host settings section and the card's slot key). */
export const SETTINGS_NAMESPACE = 'cross-session'

/**
 * One setting row. Integers carry `min`/`max` (inclusive); enums carry `values`; texts carry `maxChars`
 * (code points), their rule in words, and what an empty value means when it means something.
 */
export interface SettingRow {
  readonly key: keyof Settings
  readonly kind: 'boolean' | 'integer' | 'enum' | 'text'
  readonly default: boolean | number | string
  readonly min?: number
  readonly max?: number
  readonly values?: readonly string[]
  readonly maxChars?: number
  readonly rule?: Bilingual
  readonly empty?: Bilingual
  /** Unit of an integer or a text's length (`ms`, `characters`), when it has one. */
  readonly unit?: string
  /** An enum's values as the card shows them, in both languages (the stored value stays the key). */
  readonly options?: Readonly<Record<string, Bilingual>>
  readonly label: Bilingual
  readonly description: Bilingual
}

/** Every setting, in table order (`SETTING_KEYS`). */
export const SETTINGS_TABLE: readonly SettingRow[] = Object.freeze(SETTING_KEYS.map((key): SettingRow => {
  const rule = SETTING_RULES[key]
  const copy = COPY[key]
  const base = {
    key, default: DEFAULT_SETTINGS[key], label: copy.label, description: copy.description,
    ...(copy.unit === undefined ? {} : { unit: copy.unit }),
  }
  if (rule.kind === 'integer') return { ...base, kind: 'integer', min: rule.min, max: rule.max }
  if (rule.kind === 'text') {
    return { ...base, kind: 'text', maxChars: rule.maxChars, ...(copy.rule === undefined ? {} : { rule: copy.rule }),
      ...(copy.empty === undefined ? {} : { empty: copy.empty }) }
  }
  if (rule.kind === 'enum')
    return { ...base, kind: 'enum', values: [...rule.values], ...(copy.options === undefined ? {} : { options: copy.options }) }
  return { ...base, kind: 'boolean' }
}))

/** Result of {@link parseSettingInput}: a value to write, or a reason in both languages. */
type SettingInput =
  | { readonly ok: true, readonly value: boolean | number | string }
  | { readonly ok: false, readonly reason: Bilingual }

/**
 * Check one value typed into the card before it is written. Strict (no
 * clamping, no rounding): the card refuses inline rather than storing a value
 * the resolver would change (house rule: never a silent default over a wrong value).
 * A text is trimmed and judged by its key's rule (the resolver's, so the
 * card never stores a value the resolver would note): the `store` by
 * storePlace (src/settings/store-url.ts), the `machine` by
 * machineNameProblem. Its refusal says what is wrong in English (the rule's
 * sentence, never a password) and the rule in Chinese.
 * @param row - the setting.
 * @param text - what the user entered (`true`/`false` for booleans).
 */
export function parseSettingInput(row: SettingRow, text: string): SettingInput {
  const trimmed = text.trim()
  switch (row.kind) {
    case 'boolean':
      if (trimmed === 'true' || trimmed === 'false') return { ok: true, value: trimmed === 'true' }
      return { ok: false, reason: { en: 'Expected true or false.', zh: '应为 true 或 false。' } }
    case 'enum':
      if (row.values?.includes(trimmed) === true) return { ok: true, value: trimmed }
      return { ok: false, reason: { en: `Expected one of ${row.values?.join(', ')}.`, zh: `应为以下之一：${row.values?.join('、')}。` } }
    case 'integer': {
      const value = /^-?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN
      const min = row.min ?? Number.MIN_SAFE_INTEGER
      const max = row.max ?? Number.MAX_SAFE_INTEGER
      if (Number.isSafeInteger(value) && value >= min && value <= max) return { ok: true, value }
      return { ok: false, reason: { en: `Expected a whole number from ${min} to ${max}.`, zh: `应为 ${min} 到 ${max} 之间的整数。` } }
    }
    case 'text': {
      const rule = SETTING_RULES[row.key]
      const problem = rule.kind === 'text' ? rule.problem(trimmed) : `${row.key} is not a text setting`
      if (problem === undefined) return { ok: true, value: trimmed }
      return { ok: false, reason: { en: `${problem}.`, zh: row.rule?.zh ?? `${problem}。` } }
    }
  }
}
