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
    expect(text.split('\n').slice(3)).toEqual(['--- user (seq 5, user) ---', 'thanks', '(2 earlier messages omitted)'])
  })

  it('caps max_messages at maxReadMessages', async () => {
    const { w, me } = world({ maxReadMessages: 2 })
    expect(await sessionsRead({ session_id: 'session-peer', max_messages: 100 }, w.call(me), w.deps)).toContain('(1 earlier message omitted)')
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
})
