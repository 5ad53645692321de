/**
 * The schemastery `Config` of the `cross-session` settings namespace: the
 * one table of settings (key, type, default, range, description in English
 * and Chinese) that the plugin entry exports, the harness's settings service
 * registers, Cordis validates the composition row with, and README.md and
 * docs/tools.md print ({@link settingsTableMarkdown}; test/unit/docs.test.ts
 * fails on drift). Design: docs/architecture.md §6.
 *
 * **Permissive on purpose** (docs/tools.md#settings; a stored section that
 * fails the schema fails the plugin's registration,
 * `@deepseek-ai/dsh-settings@0.1.0-rc.8` lib/index.js
 * `SettingsProvider.register`): every key is
 * `union([typed, any])` with its default on the union, so a wrong type or an
 * out-of-range number in `settings.yaml` (or in the row) passes the schema
 * unchanged and reaches {@link resolveSettings}, the one place that clamps,
 * defaults and notes each change. The typed member (`list[0]`) carries the
 * type and, for numbers, the range (for a text, its longest length), for the
 * table and for a settings card.
 *
 * Runtime import of `@deepseek-ai/schemastery` (a peer): a second copy, as a
 * path-mounted plugin gets, is harmless — schemastery brands schemas with
 * `Symbol.for('schemastery')` and numbers them through `globalThis`; the
 * settings service only calls `schema(value)` and `schema.toJSON()`; Cordis
 * only calls `Config['~standard'].validate` (rc.8 cordis lib/index.js
 * `resolveConfig`). See docs/architecture.md "Settings".
 *
 * @module dsh-cross-session/settings/config
 */

import Schema from '@deepseek-ai/schemastery'
import { DEFAULT_SETTINGS, SETTING_KEYS, SETTING_RULES, type Settings } from './keys.js'
import { SETTINGS_NAMESPACE, SETTINGS_TABLE } from './table.js'

/** The settings namespace (a section of `$DSH_HOME/settings.yaml`); defined with the plain-data table. */
export { SETTINGS_NAMESPACE }

function typed(key: keyof Settings): Schema {
  const rule = SETTING_RULES[key]
  switch (rule.kind) {
    case 'boolean': return Schema.boolean()
    case 'enum': return Schema.union(rule.values.map(value => Schema.const(value)))
    case 'integer': return Schema.number().step(1).min(rule.min).max(rule.max)
    // schemastery counts a string's length in UTF-16 units, the resolver in code points: the member only informs.
    case 'text': return Schema.string().max(rule.maxChars)
  }
}

function entry(key: keyof Settings): Schema {
  // One copy of every description: the plain-data table the web card reads too.
  const { en, zh } = SETTINGS_TABLE.find(row => row.key === key)!.description
  // `any` last: a value the typed member refuses still passes, for resolveSettings to judge and note.
  return Schema.union([typed(key), Schema.any().hidden()])
    .default(DEFAULT_SETTINGS[key])
    .description(en)
    .extra('description', { '': en, 'zh-CN': zh })
}

/** The row and settings-section value before {@link resolveSettings}: any key may hold anything. */
type ConfigInput = { [K in keyof Settings]?: unknown } & Record<string, unknown>

/**
 * Schemastery schema of the `cross-session` section (and of the row
 * `config`): keys in table order, each `union([typed, any])` with a default.
 */
export const Config: Schema<ConfigInput> = Schema.object(
  Object.fromEntries(SETTING_KEYS.map(key => [key, entry(key)])),
) as unknown as Schema<ConfigInput>

/** One row of the settings table, read back from {@link Config}. */
interface SettingRow {
  readonly key: string
  readonly default: unknown
  /** `1–200`, `queue | steer`, `at most 64 characters`, or empty for booleans. */
  readonly range: string
  readonly description: string
}

interface SchemaNode {
  readonly type: string
  readonly value?: unknown
  readonly list?: readonly SchemaNode[]
  readonly dict?: Readonly<Record<string, SchemaNode>>
  readonly meta: { readonly default?: unknown, readonly min?: number, readonly max?: number, readonly description?: unknown }
}

/** The table's rows, read from the schema itself (so the docs print what the schema says). */
function settingRows(schema: Schema = Config): SettingRow[] {
  const dict = (schema as unknown as SchemaNode).dict ?? {}
  return Object.entries(dict).map(([key, node]) => {
    const first = node.list?.[0]
    const range = first === undefined ? ''
      : first.type === 'number' ? `${first.meta.min}–${first.meta.max}`
        : first.type === 'union' ? (first.list ?? []).map(option => String(option.value)).join(' \\| ')
          : first.type === 'string' ? `at most ${first.meta.max} characters`
            : ''
    const description = node.meta.description
    const text = typeof description === 'string' ? description : String((description as Record<string, unknown> | undefined)?.[''] ?? '')
    return { key, default: node.meta.default, range, description: text }
  })
}

/** The settings table as Markdown, exactly as README.md and docs/tools.md carry it. */
export function settingsTableMarkdown(schema: Schema = Config): string {
  const lines = ['| key | default | range | meaning |', '|---|---|---|---|']
  for (const row of settingRows(schema)) {
    // An empty code span does not render; an empty default is said in words.
    const value = typeof row.default === 'number' ? String(row.default) : row.default === '' ? '(empty)' : `\`${String(row.default)}\``
    const range = row.range.includes('|') ? row.range.split(' \\| ').map(option => `\`${option}\``).join(' \\| ') : row.range
    lines.push(`| \`${row.key}\` | ${value} | ${range} | ${row.description} |`)
  }
  return lines.join('\n')
}
