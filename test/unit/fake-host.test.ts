/**
 * The fake host (test/support/fake-host.ts) against the published rc.8 code
 * it was ported from, installed under e2e/node_modules: every log the fake
 * agent writes must replay in `@deepseek-ai/dsh-session@0.1.0-rc.8`
 * `Session.create` (contiguous seqs from 0, surface markers, message
 * shapes), its inbox must replay to the same pending lists in
 * `@deepseek-ai/dsh-agent@0.1.0-rc.8` `Inbox`, and its surface fold, title
 * fold and turn closers must agree with `foldSurface`,
 * `foldSessionTitle` (`@deepseek-ai/dsh-session-title@0.1.0-rc.8`) and
 * `interruptedTurnClosers`. The query service's own rules (order, live
 * precedence, `capturedThroughSeq`, the abort signal) are checked as
 * `SessionQueryEngine` documents them (lib/types/index.d.ts).
 *
 * Without the e2e install (`node scripts/setup.mjs`) the comparison skips
 * with one line, except under CI, where it fails.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { FakeHost, foldSurface, type LogEvent } from '../support/fake-host.js'

const LIB = join(import.meta.dirname, '..', '..', 'e2e', 'node_modules', '@deepseek-ai')
const installed = existsSync(join(LIB, 'dsh-session', 'lib', 'index.js'))
const ci = !['', '0', 'false'].includes((process.env.CI ?? '').trim().toLowerCase())
if (!installed && !ci) console.warn(`fake-host conformance skipped: rc.8 is not installed under ${LIB} (run node scripts/setup.mjs)`)

const load = async (name: string): Promise<any> => await import(pathToFileURL(join(LIB, name, 'lib', 'index.js')).href)

const message = (id: string, text: string) => ({ id, role: 'user' as const, content: [{ type: 'text' as const, text }], source: { kind: 'plugin', plugin: 'dsh-cross-session', form: 'relay', senderSessionId: 'session-a', hop: 1 } })

describe.skipIf(!installed && !ci)('the fake host against rc.8\'s published code', () => {
  let rc8: { session: any, agent: any, title: any }
  beforeAll(async () => {
    if (!installed) throw new Error(`rc.8 is not installed under ${LIB}: run node scripts/setup.mjs (CI: the fake cannot be checked against it)`)
    rc8 = { session: await load('dsh-session'), agent: await load('dsh-agent'), title: await load('dsh-session-title') }
  })

  /** A log the fake agent wrote: a prompt turn, a steer into a held turn, a queued followup, then a cancel. */
  async function writtenLog() {
    const host = new FakeHost()
    const agent = host.goLive('session-x', 1)
    agent.prompt('first')
    await agent.whenIdle()
    const held = agent.prompt('a long job', { hold: true })!
    await held.reached
    agent.steer(message('m-steer', 'change of plan'))
    agent.followup(message('m-queue', 'when you are done'))
    held.release()
    await agent.whenIdle()
    const second = agent.prompt('another long job', { hold: true })!
    await second.reached
    agent.followup(message('m-dropped', 'never runs'))
    agent.cancel({ kind: 'disposed' })
    await agent.whenIdle()
    return agent
  }

  it('writes logs rc.8 replays (Session.create), seqs from 0', async () => {
    const agent = await writtenLog()
    const events = agent.session.events
    expect(events.map(event => event.seq)).toEqual(events.map((_, index) => index))
    expect(() => rc8.session.Session.create('session-x', structuredClone(events), structuredClone(agent.session.header))).not.toThrow()
  })

  it('leaves the inbox rc.8 replays from that log (Inbox), and turn ends rc.8 accounts for', async () => {
    const agent = await writtenLog()
    const inbox = new rc8.agent.Inbox({ events: agent.session.events, header: agent.session.header }, { inserted() {}, discarded() {}, claimed() {} })
    expect([inbox.nextTurn, inbox.nextStep]).toEqual([[], []])
    // The steer joined turn 2, the queued message ran as turn 3, the cancelled one never ran (turn 4 aborted).
    const turnOf = (id: string): number | undefined => {
      let turn: number | undefined
      for (const event of agent.session.events) {
        if (event.type === 'turn/start') turn = event.data.turn
        if (event.type === 'user/message' && event.data.id === id) return turn
      }
      return undefined
    }
    expect([turnOf('m-steer'), turnOf('m-queue'), turnOf('m-dropped')]).toEqual([2, 3, undefined])
    expect(agent.session.events.filter(event => event.type === 'turn/end').map(event => event.data.reason.kind)).toEqual(['completed', 'completed', 'completed', 'aborted'])
    // rc.8's account of consumed work: the last turn that stepped (4, aborted) closes it; the cancelled message is a canceled splice.
    expect(rc8.agent.foldConsumedWork(agent.session.events).end?.data).toEqual({ turn: 4, reason: { kind: 'aborted', reason: { kind: 'disposed' } } })
    expect(agent.session.events.filter(event => event.type === 'agent/inbox/spliced' && event.data.outcome === 'canceled').map(event => event.data.removedCount)).toEqual([1])
  })

  it('folds the surface as rc.8 does, compaction replacements included', async () => {
    const agent = await writtenLog()
    const events: LogEvent[] = structuredClone(agent.session.events)
    expect(foldSurface(events)).toEqual(rc8.session.foldSurface(events).nodes)
    // A compaction summary replacing the first two surface nodes.
    const [first, second] = rc8.session.foldSurface(events).nodes as number[]
    events.push({ type: 'user/message', seq: events.length, time: 1, data: { id: 'summary', role: 'user', content: [{ type: 'text', text: 'summary' }], source: { kind: 'plugin', plugin: 'compaction' } }, surfaceOp: { op: 'replace', start: first!, end: second! }, sourceEventSeqs: [first!, second!] })
    expect(foldSurface(events)).toEqual(rc8.session.foldSurface(events).nodes)
    const bad = [...events, { ...events.at(-1)!, seq: events.length, surfaceOp: { op: 'replace' as const, start: first!, end: first! } }]
    expect(() => rc8.session.foldSurface(bad)).toThrow()
    expect(() => foldSurface(bad)).toThrow()
  })

  it('reads titles, surfaces and headers as SessionQueryEngine does, live sessions included', async () => {
    const host = new FakeHost()
    const agent = host.goLive('session-live', 5, [], { title: 'Live title' })
    agent.prompt('hello')
    await agent.whenIdle()
    host.persist('session-b', 3, { title: 'Stored title' })
    host.persist('session-a', 3)
    host.persist('session-empty', 1)
    const query = host.services.sessionQuery as { listSessions(signal?: AbortSignal): Promise<any[]>, readTitleSnapshots(ids: string[]): Promise<any[]>, readSurface(id: string): Promise<any> }
    // Newest first, ties by id; the live session's record carries its own header.
    expect((await query.listSessions()).map(record => [record.header.id, record.live, record.persisted])).toEqual([['session-live', true, false], ['session-a', false, true], ['session-b', false, true], ['session-empty', false, true]])
    const aborted = new AbortController()
    aborted.abort(new Error('cancelled'))
    await expect(query.listSessions(aborted.signal)).rejects.toThrow('cancelled')
    const titles = await query.readTitleSnapshots(['session-live', 'session-b', 'session-ghost'])
    expect(titles.map(result => [result.sessionId, result.status, result.value?.title?.title, result.value?.session?.id])).toEqual([['session-live', 'fulfilled', 'Live title', 'session-live'], ['session-b', 'fulfilled', 'Stored title', 'session-b'], ['session-ghost', 'rejected', undefined, undefined]])
    expect(titles[0].value.title).toEqual(rc8.title.foldSessionTitle(agent.session.events))
    expect(titles[2].reason).toMatchObject({ code: 'SESSION_QUERY_SESSION_NOT_FOUND' })
    const surface = await query.readSurface('session-live')
    expect(surface.capturedThroughSeq).toBe(agent.session.events.at(-1)!.seq)
    expect(surface.events.map((event: LogEvent) => event.seq)).toEqual(rc8.session.foldSurface(agent.session.events).nodes)
    expect((await query.readSurface('session-empty')).capturedThroughSeq).toBeNull()
  })

  it('closes an open turn on resume as rc.8 persistence does (interruptedTurnClosers)', async () => {
    const host = new FakeHost()
    const agent = host.goLive('session-open', 1)
    const held = agent.prompt('cut off', { hold: true })!
    await held.reached
    const open = structuredClone(agent.session.events)
    host.persist('session-open', 1, { events: open })
    const expected = rc8.session.interruptedTurnClosers(structuredClone(open)).map((event: LogEvent) => ({ type: event.type, seq: event.seq, data: event.data }))
    host.live.clear()
    const agents = host.services.agents as { resume(options: { resumeSessionId: string }): Promise<{ agent: { session: { events: LogEvent[] } } }> }
    const resumed = await agents.resume({ resumeSessionId: 'session-open' })
    expect(resumed.agent.session.events.slice(open.length).map(event => ({ type: event.type, seq: event.seq, data: event.data }))).toEqual(expected)
    await expect(agents.resume({ resumeSessionId: 'session-open' })).rejects.toThrow('agent "session-open" is already registered')
    await expect(agents.resume({ resumeSessionId: 'session-ghost' })).rejects.toThrow('session "session-ghost" not found')
  })
})
