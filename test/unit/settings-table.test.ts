/** The settings descriptor (src/settings-table.ts) the web card is generated from. */
import { describe, expect, it } from 'vitest'
import { DEFAULT_SETTINGS, parseSettingInput, resolveSettings, SETTING_KEYS, SETTINGS_TABLE } from '../../src/testing.js'

describe('SETTINGS_TABLE', () => {
  it('has one row per setting, in SETTING_KEYS order, with the resolver defaults', () => {
    expect(SETTINGS_TABLE.map(row => row.key)).toEqual(SETTING_KEYS)
    for (const row of SETTINGS_TABLE) {
      expect(row.default).toBe(DEFAULT_SETTINGS[row.key])
      expect(row.label.en.length).toBeGreaterThan(0)
      expect(row.label.zh.length).toBeGreaterThan(0)
      expect(row.description.en.length).toBeGreaterThan(0)
      expect(row.description.zh.length).toBeGreaterThan(0)
    }
    expect(SETTINGS_TABLE.find(row => row.key === 'maxListResults')).toMatchObject({ kind: 'integer', min: 1, max: 200, default: 25 })
    expect(SETTINGS_TABLE.find(row => row.key === 'visibility')).toMatchObject({ kind: 'enum', values: ['all', 'workspace'] })
  })

  it('states the resolver ranges exactly: the bounds resolve unchanged, one past them is clamped', () => {
    for (const row of SETTINGS_TABLE.filter(r => r.kind === 'integer')) {
      expect(resolveSettings({ [row.key]: row.min }).notes).toEqual([])
      expect(resolveSettings({ [row.key]: row.max }).notes).toEqual([])
      expect(resolveSettings({ [row.key]: row.max! + 1 }).notes).toHaveLength(1)
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
})
