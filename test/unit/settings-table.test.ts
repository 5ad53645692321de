/**
 * The settings descriptor (src/settings/table.ts) the web card is generated
 * from, checked against the settings as docs/tools.md "Settings" documents
 * them — written out here by hand, not read back from the code the table is
 * built from (`SETTING_RULES`, `DEFAULT_SETTINGS`, `SETTING_KEYS`).
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_SETTINGS, parseSettingInput, resolveSettings, SETTINGS_TABLE } from '../../src/testing.js'

/** docs/tools.md "Settings": key, kind, default and range of every setting, in table order. */
const DOCUMENTED = [
  { key: 'enabled', kind: 'boolean', default: true },
  { key: 'defaultSendMode', kind: 'enum', default: 'queue', values: ['queue', 'steer'] },
  { key: 'allowResume', kind: 'boolean', default: true },
  { key: 'frameMessages', kind: 'boolean', default: true },
  { key: 'includeInjectedByDefault', kind: 'boolean', default: false },
  { key: 'maxListResults', kind: 'integer', default: 25, min: 1, max: 200 },
  { key: 'maxReadMessages', kind: 'integer', default: 12, min: 1, max: 100 },
  { key: 'maxMessageChars', kind: 'integer', default: 1200, min: 100, max: 20000 },
  { key: 'maxSendChars', kind: 'integer', default: 4000, min: 100, max: 40000 },
  { key: 'visibility', kind: 'enum', default: 'all', values: ['all', 'workspace'] },
  { key: 'maxSendsPerMinute', kind: 'integer', default: 6, min: 1, max: 120 },
  { key: 'maxHops', kind: 'integer', default: 4, min: 1, max: 32 },
  { key: 'recordWaitMs', kind: 'integer', default: 5000, min: 0, max: 30000 },
  { key: 'answerWaitMs', kind: 'integer', default: 120000, min: 0, max: 600000 },
  { key: 'notifyByDefault', kind: 'boolean', default: false },
  { key: 'noticeTtlMs', kind: 'integer', default: 43200000, min: 60000, max: 604800000 },
  { key: 'noticeWakesEndedRun', kind: 'boolean', default: false },
  { key: 'inbound', kind: 'enum', default: 'accept', values: ['accept', 'hold', 'refuse'] },
  { key: 'holdExpiryMs', kind: 'integer', default: 600000, min: 60000, max: 86400000 },
  { key: 'store', kind: 'text', default: 'sqlite', maxChars: 2000 },
  { key: 'machine', kind: 'text', default: '', maxChars: 64 },
] as const

