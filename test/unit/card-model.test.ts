/** Decisions of the web settings card (src/client/card-model.ts). */
import { describe, expect, it } from 'vitest'
import { currentValue, defaultText, durationText, isOverridden, planSave, rangeText, SETTINGS_TABLE, shownValue, unlanded, type ScopeView } from '../../src/testing.js'

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

  it('shows a text field\'s rule and default in the page\'s language', () => {
    expect(rangeText(row('store'))).toBe('at most 2000 characters')
    expect(rangeText(row('machine'), 'zh')).toBe('最多 64 个字符')
    expect(defaultText(row('store'))).toBe('sqlite')
    expect(defaultText(row('machine'))).toBe('empty (this host\'s name)')
    expect(defaultText(row('machine'), 'zh')).toBe('空 (本机主机名)')
    expect(shownValue(row('machine'), view({ machine: 'laptop' }, undefined, 1))).toBe('laptop')
    expect(shownValue(row('maxHops'), view({ maxHops: 7 }, undefined, 1))).toBe('7')
  })

  it('never shows the store\'s password: in the URL, as ?password=, or in a value that is not a URL', () => {
    expect(shownValue(row('store'), view({ store: 'postgres://ann:s3cret@db/x' }, undefined, 1))).toBe('postgres://ann:***@db/x')
    expect(shownValue(row('store'), view({ store: 'postgres://db/x?password=s3cret' }, undefined, 1))).toBe('postgres://db/x?password=***')
    expect(shownValue(row('store'), view({ store: 'ann:s3cret@db' }, undefined, 1))).toBe('***@db')
    expect(shownValue(row('store'), view({ store: 'postgres://ann@db/x' }, undefined, 1))).toBe('postgres://ann@db/x')
    expect(shownValue(row('store'), view({}, undefined, 1))).toBe('sqlite')
  })

  it('does not write a masked store back: the shown text unchanged is nothing to save', () => {
    const v = view({ store: 'postgres://ann:s3cret@db/x' }, { store: 'postgres://ann:s3cret@db/x' }, 2)
    const shown = shownValue(row('store'), v)
    expect(planSave(SETTINGS_TABLE, new Map([['store', shown]]), v, 2)).toEqual({ kind: 'nothing' })
    expect(planSave(SETTINGS_TABLE, new Map([['store', ` ${shown} `]]), v, 2)).toEqual({ kind: 'nothing' })
    // Beside another edit, only the other edit is written.
    expect(planSave(SETTINGS_TABLE, new Map([['store', shown], ['maxHops', '6']]), v, 2))
      .toEqual({ kind: 'write', writes: [{ key: 'maxHops', value: 6 }] })
    // The ?password= form, and a stored value that is not a URL (masked as well).
    const q = view({ store: 'postgres://db/x?password=s3cret' }, undefined, 2)
    expect(planSave(SETTINGS_TABLE, new Map([['store', 'postgres://db/x?password=***']]), q, 2)).toEqual({ kind: 'nothing' })
    const garbled = view({ store: 'ann:s3cret@db' }, undefined, 2)
    expect(planSave(SETTINGS_TABLE, new Map([['store', '***@db']]), garbled, 2)).toEqual({ kind: 'nothing' })
  })

  it('refuses an edited URL that keeps the masked password, and writes one the user typed anew', () => {
    const v = view({ store: 'postgres://ann:s3cret@db/x' }, undefined, 2)
    for (const text of ['postgres://ann:***@db2/x', 'postgres://db2/x?password=***']) {
      const plan = planSave(SETTINGS_TABLE, new Map([['store', text]]), v, 2)
      expect(plan.kind).toBe('invalid')
      expect(plan.kind === 'invalid' ? plan.errors.store?.en : '').toMatch(/^The password is shown as \*\*\*/)
    }
    expect(planSave(SETTINGS_TABLE, new Map([['store', 'postgres://ann:n3w@db2/x']]), v, 2))
      .toEqual({ kind: 'write', writes: [{ key: 'store', value: 'postgres://ann:n3w@db2/x' }] })
    expect(planSave(SETTINGS_TABLE, new Map([['store', 'postgres://db2/x']]), v, 2))
      .toEqual({ kind: 'write', writes: [{ key: 'store', value: 'postgres://db2/x' }] })
    expect(planSave(SETTINGS_TABLE, new Map([['store', 'sqlite']]), v, 2)).toEqual({ kind: 'write', writes: [{ key: 'store', value: 'sqlite' }] })
    // Typing the stored URL itself again is no change.
    expect(planSave(SETTINGS_TABLE, new Map([['store', 'postgres://ann:s3cret@db/x']]), v, 2)).toEqual({ kind: 'nothing' })
    // Without a password stored, *** is an ordinary value (here a password someone chose), judged as any draft.
    const plain = view({ store: 'postgres://ann@db/x' }, undefined, 2)
    expect(planSave(SETTINGS_TABLE, new Map([['store', 'postgres://ann:***@db/x']]), plain, 2))
      .toEqual({ kind: 'write', writes: [{ key: 'store', value: 'postgres://ann:***@db/x' }] })
  })

  it('refuses a malformed store or machine typed into the card, with the rule\'s reason', () => {
    const plan = planSave(SETTINGS_TABLE, new Map([['store', 'mysql://db/x'], ['machine', 'a\nb']]), view({}, undefined, 1), 1)
    expect(plan).toEqual({ kind: 'invalid', errors: {
      store: { en: 'store must be sqlite or a postgres:// URL; mysql: is another scheme.', zh: '应为 sqlite，或单行、不超过 2000 个字符的 postgres:// 或 postgresql:// URL。' },
      machine: { en: 'machine must have no control characters.', zh: '最多 64 个字符，且不含控制字符。' },
    } })
    expect(planSave(SETTINGS_TABLE, new Map([['machine', ' laptop ']]), view({}, undefined, 1), 1))
      .toEqual({ kind: 'write', writes: [{ key: 'machine', value: 'laptop' }] })
  })
})
