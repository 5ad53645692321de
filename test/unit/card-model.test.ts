/** Decisions of the web settings card (src/client/card-model.ts). */
import { describe, expect, it } from 'vitest'
import { currentValue, defaultText, durationText, isOverridden, planSave, rangeText, SETTINGS_TABLE, unlanded, type ScopeView } from '../../src/testing.js'

const row = (key: string) => SETTINGS_TABLE.find(r => r.key === key)!
const view = (value: Record<string, unknown>, user: Record<string, unknown> | undefined, revision: number): ScopeView => ({ status: 'ready', value, user, revision, writable: true })

describe('card model', () => {
  it('shows the host-resolved value, else the default, and marks overrides by presence', () => {
    const v = view({ maxHops: 7, maxListResults: 'garbage' }, { maxHops: 7 }, 3)
    expect(currentValue(row('maxHops'), v)).toBe(7)
    expect(currentValue(row('maxListResults'), v)).toBe(25)
    expect(isOverridden(row('maxHops'), v)).toBe(true)
    expect(isOverridden(row('maxListResults'), v)).toBe(false)
    expect(rangeText(row('recordWaitMs'))).toBe('0–30000 ms (0 ms–30 s)')
    expect(rangeText(row('noticeTtlMs'))).toBe('60000–604800000 ms (1 min–7 d)')
    expect(defaultText(row('noticeTtlMs'))).toBe('43200000 (12 h)')
    expect(defaultText(row('maxHops'))).toBe('4')
    expect([durationText(250), durationText(1500), durationText(90_000), durationText(600_000)]).toEqual(['250 ms', '1500 ms', '90 s', '10 min'])
    expect(rangeText(row('defaultSendMode'))).toBe('queue | steer')
  })

  it('says units in the page\'s language: every word of a zh range and default is Chinese but the stored values', () => {
    expect(rangeText(row('maxSendChars'), 'zh')).toMatch(/^\d+–\d+ 个字符$/)
    expect(rangeText(row('maxSendChars'))).toMatch(/^\d+–\d+ characters$/)
    expect(rangeText(row('recordWaitMs'), 'zh')).toBe('0–30000 毫秒 (0 毫秒–30 秒)')
    expect(rangeText(row('noticeTtlMs'), 'zh')).toBe('60000–604800000 毫秒 (1 分钟–7 天)')
    expect(defaultText(row('noticeTtlMs'), 'zh')).toBe('43200000 (12 小时)')
    expect([durationText(250, 'zh'), durationText(90_000, 'zh'), durationText(600_000, 'zh')]).toEqual(['250 毫秒', '90 秒', '10 分钟'])
    // Option values stay as settings.yaml spells them, in both languages.
    expect(rangeText(row('defaultSendMode'), 'zh')).toBe('queue | steer')
  })

  it('refuses invalid drafts (all of them, with reasons) before anything else', () => {
    const plan = planSave(SETTINGS_TABLE, new Map([['maxHops', '99'], ['visibility', 'team'], ['maxReadMessages', '5']]), view({}, undefined, 1), 0)
    expect(plan.kind).toBe('invalid')
    expect(Object.keys(plan.kind === 'invalid' ? plan.errors : {})).toEqual(['visibility', 'maxHops'])
  })

  it('refuses to write over a document that moved since editing began', () => {
    expect(planSave(SETTINGS_TABLE, new Map([['maxHops', '5']]), view({}, undefined, 4), 3)).toEqual({ kind: 'conflict', editedAt: 3, now: 4 })
  })

  it('writes only drafts that change a value, and reports writes that did not land', () => {
    const v = view({ maxHops: 4, maxListResults: 25 }, {}, 2)
    expect(planSave(SETTINGS_TABLE, new Map([['maxHops', '4']]), v, 2)).toEqual({ kind: 'nothing' })
    expect(planSave(SETTINGS_TABLE, new Map([['maxHops', '6'], ['allowResume', 'false']]), v, 2)).toEqual({ kind: 'write', writes: [{ key: 'allowResume', value: false }, { key: 'maxHops', value: 6 }] })
    expect(unlanded([{ key: 'maxHops', value: 6 }, { key: 'allowResume', value: false }], view({}, { maxHops: 6 }, 3))).toEqual(['allowResume'])
  })
})