describe('SETTINGS_TABLE', () => {
  it('has the documented rows, in the documented order, each labelled and described in both languages', () => {
    expect(SETTINGS_TABLE.map(({ key, kind, default: value, min, max, values, maxChars }) => ({ key, kind, default: value, ...(min === undefined ? {} : { min, max }), ...(values === undefined ? {} : { values }), ...(maxChars === undefined ? {} : { maxChars }) }))).toEqual(DOCUMENTED)
    for (const row of SETTINGS_TABLE) {
      expect(row.label.en.length).toBeGreaterThan(0)
      expect(row.label.zh.length).toBeGreaterThan(0)
      expect(row.description.en.length).toBeGreaterThan(0)
      expect(row.description.zh.length).toBeGreaterThan(0)
    }
  })

  it('the resolver uses the documented defaults', () => {
    const documented = Object.fromEntries(DOCUMENTED.map(row => [row.key, row.default]))
    expect(resolveSettings(undefined).settings).toEqual(documented)
    expect(DEFAULT_SETTINGS).toEqual(documented)
  })

  it('the resolver takes the documented bounds unchanged and clamps one past them', () => {
    for (const row of DOCUMENTED) {
      if (row.kind !== 'integer') continue
      expect(resolveSettings({ [row.key]: row.min }).notes).toEqual([])
      expect(resolveSettings({ [row.key]: row.max }).notes).toEqual([])
      expect(resolveSettings({ [row.key]: row.max + 1 }).settings[row.key]).toBe(row.max)
      expect(resolveSettings({ [row.key]: row.min - 1 }).settings[row.key]).toBe(row.min)
    }
  })

  it('accepts only values the resolver would take as given, and says why otherwise', () => {
    const row = (key: string) => SETTINGS_TABLE.find(r => r.key === key)!
    expect(parseSettingInput(row('maxHops'), ' 8 ')).toEqual({ ok: true, value: 8 })
    expect(parseSettingInput(row('maxHops'), '33')).toEqual({ ok: false, reason: { en: 'Expected a whole number from 1 to 32.', zh: '应为 1 到 32 之间的整数。' } })
    expect(parseSettingInput(row('maxHops'), '2.5').ok).toBe(false)
    expect(parseSettingInput(row('maxHops'), '').ok).toBe(false)
    expect(parseSettingInput(row('visibility'), 'workspace')).toEqual({ ok: true, value: 'workspace' })
    expect(parseSettingInput(row('visibility'), 'some').ok).toBe(false)
    expect(parseSettingInput(row('allowResume'), 'false')).toEqual({ ok: true, value: false })
    expect(parseSettingInput(row('allowResume'), 'no').ok).toBe(false)
  })

  it('judges a typed text by the resolver\'s rule, strictly, with a reason in both languages', () => {
    const row = (key: string) => SETTINGS_TABLE.find(r => r.key === key)!
    expect(parseSettingInput(row('store'), ' postgres://ann@db/x ')).toEqual({ ok: true, value: 'postgres://ann@db/x' })
    expect(parseSettingInput(row('store'), 'sqlite')).toEqual({ ok: true, value: 'sqlite' })
    expect(parseSettingInput(row('store'), '')).toEqual({ ok: true, value: '' })
    expect(parseSettingInput(row('store'), 'mysql://ann:s3cret@db/x')).toEqual({ ok: false, reason: {
      en: 'store must be sqlite or a postgres:// URL; mysql: is another scheme.',
      zh: '应为 sqlite，或单行、不超过 2000 个字符的 postgres:// 或 postgresql:// URL。',
    } })
    for (const text of ['ann:s3cret@db', 'postgres://db:99999999/x?password=s3cret', `postgres://db/${'x'.repeat(2000)}`, 'postgres://d\tb/x']) {
      const parsed = parseSettingInput(row('store'), text)
      expect(parsed.ok).toBe(false)
      expect(JSON.stringify(parsed)).not.toContain('s3cret')
    }
    expect(parseSettingInput(row('machine'), ' laptop ')).toEqual({ ok: true, value: 'laptop' })
    expect(parseSettingInput(row('machine'), '')).toEqual({ ok: true, value: '' })
    expect(parseSettingInput(row('machine'), 'é'.repeat(64)).ok).toBe(true)
    expect(parseSettingInput(row('machine'), 'é'.repeat(65))).toEqual({ ok: false, reason: {
      en: 'machine must be at most 64 characters; this one has 65.', zh: '最多 64 个字符，且不含控制字符。',
    } })
    expect(parseSettingInput(row('machine'), 'lap\u0007top').ok).toBe(false)
  })

  it('takes as given exactly the texts the resolver takes without a note', () => {
    const row = (key: string) => SETTINGS_TABLE.find(r => r.key === key)!
    const texts = ['', 'sqlite', 'postgres://db/x', 'x', 'mysql://db', 'a\nb', 'é'.repeat(64), 'é'.repeat(65), `postgres://db/${'x'.repeat(1990)}`]
    for (const key of ['store', 'machine'] as const) {
      for (const text of texts) {
        expect(parseSettingInput(row(key), text).ok).toBe(resolveSettings({ [key]: text }).notes.length === 0)
      }
    }
  })
})
