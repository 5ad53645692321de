/**
 * Synthetic corpora for the in-memory half of the benchmark, built on the
 * shared fakes (test/support/fakes.ts): sessions that look like a long-time
 * dsh user's (several workspaces and presets, some subagents, a few live,
 * titles like real ones) and surfaces with a realistic mix of events
 * (user prompts, injected runtime context, assistant text with reasoning and
 * tool calls, tool results, long messages).
 *
 * Deterministic: the same size gives the same corpus.
 *
 * @module bench/corpus
 */

import { assistantEvent, makeWorld, session, toolResultEvent, userEvent, type FakeSession, type World } from '../test/support/fakes.js'
import type { Settings } from '../src/settings/resolve.js'
import { mulberry32 } from '../test/support/prng.js'

const VERBS = ['Fix', 'Refactor', 'Review', 'Plan', 'Debug', 'Document', 'Migrate', 'Benchmark', 'Draft', 'Investigate', 'Ship']
const NOUNS = ['the newapi reasoning-effort config', 'login flow', 'billing export', 'CI cache', 'search ranking', 'release notes', 'memory leak in the worker', 'database schema', 'onboarding docs', 'flaky e2e test', 'rate limiter', 'reconcile job']
const PRESETS = ['standard', 'code', 'minimal', 'cordis']

/** A tiny deterministic PRNG (mulberry32). */
export const prng = mulberry32

function hex(random: () => number, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += Math.floor(random() * 16).toString(16)
  return out
}

/** A session id shaped like rc.8's (`session-<uuid>`; subagents: a bare uuid). */
export function fakeId(random: () => number, subagent = false): string {
  const uuid = `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-a${hex(random, 3)}-${hex(random, 12)}`
  return subagent ? uuid : `session-${uuid}`
}

/** A corpus world and the session that plays the caller. */
export interface CorpusWorld {
  world: World
  caller: FakeSession
  /** Cold top-level peers (send targets), newest first. */
  coldPeers: FakeSession[]
  livePeer: FakeSession
  subagent: FakeSession
}

/**
 * A world holding `size` sessions: 10% subagents (owned by a top-level one),
 * ~2% live, 8 workspaces, 4 presets. Sessions carry no events except the
 * caller (its latest prompt) and targets given events explicitly later.
 */
export function corpusWorld(size: number, settings: Partial<Settings> = {}): CorpusWorld {
  const random = prng(size)
  const world = makeWorld(settings)
  const start = Date.UTC(2026, 0, 1)
  let lastTopLevel: FakeSession | undefined
  const all: FakeSession[] = []
  for (let index = 0; index < size; index++) {
    const isSub = lastTopLevel !== undefined && index % 10 === 9
    const id = fakeId(random, isSub)
    const title = `${VERBS[index % VERBS.length]} ${NOUNS[Math.floor(random() * NOUNS.length)]} #${index}`
    const created = start + index * 37_000
    const entry = session(id, created, {
      live: index % 50 === 7,
      title,
      header: {
        cwd: `/home/dev/projects/${['api', 'web', 'infra', 'docs', 'mobile', 'data', 'ml', 'tools'][index % 8]}`,
        agentPreset: PRESETS[index % PRESETS.length],
        ...(isSub ? { parentSession: lastTopLevel!.header.id, origin: 'subagent' } : {}),
      },
    })
    if (!isSub) lastTopLevel = entry
    all.push(entry)
    world.corpus.add(entry)
  }
  const topLevel = all.filter(entry => entry.header.parentSession === undefined)
  const caller = topLevel[Math.floor(topLevel.length / 2)]!
  caller.live = true
  caller.events = [userEvent(0, 'Coordinate the release with the other sessions.')]
  const coldPeers = topLevel.filter(entry => !entry.live).reverse()
  const livePeer = topLevel.find(entry => entry.live && entry !== caller) ?? coldPeers[0]!
  livePeer.live = true
  const subagent = all.find(entry => entry.header.parentSession !== undefined) ?? coldPeers[1]!
  return { world, caller, coldPeers, livePeer, subagent }
}

/** Text of about `length` characters (words, some code, some non-ASCII). */
function prose(random: () => number, length: number): string {
  const words = ['the', 'config', 'reasoning', 'selector', 'is', 'empty', 'for', 'every', 'model', 'fixed', 'root', 'cause', 'declared', 'per', 'entry', 'naïve', 'café', '数据', 'función', '`npm test`', 'diff', 'lock', 'retry']
  let out = ''
  while (out.length < length) out += `${words[Math.floor(random() * words.length)]} `
  return out.slice(0, length)
}

/**
 * Surface events of a long session: per turn a user prompt, sometimes the
 * harness's injected runtime context, assistant steps with reasoning, tool
 * calls and tool results, and a final answer; message lengths from 40 to
 * ~6,000 characters.
 */
export function surfaceEvents(count: number, seed = count): unknown[] {
  const random = prng(seed)
  const events: unknown[] = []
  for (let seq = 0; events.length < count; seq++) {
    const kind = seq % 6
    const long = random() < 0.08
    const length = long ? 3000 + Math.floor(random() * 3000) : 40 + Math.floor(random() * 600)
    if (kind === 0) events.push(userEvent(seq, prose(random, length)))
    else if (kind === 1) events.push(userEvent(seq, `Current runtime context. ${prose(random, 300)}`, { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' }))
    else if (kind === 2 || kind === 4) events.push(assistantEvent(seq, prose(random, length), [{ type: 'reasoning', text: prose(random, 400) }, { type: 'tool-call', id: `c${seq}`, name: 'bash', arguments: '{"command":"ls"}' }]))
    else if (kind === 3) events.push(toolResultEvent(seq, prose(random, length)))
    else events.push(assistantEvent(seq, prose(random, length)))
  }
  return events
}

/**
 * A hostile surface for the output bound: every message far longer than
 * `maxMessageChars`, astral characters (2 UTF-16 units each), combining
 * marks, provider/model names at the label limit, injected and system
 * messages, framed peer messages.
 */
export function worstCaseSurface(count: number): unknown[] {
  const longName = 'p'.repeat(300)
  const astral = '😀e\u0301'.repeat(20_000)
  const events: unknown[] = []
  for (let seq = 0; seq < count; seq++) {
    if (seq % 3 === 0) {
      events.push({ seq, type: 'assistant/message', surfaceOp: { op: 'replace' }, data: { message: { id: `m${seq}`, role: 'assistant', content: [{ type: 'text', text: astral }], source: { kind: 'model', provider: longName, model: longName } } } })
    } else if (seq % 3 === 1) {
      events.push(userEvent(seq, `<system-reminder>${astral}`, { kind: 'plugin', plugin: longName, form: longName }))
    } else {
      events.push({ seq, type: 'system/message', data: { message: { id: `m${seq}`, role: 'system', content: [{ type: 'text', text: astral }], source: { kind: 'plugin', plugin: longName, form: longName } } } })
    }
  }
  return events
}
