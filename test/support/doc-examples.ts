/**
 * The examples shown in docs/tools.md, each produced by running the real
 * tool code: `sessionsList` / `sessionsRead` / `sessionsSend` (and
 * `buildFrame` for the frame) over the in-memory ports
 * (test/support/fakes.ts), and, for the sends whose text depends on other
 * dsh processes or on a woken session's turn, `sessionsSend` through the
 * real cross-process guard (`guardController` over a real
 * `SqliteHomeStore` in a temporary home, a `HomeRuntime` and `StoreWatch`)
 * and the real rc.8 adapter (`createAgentsController` over the fake host
 * built from rc.8, test/support/fake-host.ts). The other dsh process of
 * those examples (pid 48213) is a fake holder: its own connection to the
 * same store, acting when the sender's store watch reports the post.
 *
 * Waits run on vitest's fake clock (`drive`): a bound of 5,000 or 120,000 ms
 * passes at once and to the millisecond, so these examples only run inside
 * vitest. `test/unit/docs.test.ts` fails when docs/tools.md and these
 * outputs drift apart; `XS_PRINT_DOC_EXAMPLES=1` makes it print them.
 *
 * @module test/support/doc-examples
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { vi } from 'vitest'
import { NOTICE_EXCERPT_CHARS, asJsonValue, buildFrame, buildNotice, createAgentsController, truncateVisibly, guardController, HomeRuntime, openHomeStore, relaySource, renderResult, sessionsListValue, sessionsReadValue, sessionsSendValue, storePaths, StoreWatch, withPresence, WokenSessions, type HomeStore, type HostAgents, type ProcessTag, type ResultValue, type Settings } from '../../src/testing.js'
import { fakeAgent, FakeHost, type LogEvent } from './fake-host.js'
import { DirectoryCache } from '../../src/home/pg/directory-cache.js'
import type { RemoteSession } from '../../src/home/pg/directory-rows.js'
import { withMachines } from '../../src/home/pg/machines-query.js'
import type { MachineView } from '../../src/model/sessions.js'
import { assistantEvent, makeWorld, session, toolResultEvent, userEvent } from './fakes.js'

/** The value each example text was rendered from (the tools return values; the docs show their text). */
const valuesByText = new Map<string, ResultValue>()

/** A tool answering with its text, as the registry renders it, remembering the value it came from. */
function recording<A extends unknown[]>(execute: (...args: A) => Promise<ResultValue>): (...args: A) => Promise<string> {
  return async (...args) => {
    const value = asJsonValue(await execute(...args))
    const text = renderResult(value)
    valuesByText.set(text, value)
    return text
  }
}

const sessionsList = recording(sessionsListValue)
const sessionsRead = recording(sessionsReadValue)
const sessionsSend = recording(sessionsSendValue)

/** The value an example's text was rendered from (after {@link docExamples} ran), or `undefined` (the frame). */
export function exampleValue(text: string): ResultValue | undefined {
  return valuesByText.get(text)
}

const ME = 'session-4b91c2d0-5f3e-4a7b-9c1d-2e8f6a0b3c4d'
const PEER = 'session-e218a09e-8736-4483-9a04-2bf13608630c'
const CHILD = '019c3d96-79e0-4e6a-b7bf-ea46c224d701'
const BODY = 'Did the reasoning-effort fix land on main? The release checklist needs it.'
/** The answer a notice example quotes the start of. */
const NOTICE_ANSWER = 'Yes: the fix is on main as of this morning. reasoningEfforts is now declared per model entry in providers.yaml, and the selector shows low/medium/high for every DeepSeek model. No docs change is needed for users; I added one line to CHANGELOG.md under 0.4.2. The release checklist item can be ticked. One caveat: older profiles that pin a model by alias still show an empty selector until they are re-saved once, which I noted in the migration section.'

