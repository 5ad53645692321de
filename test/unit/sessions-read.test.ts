import { describe, expect, it } from 'vitest'
import { buildFrame, relaySource, sessionsRead } from '../../src/testing.js'
import { assistantEvent, makeWorld, session, toolResultEvent, userEvent } from '../support/fakes.js'

function world(settings = {}) {
  const w = makeWorld(settings)
  const me = session('session-me', 5000, { live: true })
  const peer = session('session-peer', 1000, {
    title: 'Fix the newapi reasoning-effort config',
    events: [
      userEvent(1, 'Current runtime context.\ncwd: /x', { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' }),
      userEvent(2, 'the reasoning selector is empty for every model'),
      assistantEvent(3, 'fixed. root cause: reasoningEfforts was never declared per model entry', [{ type: 'reasoning', text: 'hmm' }]),
      toolResultEvent(4, 'ls output'),
      userEvent(5, 'thanks'),
    ],
  })
  w.corpus.add(me).add(peer)
  return { w, me, peer }
}

describe('sessions_read', () => {
  it('prints the window of docs/tools.md#sessions_read: header, newest first, provenance, injected hidden', async () => {
    const { w, me } = world()
    const text = await sessionsRead({ session_id: 'session-peer' }, w.call(me), w.deps)
    expect(text).toBe([
      'session session-peer [cold, top-level] | cwd=/work/project | preset=standard',
      'title: Fix the newapi reasoning-effort config',
      'readable messages: 3 | captured through seq: 5',
      '--- user (seq 5, user) ---',
      'thanks',
      '--- assistant (seq 3, model:deepseek/deepseek-v4-flash) ---',
      'fixed. root cause: reasoningEfforts was never declared per model entry',
      '--- user (seq 2, user) ---',
      'the reasoning selector is empty for every model',
    ].join('\n'))
  })

  it('shows injected context, marked, with include_injected', async () => {
    const { w, me } = world()
    const text = await sessionsRead({ session_id: 'session-peer', include_injected: true }, w.call(me), w.deps)
    expect(text).toContain('--- user (seq 1, plugin:@deepseek-ai/dsh-system-prompt, harness-injected) ---')
    expect(text).toContain('readable messages: 4')
  })

  it('follows includeInjectedByDefault when the argument is absent', async () => {
    const { w, me } = world({ includeInjectedByDefault: true })
    expect(await sessionsRead({ session_id: 'session-peer' }, w.call(me), w.deps)).toContain('harness-injected')
  })

  it('reports the true live state from the non-waking lookup', async () => {
    const { w, me, peer } = world()
    peer.live = true
    expect(await sessionsRead({ session_id: 'session-peer' }, w.call(me), w.deps)).toMatch(/^session session-peer \[live, top-level\]/)
  })

  it('keeps the newest max_messages and says how many earlier ones were omitted', async () => {
    const { w, me } = world()
    const text = await sessionsRead({ session_id: 'session-peer', max_messages: 1 }, w.call(me), w.deps)
    expect(text.split('\n').slice(3)).toEqual(['--- user (seq 5, user) ---', 'thanks', '(before_seq 5 reads the earlier messages)', '(2 earlier messages omitted)'])
  })

  it('caps max_messages at maxReadMessages', async () => {
    const { w, me } = world({ maxReadMessages: 2 })
    expect(await sessionsRead({ session_id: 'session-peer', max_messages: 100 }, w.call(me), w.deps)).toContain('(before_seq 3 reads the earlier messages)\n(1 earlier message omitted)')
  })

  it('truncates a long message visibly, counting code points', async () => {
    const { w, me, peer } = world({ maxMessageChars: 100 })
    peer.events.push(userEvent(6, `${'😀'.repeat(150)}`))
    const text = await sessionsRead({ session_id: 'session-peer', max_messages: 1 }, w.call(me), w.deps)
    expect(text).toContain(`${'😀'.repeat(100)}…[truncated 50 chars]`)
  })

  it('labels a message this plugin delivered with its recorded sender', async () => {
    const { w, me, peer } = world()
    peer.events.push(userEvent(6, buildFrame({ fromSessionId: 'session-me', fromTitle: 'Me', mode: 'queue', hop: 1, body: 'ping' }).text, relaySource({ senderSessionId: 'session-me', hop: 1 })))
    const text = await sessionsRead({ session_id: 'session-peer', max_messages: 1 }, w.call(me), w.deps)
    expect(text).toContain('--- user (seq 6, peer:session-me, hop 1) ---\nping')
  })

  it('labels a notice this package delivered as one (docs/tools.md#notices), whatever its text', async () => {
    const { w, me, peer } = world()
    peer.events.push(userEvent(6, 'Cross-session notice from the dsh-cross-session package (not a message from your user).\n…', relaySource({ senderSessionId: 'session-me', hop: 2, notice: 'completed' })))
    const text = await sessionsRead({ session_id: 'session-peer', max_messages: 1 }, w.call(me), w.deps)
    expect(text).toContain('--- user (seq 6, peer:session-me, hop 2, notice) ---\nCross-session notice from the dsh-cross-session package')
  })

  it('include_system shows plugin-authored notices, labelled; they are hidden by default', async () => {
    const { w, me, peer } = world()
    peer.events.push(userEvent(6, 'Skills available: review, deploy', { kind: 'plugin', plugin: '@deepseek-ai/dsh-skill', form: 'catalog' }))
    expect(await sessionsRead({ session_id: 'session-peer' }, w.call(me), w.deps)).not.toContain('Skills available')
    const shown = await sessionsRead({ session_id: 'session-peer', include_system: true }, w.call(me), w.deps)
    expect(shown).toContain('--- user (seq 6, plugin:@deepseek-ai/dsh-skill/catalog) ---\nSkills available: review, deploy')
  })

  it('makes one surface read and one title read, no listing, no controller call', async () => {
    const { w, me } = world()
    await sessionsRead({ session_id: 'session-peer' }, w.call(me), w.deps)
    expect(w.corpus.calls).toEqual({ readSurface: 1, readTitles: 1, isLive: 1 })
    expect(w.controller.log).toEqual([])
  })

  it('never wakes a cold session', async () => {
    const { w, me, peer } = world()
    await sessionsRead({ session_id: 'session-peer' }, w.call(me), w.deps)
    expect(peer.live).toBe(false)
    expect(w.controller.calls).toEqual({})
  })

  it('refuses an unknown id as not-found', async () => {
    const { w, me } = world()
    expect(await sessionsRead({ session_id: 'session-nope' }, w.call(me), w.deps)).toBe([
      'refused: not-found | no session with id "session-nope"',
      'Nothing was read. Re-run sessions_list for a valid id and pass it exactly as printed.',
    ].join('\n'))
  })

  it('with visibility workspace, another workspace reads exactly like a missing id', async () => {
    const { w, me, peer } = world({ visibility: 'workspace' })
    peer.header = { ...peer.header, cwd: '/elsewhere' }
    const hidden = await sessionsRead({ session_id: 'session-peer' }, w.call(me), w.deps)
    const missing = await sessionsRead({ session_id: 'session-nope' }, w.call(me), w.deps)
    expect(hidden.replace('session-peer', 'X')).toBe(missing.replace('session-nope', 'X'))
  })

  it('refuses an empty id or one with white space as invalid-arguments, before any backend call', async () => {
    const { w, me } = world()
    expect(await sessionsRead({ session_id: '' }, w.call(me), w.deps)).toMatch(/^refused: invalid-arguments \| argument "session_id" is empty/)
    expect(await sessionsRead({ session_id: 'session-peer ' }, w.call(me), w.deps)).toMatch(/^refused: invalid-arguments \| argument "session_id" contains white space/)
    expect(w.corpus.calls).toEqual({})
  })

  it('never exceeds maxReadMessages × (maxMessageChars + 200) characters, even with hostile-long headers', async () => {
    const { w, me, peer } = world({ maxReadMessages: 1, maxMessageChars: 100 })
    peer.header = { ...peer.header, cwd: `/${'deep/'.repeat(100)}`, agentPreset: 'p'.repeat(500) }
    peer.title = 'T'.repeat(1000)
    peer.events.push(userEvent(6, 'x'.repeat(5000), { kind: 'plugin', plugin: 'q'.repeat(300), form: 'f'.repeat(300) }))
    const text = await sessionsRead({ session_id: 'session-peer', include_injected: true }, w.call(me), w.deps)
    expect([...text].length).toBeLessThanOrEqual(300)
    expect(text).toMatch(/…\[truncated \d+ chars\]$/)
  })

  it('says when there is nothing readable', async () => {
    const { w, me } = world()
    expect(await sessionsRead({ session_id: 'session-me' }, w.call(me), w.deps)).toContain('(no readable messages)')
  })

  describe('cursors (after_seq, before_seq)', () => {
    /** A surface of ten user/assistant messages at seq 10, 20, …, 100, plus a plugin notice at 55 and injected context at 65. */
    function long(settings = {}) {
      const w = makeWorld(settings)
      const me = session('session-me', 5000, { live: true })
      const events: unknown[] = []
      for (let i = 1; i <= 10; i++) events.push(i % 2 === 1 ? userEvent(i * 10, `q${i * 10}`) : assistantEvent(i * 10, `a${i * 10}`))
      events.splice(5, 0, userEvent(55, 'Skills available: x', { kind: 'plugin', plugin: 'p', form: 'catalog' }))
      events.splice(7, 0, userEvent(65, '<system-reminder>ctx</system-reminder>'))
      const peer = session('session-peer', 1000, { title: 'Long', events })
      w.corpus.add(me).add(peer)
      return { w, me, peer }
    }
    const read = async (args: Record<string, unknown>, settings = {}) => {
      const { w, me } = long(settings)
      return sessionsRead({ session_id: 'session-peer', ...args }, w.call(me), w.deps)
    }
    const seqs = (text: string) => [...text.matchAll(/\(seq (\d+),/g)].map(m => Number(m[1]))
    const cursorOf = (text: string) => text.split('\n')[3]

    it('after_seq 0 reads forward from the start: the oldest max_messages, newest first, with both cursors', async () => {
      const text = await read({ after_seq: 0, max_messages: 3 })
      expect(seqs(text)).toEqual([30, 20, 10])
      expect(cursorOf(text)).toBe('after_seq 0 | newer: 7 (after_seq 30) | older: 0')
      expect(text).not.toContain('omitted')
    })

    it('after_seq in the middle returns only what was recorded after it', async () => {
      const text = await read({ after_seq: 40 })
      expect(seqs(text)).toEqual([100, 90, 80, 70, 60, 50])
      expect(cursorOf(text)).toBe('after_seq 40 | newer: 0 | older: 4 (before_seq 50)')
    })

    it('the next cursor reads exactly the rest, with no gap and no overlap', async () => {
      const seen: number[] = []
      let after = 0
      for (let page = 0; page < 10; page++) {
        const text = await read({ after_seq: after, max_messages: 4 })
        const shown = seqs(text).reverse()
        if (shown.length === 0) break
        seen.push(...shown)
        const next = /newer: \d+ \(after_seq (\d+)\)/.exec(cursorOf(text)!)
        if (next === null) break
        after = Number(next[1])
      }
      expect(seen).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100])
    })

    it('after_seq past the end: a header with no messages, not an error', async () => {
      const text = await read({ after_seq: 100 })
      expect(text.split('\n').slice(2)).toEqual([
        'readable messages: 10 | captured through seq: 100',
        'after_seq 100 | newer: 0 | older: 10 (before_seq 101)',
        '(no readable messages in this range)',
      ])
      expect(await read({ after_seq: 1_000_000 })).toContain('after_seq 1000000 | newer: 0 | older: 10 (before_seq 1000001)')
    })

    it('before_seq pages back: the newest max_messages before it', async () => {
      const text = await read({ before_seq: 70, max_messages: 2 })
      expect(seqs(text)).toEqual([60, 50])
      expect(cursorOf(text)).toBe('before_seq 70 | newer: 4 (after_seq 60) | older: 4 (before_seq 50)')
    })

    it('before_seq before the start (0, or at the first seq): a header with no messages', async () => {
      expect(cursorOf(await read({ before_seq: 0 }))).toBe('before_seq 0 | newer: 10 (after_seq 0) | older: 0')
      const atFirst = await read({ before_seq: 10 })
      expect(cursorOf(atFirst)).toBe('before_seq 10 | newer: 10 (after_seq 9) | older: 0')
      expect(atFirst).toContain('(no readable messages in this range)')
    })

    it('both at once keep the open range between them, reading forward', async () => {
      const text = await read({ after_seq: 20, before_seq: 80, max_messages: 2 })
      expect(seqs(text)).toEqual([40, 30])
      expect(cursorOf(text)).toBe('after_seq 20, before_seq 80 | newer: 6 (after_seq 40) | older: 2 (before_seq 30)')
    })

    it('an inverted or empty range is a header with no messages, the cursors at the asked bounds', async () => {
      const inverted = await read({ after_seq: 80, before_seq: 30 })
      expect(seqs(inverted)).toEqual([])
      expect(cursorOf(inverted)).toBe('after_seq 80, before_seq 30 | newer: 2 (after_seq 80) | older: 2 (before_seq 30)')
      expect(cursorOf(await read({ after_seq: 30, before_seq: 31 }))).toBe('after_seq 30, before_seq 31 | newer: 7 (after_seq 30) | older: 3 (before_seq 31)')
    })

    it('max_messages is still capped by maxReadMessages under a cursor', async () => {
      const text = await read({ after_seq: 0, max_messages: 100 }, { maxReadMessages: 3 })
      expect(seqs(text)).toEqual([30, 20, 10])
    })

    it('counts and cursors follow include_system and include_injected', async () => {
      const plain = await read({ after_seq: 50, max_messages: 1 })
      expect(seqs(plain)).toEqual([60])
      const all = await read({ after_seq: 50, max_messages: 2, include_system: true, include_injected: true })
      expect(seqs(all)).toEqual([60, 55])
      expect(cursorOf(all)).toBe('after_seq 50 | newer: 5 (after_seq 60) | older: 5 (before_seq 55)')
      expect(all).toContain('readable messages: 12')
    })

    it('a long message in a cursor window is still cut visibly', async () => {
      const { w, me, peer } = long({ maxMessageChars: 10 })
      peer.events.push(userEvent(110, 'x'.repeat(50)))
      const text = await sessionsRead({ session_id: 'session-peer', after_seq: 100 }, w.call(me), w.deps)
      expect(text).toContain(`${'x'.repeat(10)}…[truncated 40 chars]`)
    })

    it('refuses a negative or fractional cursor as invalid-arguments, before any backend call', async () => {
      expect(await read({ after_seq: -1 })).toMatch(/^refused: invalid-arguments/)
      expect(await read({ before_seq: 1.5 })).toMatch(/^refused: invalid-arguments/)
      expect(await read({ after_seq: '3' })).toMatch(/^refused: invalid-arguments/)
    })

    describe('on a compacted surface (the checkpoint sits first but carries a later seq)', () => {
      // rc.8 @deepseek-ai/dsh-compaction-basic@0.1.0-rc.8 lib/index.js `commitCompactionBody`: the checkpoint
      // user/message is appended at a new seq with surfaceOp replace, and takes the place of the span it replaced.
      function compacted() {
        const w = makeWorld()
        const me = session('session-me', 5000, { live: true })
        const events = [
          userEvent(110, 'checkpoint', { kind: 'user' }, { surfaceOp: { op: 'replace', start: 10, end: 60 } }),
          userEvent(70, 'q70'), assistantEvent(80, 'a80'), userEvent(90, 'q90'), assistantEvent(100, 'a100'),
          userEvent(120, 'q120'), assistantEvent(130, 'a130'),
        ]
        w.corpus.add(me).add(session('session-peer', 1000, { title: 'Compacted', events }))
        return (args: Record<string, unknown>) => sessionsRead({ session_id: 'session-peer', ...args }, w.call(me), w.deps)
      }

      it('a read that shows every message omits none, and keeps the surface order (checkpoint last)', async () => {
        const text = await compacted()({})
        expect(seqs(text)).toEqual([130, 120, 100, 90, 80, 70, 110])
        expect(text).not.toContain('omitted')
      })

      it('a cut read counts what it left out, and its before_seq reads exactly that', async () => {
        const read = compacted()
        const text = await read({ max_messages: 3 })
        expect(seqs(text)).toEqual([130, 120, 110])
        expect(text.endsWith('(before_seq 110 reads the earlier messages)\n(4 earlier messages omitted)')).toBe(true)
        expect(seqs(await read({ before_seq: 110 }))).toEqual([100, 90, 80, 70])
      })

      it('reading forward with the next cursor shows every message once: no gap, no overlap', async () => {
        const read = compacted()
        const seen: number[] = []
        let after = 0
        for (let page = 0; page < 10; page++) {
          const text = await read({ after_seq: after, max_messages: 2 })
          seen.push(...seqs(text))
          const next = /newer: \d+ \(after_seq (\d+)\)/.exec(cursorOf(text)!)
          if (next === null) break
          after = Number(next[1])
        }
        expect([...seen].sort((a, b) => a - b)).toEqual([70, 80, 90, 100, 110, 120, 130])
        expect(cursorOf(await read({ after_seq: 0, max_messages: 2 }))).toBe('after_seq 0 | newer: 5 (after_seq 80) | older: 0')
      })
    })
  })
})
