import { describe, expect, it } from 'vitest'
import { classifyMessages, createFrameDecoder, currentSurfaceEvents, decodesExactly, frameContentSize, lastTitleIn, parseHeaderLine, planScan, planTitle, projectMessage, readableMessages, scanFrames, type ScannedLog } from '../../src/testing.js'
import { constants, zstdCompressSync } from 'node:zlib'
import { userEvent } from '../support/fakes.js'

function log(path: string, identity: string, size = 10): ScannedLog {
  return { path, dirName: path, identity, revision: `${identity}:${size}`, size }
}

describe('planScan', () => {
  it('re-reads a header only for a new path or a replaced file, and drops what is gone', () => {
    const known = new Map([['/a', { identity: '1:1', revision: '1:1:5' }], ['/b', { identity: '1:2', revision: '1:2:5' }], ['/gone', { identity: '1:3', revision: '1:3:5' }]])
    const plan = planScan(known, [log('/a', '1:1', 99), log('/b', '1:9'), log('/new', '1:4')])
    expect(plan.unchanged.map(item => item.path)).toEqual(['/a'])
    expect(plan.readHeader.map(item => item.path)).toEqual(['/b', '/new'])
    expect(plan.removed).toEqual(['/gone'])
  })
})

describe('planTitle', () => {
  const cached = { revision: '1:1:100', identity: '1:1', value: 'x', completeBytes: 100 }
  it('uses the cached title only at the exact revision it was folded at', () => {
    expect(planTitle(cached, { identity: '1:1', revision: '1:1:100', size: 100 })).toBe('cached')
    expect(planTitle(cached, { identity: '1:1', revision: '1:1:150', size: 150 })).toEqual({ from: 100 })
    expect(planTitle(cached, { identity: '1:1', revision: '1:1:50', size: 50 })).toBe('full') // repaired shorter
    expect(planTitle(cached, { identity: '1:2', revision: '1:2:150', size: 150 })).toBe('full') // replaced file
    expect(planTitle(undefined, { identity: '1:1', revision: '1:1:100', size: 100 })).toBe('full')
  })
})

describe('lastTitleIn', () => {
  it('takes the last session/title event, parsing only candidate lines', () => {
    const lines = [
      JSON.stringify({ type: 'session/title', seq: 1, data: { title: 'old' } }),
      JSON.stringify({ type: 'user/message', seq: 2, data: { content: [{ type: 'text', text: 'quote "session/title" here' }] } }),
      JSON.stringify({ type: 'session/title', seq: 3, data: { title: 'new' } }),
      JSON.stringify({ type: 'user/message', seq: 4, data: { content: [{ type: 'text', text: '"session/title"' }] } }),
    ]
    const bytes = (text: string) => Buffer.from(text, 'utf8')
    expect(lastTitleIn(bytes(lines.join('\n')))).toEqual({ found: true, value: 'new' })
    expect(lastTitleIn(bytes(lines.slice(0, 2).join('\n')))).toEqual({ found: true, value: 'old' })
    expect(lastTitleIn(bytes(`${lines.slice(0, 2).join('\n')}\n`).subarray(0))).toEqual({ found: true, value: 'old' })
    expect(lastTitleIn(bytes(lines[1]!))).toEqual({ found: false })
    expect(lastTitleIn(bytes(''))).toEqual({ found: false })
    expect(lastTitleIn(bytes(JSON.stringify({ type: 'session/title', data: { title: 'ünï 🙂' } })))).toEqual({ found: true, value: 'ünï 🙂' })
  })
})

describe('parseHeaderLine', () => {
  it('accepts only a session header naming its own directory', () => {
    const line = JSON.stringify({ type: 'session', version: 0, id: 'session-1', createdAt: 5, cwd: '/w' })
    expect(parseHeaderLine(line, 'session-1')).toEqual({ id: 'session-1', createdAt: 5, cwd: '/w' })
    expect(parseHeaderLine(line, 'session-2')).toBeUndefined()
    expect(parseHeaderLine('{"type":"turn/start"}', 'session-1')).toBeUndefined()
    expect(parseHeaderLine('{torn', 'session-1')).toBeUndefined()
  })
})

describe('scanFrames', () => {
  it('finds complete frames and stops at a torn final frame', () => {
    const frame = (text: string) => zstdCompressSync(Buffer.from(text), { params: { [constants.ZSTD_c_checksumFlag]: 1 } })
    const whole = Buffer.concat([frame('header\n'), frame('a\nb\n')])
    expect(scanFrames(whole)).toHaveLength(2)
    expect(scanFrames(whole.subarray(0, whole.length - 3))).toHaveLength(1)
    expect(scanFrames(whole, 1)).toHaveLength(1)
    expect(() => scanFrames(Buffer.from('not zstd at all'))).toThrow(/magic/)
  })
})

describe('createFrameDecoder', () => {
  it('decodes frame after frame with one context, large ones too, and rejects a corrupt one', () => {
    const frame = (text: string) => zstdCompressSync(Buffer.from(text), { params: { [constants.ZSTD_c_checksumFlag]: 1 } })
    const large = `${'x'.repeat(300_000)}\n`
    const decoder = createFrameDecoder()
    try {
      expect(decoder.decode(frame('one\n')).toString()).toBe('one\n')
      expect(decoder.decode(frame(large)).toString()).toBe(large)
      expect(decoder.decode(frame('two\n')).toString()).toBe('two\n')
      const bad = frame('three\n')
      bad[bad.length - 1]! ^= 0xff
      expect(() => decoder.decode(bad)).toThrow()
    } finally {
      decoder.close()
    }
  })
})