/** Build the example corpus: two peers, a subagent, and the caller. */
function scene() {
  const w = makeWorld({ recordWaitMs: 0 })
  const me = session(ME, 1_764_460_000_000, { live: true, title: 'Release checklist for v2', events: [userEvent(1, 'ask the config session whether the fix landed')] })
  const peer = session(PEER, 1_764_450_000_000, {
    title: 'Fix the newapi reasoning-effort config',
    header: { cwd: '/Users/dev/.dsh' },
    events: [
      userEvent(405, 'Current runtime context.\nDate: 2026-11-30', { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' }),
      userEvent(406, 'the reasoning selector is empty for every model'),
      assistantEvent(407, 'fixed. root cause: reasoningEfforts was never declared per model entry', [{ type: 'reasoning', text: 'let me look at the schema' }]),
      toolResultEvent(408, 'config.yml: 212 lines'),
      userEvent(409, buildFrame({ fromSessionId: 'session-77aa', fromTitle: 'Docs sweep', mode: 'queue', hop: 1, body: 'does the fix need a docs change?', token: () => 'Zq81LmX0pTa4' }).text, relaySource({ senderSessionId: 'session-77aa', hop: 1 })),
    ],
  })
  const child = session(CHILD, 1_764_455_000_000, { title: 'Bounded completed checkpoint', header: { cwd: '/Users/dev/Soul/new-memory-system', parentSession: PEER, origin: 'subagent' } })
  w.corpus.add(me).add(peer).add(child)
  return { w, me }
}

/** This (sending) process and the other dsh process of the examples. */
const SELF: ProcessTag = { pid: 4242, start: 1 }
const OTHER: ProcessTag = { pid: 48213, start: 7 }

/** A headless (short-lived) sender on its own home, the peer cold here, and the other process's store connection. */
function senderHome(settings: Partial<Settings> = {}, machine?: MachineView) {
  const home = mkdtempSync(join(tmpdir(), 'xs-doc-'))
  // Both processes are alive (an injected liveness probe; the pids are not real processes).
  const alive = (tag: ProcessTag): boolean => tag.pid === SELF.pid || tag.pid === OTHER.pid
  const store = openHomeStore(home, SELF, alive)
  const watch = new StoreWatch(store, storePaths(home).dir)
  const host = new FakeHost()
  const agents = host.services.agents as HostAgents
  const logs: string[] = []
  const runtime = new HomeRuntime(store, watch, { agents, log: line => logs.push(line), longLived: () => false })
  runtime.start()
  const inner = createAgentsController(agents, { currentSelection: () => ({ provider: 'deepseek', model: 'deepseek-v4-flash' }) }, new WokenSessions())
  const controller = guardController(inner, runtime, {
    isLocal: id => agents.get(id) !== undefined,
    agentOf: id => agents.get(id),
    // rc.8 sessionPersistence.readFrom(id, 0): the stored log as written.
    listEvents: async id => host.persisted.get(id)?.events ?? [],
    // With `machine`, the peer is a session of that machine on a shared store (docs/tools.md "Sessions of other machines").
    ...(machine === undefined ? {} : { machineOf: (id: string) => id === PEER ? machine : undefined }),
  })
  const w = makeWorld(settings)
  const me = session(ME, 1_764_460_000_000, { live: true, title: 'Release checklist for v2' })
  w.corpus.add(me).add(session(PEER, 1_764_450_000_000, { title: 'Fix the newapi reasoning-effort config', header: { cwd: '/Users/dev/.dsh' } }))
  const other = openHomeStore(home, OTHER, alive)
  const deps = { ...w.deps, sessions: withPresence(w.corpus, store), controller }
  /** The other process acts on each change the sender's watch reports (its post included). */
  const otherProcess = (act: (store: HomeStore) => void): void => {
    watch.listen(() => act(other))
  }
  const send = (callId: string) => sessionsSend({ session_id: PEER, message: BODY }, w.call(me, { callId }), deps)
  /** The same arguments with `withdraw: true`, over the real store (docs/tools.md "Withdrawing a message"). */
  const withdraw = (callId: string) => sessionsSend({ session_id: PEER, message: BODY, withdraw: true }, w.call(me, { callId }), { ...deps, inbound: store })
  const close = (): void => {
    host.live.clear()
    runtime.stop()
    other.close()
    rmSync(home, { recursive: true, force: true })
  }
  return { host, store, other, otherProcess, send, withdraw, logs, close }
}

/**
 * Run `work` on the fake clock: flush what is due, else jump to the next
 * timer, until it settles (bounds are honoured to the millisecond).
 */
async function drive<T>(work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ now: 1_764_470_000_000 })
  try {
    let outcome: { value: T } | { error: unknown } | undefined
    work().then(value => { outcome = { value } }, (error: unknown) => { outcome = { error } })
    for (let turns = 0; outcome === undefined; turns++) {
      if (turns > 100_000) throw new Error('doc example: the send never settled')
      await vi.advanceTimersByTimeAsync(0)
      if (outcome === undefined) await vi.advanceTimersToNextTimerAsync()
    }
    if ('error' in outcome) throw outcome.error
    return outcome.value
  } finally {
    vi.useRealTimers()
  }
}

