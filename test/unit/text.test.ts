import { describe, expect, it } from 'vitest'
import { countChars, findForbiddenChar, oneLine, sanitizeForDisplay, truncateChars, truncateVisibly } from '../../src/testing.js'

describe('countChars', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(countChars('abc')).toBe(3)
    expect(countChars('😀')).toBe(1)
    expect(countChars('e\u0301')).toBe(2)
    expect(countChars('\uD800x')).toBe(2)
  })
})

describe('truncateChars', () => {
  it('keeps short text whole', () => {
    expect(truncateChars('hello', 5)).toEqual({ text: 'hello', totalChars: 5, omittedChars: 0 })
  })

  it('cuts at a code point limit and counts what was cut', () => {
    expect(truncateChars('abcdef', 4)).toEqual({ text: 'abcd', totalChars: 6, omittedChars: 2 })
  })

  // Every cut position through strings full of clusters: never split one.
  const clustered = [
    'a😀b😀c😀d',
    'e\u0301e\u0301e\u0301e\u0301',
    '👩‍👩‍👧‍👦x👩‍👩‍👧‍👦y',
    '🇫🇷🇩🇪🇯🇵',
    'क्षत्रिय',
    '\uD800lone\uDC00',
  ]
  it.each(clustered)('never splits a surrogate pair or grapheme cluster in %j', text => {
    const total = countChars(text)
    for (let limit = 0; limit <= total; limit++) {
      const result = truncateChars(text, limit)
      expect(countChars(result.text)).toBeLessThanOrEqual(limit)
      expect(result.omittedChars).toBe(total - countChars(result.text))
      expect(text.startsWith(result.text)).toBe(true)
      // The kept prefix ends on a grapheme boundary of the whole text.
      const boundaries = new Set([0, ...[...new Intl.Segmenter('und', { granularity: 'grapheme' }).segment(text)].map(s => s.index + s.segment.length)])
      expect(boundaries.has(result.text.length)).toBe(true)
    }
  })

  it('cuts a 10 MB body without segmenting all of it', () => {
    const body = 'x'.repeat(10_000_000)
    const result = truncateChars(body, 4000)
    expect(result.text.length).toBe(4000)
    expect(result.omittedChars).toBe(9_996_000)
  })
})

describe('truncateVisibly', () => {
  it('marks a cut with the visible marker and the number of characters cut', () => {
    expect(truncateVisibly('abcdef', 4)).toBe('abcd…[truncated 2 chars]')
    expect(truncateVisibly('abc', 4)).toBe('abc')
  })
})

describe('display helpers', () => {
  it('replaces control characters and lone surrogates, keeps tab and newline', () => {
    expect(sanitizeForDisplay('a\u0000b\tc\r\nd\uD800')).toBe('a\uFFFDb\tc\nd\uFFFD')
  })

  it('forces a value onto one line', () => {
    expect(oneLine('  first\nsecond\r\n\tthird\u2028fourth  ')).toBe('first second third fourth')
  })

  it('finds forbidden characters in a body by code point position', () => {
    expect(findForbiddenChar('fine\ttext\nhere\r')).toBeUndefined()
    expect(findForbiddenChar('😀a\u0000')).toEqual({ position: 3, codePoint: 'U+0000', kind: 'control character' })
    expect(findForbiddenChar('ab\uDC00')).toEqual({ position: 3, codePoint: 'U+DC00', kind: 'unpaired surrogate' })
    expect(findForbiddenChar('\u001b[31m')).toMatchObject({ codePoint: 'U+001B' })
  })
})
