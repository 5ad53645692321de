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

describe('resolveSettings: the text settings (docs/architecture.md §6, "Text")', () => {
  it('takes a good store and machine, trimmed, silently; empty is a value too', () => {
    const { settings, notes } = resolveSettings({ store: ' postgres://ann@db.example:5432/dsh?sslmode=require ', machine: '  laptop ' })
    expect(settings).toMatchObject({ store: 'postgres://ann@db.example:5432/dsh?sslmode=require', machine: 'laptop' })
    expect(notes).toEqual([])
    expect(resolveSettings({ store: '', machine: '' })).toEqual({ settings: { ...DEFAULT_SETTINGS, store: '', machine: '' }, notes: [] })
    expect(resolveSettings({ store: 'postgresql://db/x', machine: 'é'.repeat(64) }).notes).toEqual([])
  })

  it.each([
    ['store', 5, 'store: expected text, got number 5; using "sqlite"'],
    ['store', { url: 'postgres://ann:s3cret@db/x' }, 'store: expected text, got an object; using "sqlite"'],
    ['machine', null, 'machine: expected text, got null; using ""'],
    ['machine', ['a'], 'machine: expected text, got an array; using ""'],
  ])('a %s that is not text (%j) takes the default and says so', (key, value, note) => {
    const { settings, notes } = resolveSettings({ [key]: value })
    expect(settings[key as 'store' | 'machine']).toBe(DEFAULT_SETTINGS[key as 'store' | 'machine'])
    expect(notes).toEqual([note])
  })

  it('a machine name of more than 64 characters, or with a control character, takes the default and says why', () => {
    expect(resolveSettings({ machine: 'é'.repeat(65) })).toEqual({
      settings: DEFAULT_SETTINGS, notes: ['machine must be at most 64 characters; this one has 65; using ""'],
    })
    for (const name of ['lap\ntop', 'a\u0007', 'tab\there', 'c1\u0085']) {
      expect(resolveSettings({ machine: name })).toEqual({ settings: DEFAULT_SETTINGS, notes: ['machine must have no control characters; using ""'] })
    }
  })

  it('a malformed store is kept as given (never replaced by sqlite), with a note saying what is wrong', () => {
    for (const [store, why] of [
      ['mysql://ann@db/dsh', 'store must be sqlite or a postgres:// URL; mysql: is another scheme'],
      ['sqlite3', 'store must be sqlite or a postgres:// URL; "sqlite3" is neither'],
      ['postgres://d\nb/x', 'store must be sqlite or a postgres:// URL on one line; this one holds a control character'],
    ]) {
      const { settings, notes } = resolveSettings({ store: ` ${store} ` })
      expect(settings.store).toBe(store)
      expect(notes).toEqual([`${why}; kept as given, not replaced by "sqlite"`])
    }
    const long = `postgres://db/${'x'.repeat(2000)}`
    expect(resolveSettings({ store: long })).toEqual({
      settings: { ...DEFAULT_SETTINGS, store: long },
      notes: ['store must be at most 2000 characters; this one has 2014; kept as given, not replaced by "sqlite"'],
    })
  })

  it('never puts a password in a note, however the store is malformed', () => {
    for (const store of ['mysql://ann:s3cret@db/dsh', 'ann:s3cret@db', 'post gres://ann:s3cret@db', 'postgres://app:s3cret/x@db/x',
      'postgres://db:99999999/x?password=s3cret', 'postgres://ann:s3cret@db:port/x', `postgres://ann:s3cret@db/${'x'.repeat(2000)}`]) {
      const { settings, notes } = resolveSettings({ store })
      expect(settings.store).toBe(store)
      expect(notes).toHaveLength(1)
      expect(notes[0]).not.toContain('s3cret')
    }
    // A good URL with a password resolves silently: nothing is printed at all.
    expect(resolveSettings({ store: 'postgres://ann:s3cret@db/x' }).notes).toEqual([])
  })

  it('a note quoting a long malformed store stays one short line', () => {
    const { notes } = resolveSettings({ store: `x${'y'.repeat(1500)}` })
    expect(notes).toHaveLength(1)
    expect([...notes[0]!].length).toBeLessThan(400)
  })
})
