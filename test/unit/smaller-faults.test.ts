/**
 * Smaller faults, each as a kind, with the other places of the same cause:
 * quadratic parsing, cuts inside a grapheme cluster, unclipped echoes of
 * untrusted values, inherited property names taken for settings, and
 * per-request state kept past its call (docs/architecture.md §5).
 */
import { describe, expect, it } from 'vitest'
import { buildFrame, countChars, createAgentsController, metadataSuffix, parseFrame, resolveSettings, sendRefusals as refusals, sessionsList, truncateChars, WokenSessions } from '../../src/testing.js'
import { FakeHost, userMessageEvent } from '../support/fake-host.js'
import { makeWorld, session } from '../support/fakes.js'

const ACUTE = '\u0301'
const FLAG = '\u{1F1EF}\u{1F1F5}'

describe('trailing white space of a frame (quadratic regular expression)', () => {
  it('parses a frame whose body is 40,000 spaces, and still tolerates trailing white space', () => {
    const body = ' '.repeat(40_000)
    const { text } = buildFrame({ fromSessionId: 'session-a', fromTitle: 't', mode: 'queue', hop: 1, body })
    expect(parseFrame(text)?.body).toBe(body)
    expect(parseFrame(`${text} \n\t\u2028\u00a0`)?.body).toBe(body)
    // Exactly the white space /\s/u knew: a non-space after the marker is not a frame.
    expect(parseFrame(`${text}\n.`)).toBeUndefined()
  })
})

describe('cuts by code point and grapheme cluster, never UTF-16 units', () => {
  it('an error message of surrogate pairs never reaches the model: only the failure table\'s row does (docs/tools.md "Refusals and their order")', async () => {
    const w = makeWorld()
    const me = session('session-me', 1, { live: true })
    w.corpus.add(me)
    w.corpus.listSessions = async () => {
      throw new Error(`${'a'.repeat(199)}😀😀😀`)
    }
    const text = await sessionsList({}, w.call(me), w.deps)
    expect(text.isWellFormed()).toBe(true)
    expect(text).not.toContain('😀')
    expect(text).toContain('listing sessions failed: an unexpected backend error (the details are in the host log)')
    expect(w.logs.join('\n')).toContain('😀😀😀')
  })

  it('a grapheme cluster longer than 256 UTF-16 units is never cut in the middle', () => {
    const long = `e${ACUTE.repeat(400)}`
    const text = `abc${long}xyz`
    const cut = truncateChars(text, 350)
    expect(cut.text).toBe('abc')
    expect(cut.omittedChars).toBe(countChars(text) - 3)
  })

  it('a long run of flags is cut between flags, never between the two halves of one', () => {
    const flags = FLAG.repeat(300)
    for (const limit of [201, 202, 399, 400, 451]) {
      const kept = truncateChars(flags, limit).text
      expect(countChars(kept) % 2).toBe(0)
      expect(kept).toBe(FLAG.repeat(Math.floor(limit / 2)))
    }
  })

  it('a long workspace path keeps its end on a grapheme boundary', () => {
    const cwd = `/work/${`e${ACUTE}`.repeat(200)}`
    const suffix = metadataSuffix({ id: 's', createdAt: 0, cwd })
    const shown = suffix.slice(' | cwd=…'.length)
    expect(suffix.startsWith(' | cwd=…')).toBe(true)
    expect(shown.startsWith(ACUTE)).toBe(false)
    expect(countChars(shown)).toBeLessThanOrEqual(119)
  })
})

describe('untrusted values are echoed clipped', () => {
  it('sessions_list clips the query it echoes', async () => {
    const w = makeWorld()
    const me = session('session-me', 1, { live: true })
    w.corpus.add(me)
    const query = 'q'.repeat(20_000)
    const text = await sessionsList({ query }, w.call(me), w.deps)
    const line = text.split('\n').find(candidate => candidate.startsWith('No session matched query'))
    expect(line).toBeDefined()
    expect(countChars(line ?? '')).toBeLessThan(200)
  })

  it('refusals clip a model-written session id', () => {
    const id = 'x'.repeat(50_000)
    for (const refusal of [refusals.resumeDisabled(id), refusals.selfTarget(id), refusals.notMessageable(id, id), refusals.pairRate(id, 1, 1, 1), refusals.duplicate(id, 1)]) {
      expect(countChars(`${refusal.cause} ${refusal.next}`)).toBeLessThan(600)
    }
  })
})

describe('settings keys named like Object.prototype members', () => {
  it('are unknown settings, with the note', () => {
    for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      const raw = JSON.parse(`{${JSON.stringify(key)}: 1}`) as unknown
      expect(resolveSettings(raw).notes).toEqual([`unknown setting "${key}" ignored`])
    }
  })

  it('a hostile-long unknown key is clipped in its note', () => {
    const [note] = resolveSettings({ ['k'.repeat(10_000)]: 1 }).notes
    expect(countChars(note ?? '')).toBeLessThan(120)
  })
})

describe('per-request bookkeeping does not outlive its call', () => {
  it('admission hands the log mark back with the call instead of keeping it in the adapter', async () => {
    const host = new FakeHost()
    const agent = host.goLive('session-peer', 1, [userMessageEvent(0, 'old', 'an earlier prompt')])
    const services = host.context()
    const port = createAgentsController(services.agents, undefined, new WokenSessions())
    const target = { sessionId: 'session-peer', woke: false, running: false }
    const admitted = await port.admit(target, { requestId: 'r1', mode: 'queue', text: 'hi', provenance: { senderSessionId: 'session-me', hop: 1 }, signal: new AbortController().signal })
    expect(admitted).toEqual({ ok: true, value: { mode: 'queue', running: false, recordFrom: 1 } })
    // A call cancelled here never calls waitRecorded: nothing is left behind
    // to leak, because the mark lives in the call's own result.
    const recorded = await port.waitRecorded(target, 'r1', { timeoutMs: 10, signal: new AbortController().signal, settleForInbox: false, from: 1 })
    expect(recorded?.stage).toBe('conversation')
    expect(agent.session.events.length).toBeGreaterThan(1)
  })
})