/** The peer as stored in the fake host: `turns` answered prompts, 8 log events each (dsh-agent-loop@0.1.0-rc.8 one-step turns). */
async function storedPeer(host: FakeHost, turns: number): Promise<void> {
  const events: LogEvent[] = []
  const agent = fakeAgent({ version: 0, id: PEER, createdAt: 1_764_450_000_000, cwd: '/Users/dev/.dsh' }, events)
  for (let turn = 0; turn < turns; turn++) {
    agent.prompt(`step ${turn} of the config fix`)
    await agent.whenIdle()
  }
  host.persist(PEER, 1_764_450_000_000, { header: { cwd: '/Users/dev/.dsh' }, events })
}

/** A send to the peer as a cold session of machine `build-box`; the other process stands in for that machine's host. */
async function machineSend(reachable: boolean, act: (store: HomeStore) => void): Promise<string> {
  const home = senderHome({}, { name: 'build-box', reachable })
  try {
    home.otherProcess(act)
    return await drive(() => home.send('call_machine'))
  } finally {
    home.close()
  }
}

/** `sessions_list` on this machine with two sessions other machines published (`home/pg/machines-query.ts`). */
async function machinesList(): Promise<string> {
  const w = makeWorld()
  const me = session(ME, 1_764_460_000_000, { live: true, title: 'Release checklist for v2' })
  w.corpus.add(me)
  const published: RemoteSession[] = [
    { header: { id: 'session-7f3e2c10-9a4b-4d8e-b1c2-3a4b5c6d7e8f', createdAt: 1_764_458_000_000, cwd: '/srv/api', agentPreset: 'standard' },
      title: 'Nightly release build', live: true, machine: 'm-1', machineName: 'build-box', reachable: true },
    { header: { id: 'session-2b1c0d9e-8f7a-4b6c-9d5e-4f3a2b1c0d9e', createdAt: 1_764_457_000_000, cwd: '/home/dev/site', agentPreset: 'standard' },
      title: 'Landing page copy', live: false, machine: 'm-2', machineName: 'laptop', reachable: false },
  ]
  const sessions = withMachines(w.corpus, { directory: new DirectoryCache(async () => published, () => undefined), visibility: () => 'all',
    log: () => undefined, askSurface: async () => ({ kind: 'not-found' }) })
  return await sessionsList({}, w.call(me), { ...w.deps, sessions })
}

/** A send that reaches the peer through the store, the other process doing `act` with it. */
async function remoteSend(act: (store: HomeStore) => void, setUp: (store: HomeStore) => void = other => { other.markLive(PEER) }): Promise<string> {
  const home = senderHome()
  try {
    setUp(home.other)
    home.otherProcess(act)
    return await drive(() => home.send('call_remote'))
  } finally {
    home.close()
  }
}

/** The other process, holding the peer live, delivers what it claims and its log holds it at `seq`. */
const recordsAt = (seq: number) => (other: HomeStore): void => {
  for (const message of other.claim(PEER)) other.record(message.messageId, seq, false)
}

/** A send from this headless process that wakes the cold peer (stored with `turns` answered prompts). */
async function wakingSend(options: { turns: number, answers: boolean }): Promise<string> {
  const home = senderHome()
  try {
    await storedPeer(home.host, options.turns)
    // The woken session's model either answers at once or never (its turn is still running when the bound ends).
    if (!options.answers) home.host.agentModel = () => new Promise<string>(() => undefined)
    return await drive(() => home.send('call_wake'))
  } finally {
    home.close()
  }
}

/** A send to a cold peer whose stored log ends in a turn opened 42 s ago by a process without this package. */
async function openTurnSend(): Promise<string> {
  const home = senderHome()
  try {
    return await drive(async () => {
      const now = Date.now()
      home.host.persist(PEER, 1_764_450_000_000, {
        header: { cwd: '/Users/dev/.dsh' },
        events: [
          { type: 'agent/inbox/spliced', seq: 0, time: now - 43_000, data: { target: 'next-turn', start: 0, inserted: [{ id: 'p1', role: 'user', content: [{ type: 'text', text: 'a long job' }], source: { kind: 'user' } }] } },
          { type: 'turn/start', seq: 1, time: now - 43_000, data: { turn: 1 } },
          { type: 'agent/inbox/spliced', seq: 2, time: now - 43_000, data: { target: 'next-turn', start: 0, removedCount: 1, inserted: [] } },
          { type: 'step/start', seq: 3, time: now - 42_000, data: { turn: 1, step: 1 } },
        ],
      })
      return await home.send('call_open')
    })
  } finally {
    home.close()
  }
}

