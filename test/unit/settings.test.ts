import { describe, expect, it } from 'vitest'
import { DEFAULT_SETTINGS, resolveSettings, SETTING_KEYS } from '../../src/testing.js'

describe('resolveSettings', () => {
  it('gives the documented defaults (docs/tools.md#settings) for no config, silently', () => {
    for (const raw of [undefined, null, {}]) {
      const { settings, notes } = resolveSettings(raw)
      expect(settings).toEqual(DEFAULT_SETTINGS)
      expect(notes).toEqual([])
    }
    expect(DEFAULT_SETTINGS).toMatchObject({
      enabled: true, defaultSendMode: 'queue', allowResume: true, frameMessages: true,
      includeInjectedByDefault: false, maxListResults: 25, maxReadMessages: 12, maxMessageChars: 1200,
      maxSendChars: 4000, visibility: 'all', maxSendsPerMinute: 6, maxHops: 4,
    })
  })

  it('takes valid values as given', () => {
    const { settings, notes } = resolveSettings({ enabled: false, defaultSendMode: 'steer', visibility: 'workspace', maxHops: 7, maxListResults: 200 })
    expect(settings).toMatchObject({ enabled: false, defaultSendMode: 'steer', visibility: 'workspace', maxHops: 7, maxListResults: 200 })
    expect(notes).toEqual([])
  })

  it.each([
    ['maxListResults', 0, 1],
    ['maxListResults', 1000, 200],
    ['maxReadMessages', -5, 1],
    ['maxMessageChars', 5, 100],
    ['maxSendChars', 1e9, 40000],
    ['maxSendsPerMinute', 121, 120],
    ['maxHops', 0, 1],
    ['maxHops', 33, 32],
    ['maxHops', 4.6, 5],
    ['maxListResults', Number.POSITIVE_INFINITY, 200],
  ])('clamps %s=%s to %s and says so', (key, value, expected) => {
    const { settings, notes } = resolveSettings({ [key]: value })
    expect(settings[key as keyof typeof settings]).toBe(expected)
    expect(notes).toHaveLength(1)
    expect(notes[0]).toContain(key)
  })

  it.each([
    ['enabled', 'no'],
    ['allowResume', 1],
    ['defaultSendMode', 'shout'],
    ['visibility', 'none'],
    ['maxHops', '4'],
    ['maxHops', Number.NaN],
    ['frameMessages', null],
  ])('falls back to the default for %s=%j and says so', (key, value) => {
    const { settings, notes } = resolveSettings({ [key]: value })
    expect(settings[key as keyof typeof settings]).toBe(DEFAULT_SETTINGS[key as keyof typeof DEFAULT_SETTINGS])
    expect(notes.join('\n')).toContain(key)
  })

  it('ignores unknown keys and non-object configs with a note, never throwing', () => {
    expect(resolveSettings({ maxHop: 3 }).notes).toEqual(['unknown setting "maxHop" ignored'])
    for (const raw of ['yes', 42, [1, 2], true]) {
      const { settings, notes } = resolveSettings(raw)
      expect(settings).toEqual(DEFAULT_SETTINGS)
      expect(notes).toHaveLength(1)
    }
  })

  it('resolves every documented key', () => {
    expect(SETTING_KEYS).toEqual(Object.keys(DEFAULT_SETTINGS))
  })
})