describe('frameContentSize and the decoder\'s output', () => {
  const compress = (text: string, declare: boolean) => zstdCompressSync(Buffer.from(text),
    { params: { [constants.ZSTD_c_checksumFlag]: 1, [constants.ZSTD_c_contentSizeFlag]: declare ? 1 : 0 } })

  it('reads the size a frame declares, in each field width, and nothing from a frame that leaves it out', () => {
    for (const length of [0, 1, 255, 256, 300, 65_791, 65_792, 300_000]) expect(frameContentSize(compress('y'.repeat(length), true))).toBe(length)
    expect(frameContentSize(compress('y'.repeat(300_000), false))).toBeUndefined()
    expect(frameContentSize(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]))).toBeUndefined()
  })

  it('trusts a declared size for one buffer from 64 KB to 64 MB, and above only as far as the frame\'s bytes make it plausible', () => {
    const MB = 1024 * 1024
    expect(decodesExactly(undefined, 1000)).toBe(false)
    expect(decodesExactly(64 * 1024 - 1, 1000)).toBe(false)
    expect(decodesExactly(64 * 1024, 10)).toBe(true)
    expect(decodesExactly(64 * MB, 10)).toBe(true)
    // A 100,000-event log's 1.7 MB frame declares 190 MB: one buffer. A 10-byte frame declaring 65 MB, or any frame
    // declaring more than 1 GiB: a corrupt header, decoded in chunks.
    expect(decodesExactly(190 * MB, 1.7 * MB)).toBe(true)
    expect(decodesExactly(65 * MB, 10)).toBe(false)
    expect(decodesExactly(256 * MB + 1, MB)).toBe(false)
    expect(decodesExactly(1024 * MB + 1, 100 * MB)).toBe(false)
  })

  it('decodes large frames with and without a declared size, each into output of its own', () => {
    const decoder = createFrameDecoder()
    try {
      const texts = ['a'.repeat(65_536), `${'b'.repeat(200_000)}\n`, `${'c'.repeat(150_001)}\n`]
      const declared = texts.map(text => decoder.decode(compress(text, true)))
      const undeclared = texts.map(text => decoder.decode(compress(text, false)))
      // A large frame's output outlives the next decode (only a small frame's is a view of the shared buffer).
      expect(declared.map(buffer => buffer.toString())).toEqual(texts)
      expect(undeclared.map(buffer => buffer.toString())).toEqual(texts)
      expect(decoder.decode(compress('small\n', true)).toString()).toBe('small\n')
    } finally {
      decoder.close()
    }
  })
})

describe('currentSurfaceEvents (port of rc.8 foldSurface)', () => {
  it('appends surface events and splices replacements; ignores log-only events', () => {
    const events = [
      { type: 'user/message', seq: 0, surfaceOp: 'append' },
      { type: 'turn/start', seq: 1 },
      { type: 'assistant/message', seq: 2, surfaceOp: 'append' },
      { type: 'tool/result', seq: 3, surfaceOp: 'append' },
      { type: 'user/message', seq: 4, surfaceOp: { op: 'replace', start: 0, end: 2 } },
    ]
    expect(currentSurfaceEvents(events).map(event => (event as { seq: number }).seq)).toEqual([4, 3])
    expect(() => currentSurfaceEvents([...events, { type: 'user/message', seq: 5, surfaceOp: { op: 'replace', start: 0, end: 0 } }])).toThrow(/invalid session surface/)
  })
})

describe('classifyMessages / projectMessage', () => {
  const events = [
    userEvent(1, 'plain'),
    { seq: 2, type: 'user/message', data: { role: 'user', content: [{ type: 'text', text: '  ' }, { type: 'text', text: '\n<system-reminder> x' }], source: { kind: 'user' } } },
    { seq: 3, type: 'user/message', data: { role: 'user', content: [{ type: 'image' }, { type: 'text', text: ' \t' }], source: { kind: 'user' } } },
    { seq: 4, type: 'user/message', data: { role: 'user', content: 7 } },
    userEvent(5, 'Current runtime context. now'),
  ]
  // What docs/tools.md "sessions_read" promises for these five: text blocks only (seq 3 has no text, so no
  // message), injected context by prefix after leading white space (seqs 2 and 5) shown only when asked for,
  // a message whose content is not a list of blocks counted as malformed (seq 4); text blocks joined by a newline.
  const plain = { seq: 1, role: 'user', source: 'user', text: 'plain', injected: false, replaced: false }
  const reminder = { seq: 2, role: 'user', source: 'user', text: '  \n\n<system-reminder> x', injected: true, replaced: false }
  const runtime = { seq: 5, role: 'user', source: 'user', text: 'Current runtime context. now', injected: true, replaced: false }

  it('classifies without building text: the seqs and flags the projection shows', () => {
    expect(classifyMessages(events, { includeInjected: false, includeSystem: false })).toMatchObject({ malformed: 1 })
    expect(classifyMessages(events, { includeInjected: false, includeSystem: false }).messages.map(entry => [entry.seq, entry.injected])).toEqual([[1, false]])
    expect(classifyMessages(events, { includeInjected: true, includeSystem: false }).messages.map(entry => [entry.seq, entry.injected])).toEqual([[1, false], [2, true], [5, true]])
  })

  it('projects each classified message to its row', () => {
    expect(readableMessages(events, { includeInjected: false, includeSystem: false })).toEqual({ messages: [plain], malformed: 1 })
    expect(readableMessages(events, { includeInjected: true, includeSystem: false })).toEqual({ messages: [plain, reminder, runtime], malformed: 1 })
    expect(classifyMessages(events, { includeInjected: true, includeSystem: false }).messages.map(projectMessage)).toEqual([plain, reminder, runtime])
  })
})