/** A send through the store, the other process doing `act` with it, then withdrawn with the same arguments. */
async function withdrawnSend(act: (store: HomeStore) => void): Promise<string> {
  const home = senderHome()
  try {
    home.other.markLive(PEER)
    home.otherProcess(act)
    return await drive(async () => {
      await home.send('call_sent')
      return await home.withdraw('call_withdraw')
    })
  } finally {
    home.close()
  }
}

/** The target's user decides (docs/tools.md "Inbound messages"): its choice `hold`, then `refuse`. */
async function inboundExamples(): Promise<Record<string, string>> {
  const { w, me } = scene()
  w.inbound.modes.set(PEER, 'hold')
  const held = await sessionsSend({ session_id: PEER, message: BODY }, w.call(me), w.deps)
  w.inbound.modes.set(PEER, 'refuse')
  return { 'held': held, 'inbound refused': await sessionsSend({ session_id: PEER, message: 'hi' }, w.call(me), w.deps) }
}

/** Every example, by the heading it appears under in docs/tools.md. */
export async function docExamples(): Promise<Record<string, string>> {
  const { w, me } = scene()
  const call = (callId?: string) => w.call(me, callId === undefined ? {} : { callId })
  return {
    'sessions_list': await sessionsList({ scope: 'all' }, call(), w.deps),
    'sessions_read': await sessionsRead({ session_id: PEER, max_messages: 2 }, call(), w.deps),
    'sessions_read after_seq': await sessionsRead({ session_id: PEER, after_seq: 407 }, call(), w.deps),
    'sessions_read before_seq': await sessionsRead({ session_id: PEER, before_seq: 409, max_messages: 1 }, call(), w.deps),
    'sessions_read past the end': await sessionsRead({ session_id: PEER, after_seq: 409 }, call(), w.deps),
    'sessions_send': await sessionsSend({ session_id: PEER, message: BODY }, call('call_01'), w.deps),
    'sessions_send notify': await sessionsSend({ session_id: PEER, message: 'Tell me when the release checklist is done.', notify: true }, call('call_02'), w.deps),
    'notice': buildNotice({ fromSessionId: PEER, fromTitle: 'Fix the newapi reasoning-effort config', outcome: 'completed', messageSeq: 409, turnEndSeq: 415, hop: 2, excerpt: truncateVisibly(NOTICE_ANSWER, NOTICE_EXCERPT_CHARS), token: () => 'Q7fz2LmX9aKd' }),
    'frame': buildFrame({ fromSessionId: ME, fromTitle: 'Release checklist for v2', mode: 'queue', hop: 1, body: BODY, token: () => 'k3Vd9QxLm2Ta' }).text,
    'not-messageable': await sessionsSend({ session_id: CHILD, message: 'hi' }, call(), w.deps),
    'remote recorded': await remoteSend(recordsAt(27)),
    'remote claimed': await remoteSend(other => { other.claim(PEER) }),
    'remote pending': await remoteSend(() => undefined),
    // The other process is a headless run and the peer its own task: nothing is claimed while that run lives.
    'remote run task': await remoteSend(() => undefined, other => {
      other.join(false)
      other.markLive(PEER)
    }),
    // Cold here, nobody holds it; the other process is a long-lived host of this package, which wakes it.
    'handoff recorded': await remoteSend(other => {
      if (other.waiting().has(PEER) && other.acquire(PEER).ok) other.markLive(PEER)
      recordsAt(31)(other)
    }, other => { other.join(true) }),
    // 51 answered prompts are log seqs 0–407; the wake's followup is then 408 insertion, 409 turn/start,
    // 410 claim, 411 step/start, 412 its user/message, 413 the answer, 414 step/end, 415 turn/end.
    'woke and answered': await wakingSend({ turns: 51, answers: true }),
    'woke, still answering': await wakingSend({ turns: 51, answers: false }),
    'open turn': await openTurnSend(),
    'invalid-arguments': await sessionsSend({ session_id: PEER, message: 'hi', priority: 'high' }, call(), w.deps),
    ...await inboundExamples(),
    'withdrawn': await withdrawnSend(() => undefined),
    'withdraw too late': await withdrawnSend(recordsAt(27)),
    'other machines list': await machinesList(),
    // That machine's long-lived host wakes the cold peer for the message and records it.
    'machine recorded': await machineSend(true, other => {
      if (other.waiting().has(PEER) && other.acquire(PEER).ok) other.markLive(PEER)
      recordsAt(212)(other)
    }),
    'machine pending': await machineSend(false, () => undefined),
  }
}
