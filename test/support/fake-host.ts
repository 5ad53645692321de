/**
 * A fake dsh host built from the published rc.8 code, reduced to the members
 * this package reads, so `src/plugin.ts` can be driven as the harness drives
 * it. Every behaviour below is ported from a published file, cited where it
 * is used:
 *
 * - `ctx.sessionQuery`: `@deepseek-ai/dsh-session-query@0.1.0-rc.8`
 *   lib/index.js `SessionQueryEngine` over `SessionCorpus` — records newest
 *   first, live precedence with the live header, the abort signal checked
 *   before and after the persistence listing; titles folded from the log
 *   for live and persisted sessions alike (`readTitleSnapshots` →
 *   `projectMany` → `foldSessionTitle`); `readSurface` returns the current
 *   model surface after compaction folding (`currentSurfaceEvents` →
 *   `foldSurface`) with `capturedThroughSeq` the highest raw-log seq read,
 *   `null` for an empty log; `SESSION_QUERY_SESSION_NOT_FOUND` errors.
 * - the session log: `@deepseek-ai/dsh-session@0.1.0-rc.8` lib/index.js
 *   `Session.append` (seq = log length, from 0; `time`), `foldSurface`,
 *   `interruptedTurnClosers` (applied when a stored log is resumed).
 * - `ctx.agents`: `@deepseek-ai/dsh-agent@0.1.0-rc.8` lib/index.js
 *   `AgentRegistry` (`get`, `list`, `currentInitiator` — `undefined` outside
 *   an initiator boundary — and `resume` through the loop's factory) and
 *   `Inbox` (durable `agent/inbox/spliced {target, start, removedCount?,
 *   inserted, outcome?}`).
 * - the agent: `@deepseek-ai/dsh-agent-loop@0.1.0-rc.8` lib/index.js
 *   `ReactLoopAgent` (`followup` / `steer` → `send` → `wakeDriver`; `turn`:
 *   `turn/start`, the claim splice, `step/start`, the claimed `user/message`,
 *   the assistant's reply, `step/end`, `turn/end {turn, reason: {kind}}`;
 *   `cancel`, `whenIdle`) and `AgentLoop.resumeWith` / `prepare` (a
 *   resume of an unknown id rejects with
 *   `@deepseek-ai/dsh-session-persistence@0.1.0-rc.8` lib/index.js's plain
 *   `Error('session "<id>" not found')`; the handle's `dispose` cancels the
 *   agent with `{kind: 'disposed'}` and waits for it to be idle).
 *
 * Left out, as nothing here reads them: `request/header`, `assistant/chunk`
 * events and tool rounds inside a step (the scripted model answers each step
 * with one text), the system prompt, the `session/event` / `agent/created`
 * emits, and `sessionPersistence` (the persisted map stands for it: a
 * resumed session appends to the same array, as the backend writes behind
 * the live log).
 *
 * @module test/support/fake-host
 */

import type { HostAgent, HostToolDefinition, HostUserMessage } from '../../src/testing.js'
import type { PluginContext } from '../../src/activate.js'

/** One raw log event (`@deepseek-ai/dsh-session@0.1.0-rc.8` lib/types/index.d.ts `SessionEvent`). */
export interface LogEvent {
  readonly type: string
  readonly seq: number
  readonly time: number
  readonly data: any
  readonly surfaceOp?: 'append' | { op: 'replace', start: number, end: number }
  readonly sourceEventSeqs?: readonly number[]
}

/** A stored session as persistence holds it: its header and its raw log. */
export interface PersistedSession {
  header: Record<string, unknown>
  events: LogEvent[]
}

// ---------------------------------------------------------------------------
// Errors — @deepseek-ai/dsh-session-query@0.1.0-rc.8 lib/index.js
// `SessionQueryError` (a `HarnessError` of @deepseek-ai/dsh-llm@0.1.0-rc.8:
// `code`, `name` = the class name) and `notFound`.

export class SessionQueryError extends Error {
  readonly code: string
  constructor(message: string, code: string) {
    super(message)
    this.code = code
    this.name = 'SessionQueryError'
  }
}

function notFound(id: string): SessionQueryError {
  return new SessionQueryError(`session "${id}" not found`, 'SESSION_QUERY_SESSION_NOT_FOUND')
}

// ---------------------------------------------------------------------------
// The surface fold — @deepseek-ai/dsh-session@0.1.0-rc.8 lib/index.js
// `foldSurface` (`planSurfaceEvent`, `surfaceOpOf`, `assertProvenance`,
// `replacementRange`, `applySurfacePlan`); the tool-result rewrite check is
// left out (no test rewrites a tool result).

const SURFACE_EVENT_TYPES = new Set(['user/message', 'assistant/message', 'tool/result'])

function isEventSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

function surfaceOpOf(event: LogEvent): LogEvent['surfaceOp'] {
  if (!SURFACE_EVENT_TYPES.has(event.type)) {
    if (event.surfaceOp !== undefined) throw new Error(`session event "${event.type}" is not surface-eligible and cannot carry surfaceOp`)
    if (event.sourceEventSeqs !== undefined) throw new Error(`session event "${event.type}" is not surface-eligible and cannot carry sourceEventSeqs`)
    return undefined
  }
  const op = event.surfaceOp
  if (op === undefined) throw new Error(`session event "${event.type}" is surface-eligible and requires a surfaceOp marker`)
  if (op === 'append') return op
  if (op === null || typeof op !== 'object' || Object.keys(op).length !== 3 || op.op !== 'replace' || !isEventSeq(op.start) || !isEventSeq(op.end)) {
    throw new Error(`session event "${event.type}" carries an invalid replace surfaceOp`)
  }
  return op
}

function assertProvenance(event: LogEvent, shadowedSeqs: readonly number[]): void {
  const raw = event.sourceEventSeqs
  const sources = new Set<number>()
  if (raw !== undefined) {
    if (!Array.isArray(raw)) throw new Error(`sourceEventSeqs on event at seq ${event.seq} must be an array when present`)
    if (raw.length === 0 && event.type !== 'assistant/message') throw new Error('sourceEventSeqs must not be empty except on assistant/message')
    for (const source of raw) {
      if (!isEventSeq(source)) throw new Error(`session event "${event.type}" sourceEventSeqs must densely contain non-negative safe integers`)
      if (source >= event.seq) throw new Error(`sourceEventSeqs must reference earlier events: ${source} >= current seq ${event.seq}`)
      sources.add(source)
    }
    if (sources.size !== raw.length) throw new Error('sourceEventSeqs must not contain duplicates')
  }
  const missing = shadowedSeqs.filter(seq => !sources.has(seq))
  if (missing.length > 0) throw new Error(`surface replace: sourceEventSeqs must include every shadowed surface node; missing ${missing.join(', ')}`)
}

/** `foldSurface`: the current surface's seqs in model-visible order. */
export function foldSurface(events: readonly LogEvent[]): number[] {
  const nodes: number[] = []
  for (const [index, event] of events.entries()) {
    if (event.seq !== index) throw new Error(`session event seq ${event.seq} is not contiguous; expected ${index}`)
    const op = surfaceOpOf(event)
    if (op === undefined) continue
    if (op === 'append') {
      assertProvenance(event, [])
      nodes.push(event.seq)
      continue
    }
    const startIdx = nodes.indexOf(op.start)
    if (startIdx === -1) throw new Error(`surface replace: start seq ${op.start} not found in surface`)
    const endIdx = nodes.indexOf(op.end)
    if (endIdx === -1) throw new Error(`surface replace: end seq ${op.end} not found in surface`)
    if (startIdx > endIdx) throw new Error(`surface replace: start seq ${op.start} (index ${startIdx}) is after end seq ${op.end} (index ${endIdx})`)
    assertProvenance(event, nodes.slice(startIdx, endIdx + 1))
    nodes.splice(startIdx, endIdx - startIdx + 1, event.seq)
  }
  return nodes
}

/** dsh-session-query `currentSurfaceEvents`: the surface events themselves (cloned, as `snapshotSessionEvent` does). */
function currentSurfaceEvents(events: readonly LogEvent[]): LogEvent[] {
  let nodes: number[]
  try {
    nodes = foldSurface(events)
  } catch (error: unknown) {
    throw new SessionQueryError(`invalid session surface: ${error instanceof Error ? error.message : 'unknown error'}`, 'SESSION_QUERY_INVALID_SURFACE')
  }
  return nodes.map(seq => structuredClone(events[seq]!))
}

/** @deepseek-ai/dsh-session-title@0.1.0-rc.8 lib/index.js `foldSessionTitle`: the last `session/title` event. */
function foldSessionTitle(events: readonly LogEvent[]): Record<string, unknown> | undefined {
  const event = events.findLast(item => item.type === 'session/title')
  if (event === undefined) return undefined
  return { title: event.data.title, messageSeqs: [...event.data.messageSeqs], source: structuredClone(event.data.source), eventSeq: event.seq, updatedAt: event.time }
}

/** dsh-session-query `assertSessionHeadersCompatible`. */
function assertHeadersCompatible(a: Record<string, unknown>, b: Record<string, unknown>): void {
  if (a.version !== b.version || a.id !== b.id || a.createdAt !== b.createdAt || a.cwd !== b.cwd || a.parentSession !== b.parentSession
    || a.seedLength !== b.seedLength || (a.delegationDepth ?? 0) !== (b.delegationDepth ?? 0)) {
    throw new SessionQueryError(`session source headers conflict for session "${String(a.id)}"`, 'SESSION_QUERY_SOURCE_CONFLICT')
  }
}

/** dsh-session-query `compareSessions`: newest first, then by id. */
function compareSessions(a: { header: Record<string, unknown> }, b: { header: Record<string, unknown> }): number {
  return (b.header.createdAt as number) - (a.header.createdAt as number) || String(a.header.id).localeCompare(String(b.header.id))
}

/** @deepseek-ai/dsh-session@0.1.0-rc.8 lib/index.js `interruptedTurnClosers`, without pending tool calls. */
function interruptedTurnClosers(events: readonly LogEvent[]): LogEvent[] {
  let openTurn: number | null = null
  let openStep: number | null = null
  for (const event of events) {
    if (event.type === 'turn/start') [openTurn, openStep] = [event.data.turn, null]
    else if (event.type === 'turn/end') [openTurn, openStep] = [null, null]
    else if (event.type === 'step/start') openStep = event.data.step
    else if (event.type === 'step/end') openStep = null
  }
  const last = events.at(-1)
  if (openTurn === null || last === undefined) return []
  let seq = last.seq + 1
  const closers: LogEvent[] = []
  if (openStep !== null) closers.push({ type: 'step/end', seq: seq++, time: last.time, data: { turn: openTurn, step: openStep } })
  closers.push({ type: 'turn/end', seq: seq++, time: last.time, data: { turn: openTurn, reason: { kind: 'interrupted' } } })
  return closers
}

/** Throw unless `events` is a log `Session.create` would take: seqs 0…n-1 (and a valid surface). */
function assertLog(id: string, events: readonly LogEvent[]): void {
  try {
    foldSurface(events)
  } catch (error: unknown) {
    throw new Error(`fake host: the log of ${id} is not one rc.8 would load: ${String(error)}`)
  }
}

// ---------------------------------------------------------------------------
// The agent — @deepseek-ai/dsh-agent@0.1.0-rc.8 lib/index.js `Inbox` and
// @deepseek-ai/dsh-agent-loop@0.1.0-rc.8 lib/index.js `ReactLoopAgent`.

type InboxTarget = 'next-turn' | 'next-step'
type Phase =
  | { kind: 'idle', lastTurn: number }
  | { kind: 'running', turn: number, step: number, abort: AbortController, wakeRequested: boolean }

interface Deferred<T> { promise: Promise<T>, resolve(value: T): void }
function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  const promise = new Promise<T>(res => { resolve = res })
  return { promise, resolve }
}

/** Reject with `signal.reason` when it aborts first (the loop's stream is abortable). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(value => {
      signal.removeEventListener('abort', onAbort)
      resolve(value)
    }, (error: unknown) => {
      signal.removeEventListener('abort', onAbort)
      reject(error)
    })
  })
}

/** A JSON copy (rc.8 `Session.append` snapshots `data` as JSON). */
function json(value: unknown): any {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value))
}

/** What the scripted model is asked for one step. */
export interface ModelStep {
  readonly turn: number
  readonly step: number
  /** The messages this step claimed from the inbox. */
  readonly claimed: readonly HostUserMessage[]
}

/** A step held open until the test releases it. */
export interface HeldStep {
  /** Resolves once the step has started (its `user/message`s are in the log). */
  readonly reached: Promise<void>
  release(): void
}

let assistantSerial = 0
let promptSerial = 0

/** A live agent over one session log, as rc.8's default loop drives it. */
export class FakeAgent implements HostAgent {
  readonly id: string
  readonly session: { readonly id: string, readonly header: Record<string, unknown>, readonly events: LogEvent[] }
  /** Test bookkeeping: every message handed to `followup` / `steer`, in order. */
  readonly received: Array<{ via: 'followup' | 'steer', message: HostUserMessage }> = []
  /** The scripted model: the reply text of one step (default `ok`, at once). */
  model: (step: ModelStep) => string | Promise<string> = () => 'ok'
  private phase: Phase
  private activityDone: Promise<void> = Promise.resolve()
  private readonly inbox: Record<InboxTarget, HostUserMessage[]> = { 'next-turn': [], 'next-step': [] }
  private readonly holds: Array<{ reached: Deferred<void>, gate: Deferred<void> }> = []
  private readonly watchers: Array<{ test: (event: LogEvent) => boolean, found: Deferred<LogEvent> }> = []
  /** Observers of each append (`session/event`, when the host emits it: `Session.append` runs them synchronously). */
  onAppend: ((session: FakeAgent['session'], event: LogEvent) => void) | undefined

  constructor(header: Record<string, unknown>, events: LogEvent[] = []) {
    this.id = header.id as string
    this.session = { id: this.id, header, events }
    // Inbox constructor: replay every splice after the seed.
    for (const event of events.slice((header.seedLength as number | undefined) ?? 0)) {
      if (event.type === 'agent/inbox/spliced') this.inbox[event.data.target as InboxTarget].splice(event.data.start, event.data.removedCount ?? 0, ...event.data.inserted)
    }
    // ReactLoopAgent constructor: the last turn number of the log.
    this.phase = { kind: 'idle', lastTurn: events.findLast(event => event.type === 'turn/start')?.data.turn ?? 0 }
  }

  get status(): 'idle' | 'running' {
    return this.phase.kind === 'idle' ? 'idle' : 'running'
  }

  followup(message: HostUserMessage): void {
    this.received.push({ via: 'followup', message })
    this.send(message, 'next-turn')
  }

  steer(message: HostUserMessage): void {
    this.received.push({ via: 'steer', message })
    this.send(message, 'next-step')
  }

  async whenIdle(): Promise<void> {
    let activity: Promise<void>
    do await (activity = this.activityDone)
    while (activity !== this.activityDone)
  }

  /** `ReactLoopAgent.cancel`: durably cancel pending input (unless kept) and abort the running turn. */
  cancel(cause: unknown, options: { keepInbox?: boolean } = {}): void {
    if (options.keepInbox !== true) {
      this.splice('next-step', 0, this.inbox['next-step'].length, [], true)
      this.splice('next-turn', 0, this.inbox['next-turn'].length, [], true)
      if (this.phase.kind === 'running') this.phase.wakeRequested = false
    }
    if (this.phase.kind === 'running') this.phase.abort.abort(cause)
  }

  /** Test helper: hold the next model step open (the turn keeps running) until released. */
  holdNextStep(): HeldStep {
    const hold = { reached: deferred(), gate: deferred() }
    this.holds.push(hold)
    return { reached: hold.reached.promise, release: () => hold.gate.resolve() }
  }

  /** Test helper: a human prompt (`source: {kind: 'user'}`), queued as the UI queues it; `hold` keeps its step open. */
  prompt(text: string, options: { hold?: boolean } = {}): HeldStep | undefined {
    const held = options.hold === true ? this.holdNextStep() : undefined
    this.send({ id: `prompt-${++promptSerial}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }, 'next-turn')
    return held
  }

  /** Test helper: the next event appended to the log that passes `test`. */
  nextEvent(test: (event: LogEvent) => boolean): Promise<LogEvent> {
    const found = deferred<LogEvent>()
    this.watchers.push({ test, found })
    return found.promise
  }

  /** `Session.append`: seq = log length. */
  private append(type: string, data: unknown, options: { surfaceOp?: LogEvent['surfaceOp'], sourceEventSeqs?: number[] } = {}): LogEvent {
    const event: LogEvent = { type, seq: this.session.events.length, time: Date.now(), data: json(data), ...options }
    this.session.events.push(event)
    this.onAppend?.(this.session, event)
    for (const watcher of [...this.watchers]) {
      if (!watcher.test(event)) continue
      this.watchers.splice(this.watchers.indexOf(watcher), 1)
      watcher.found.resolve(event)
    }
    return event
  }

  /** `Inbox.mutate`: the durable splice first, then the projection. */
  private splice(target: InboxTarget, start: number, deleteCount: number, inserted: HostUserMessage[], discardRemoved: boolean): HostUserMessage[] {
    const inbox = this.inbox[target]
    const actualStart = Math.min(Math.max(start, 0), inbox.length)
    const actualDeleteCount = Math.min(Math.max(deleteCount, 0), inbox.length - actualStart)
    if (actualDeleteCount === 0 && inserted.length === 0) return []
    const outcome = discardRemoved && actualDeleteCount > 0 ? 'canceled' : undefined
    this.append('agent/inbox/spliced', { target, start: actualStart, ...(actualDeleteCount === 0 ? {} : { removedCount: actualDeleteCount }), inserted, ...(outcome === undefined ? {} : { outcome }) })
    return inbox.splice(actualStart, actualDeleteCount, ...inserted)
  }

  /** `Inbox.claim`: all next-step input, then one queued turn when the boundary opens a turn. */
  private claim(target: InboxTarget): HostUserMessage[] {
    const claimed = this.splice('next-step', 0, this.inbox['next-step'].length, [], false)
    if (target === 'next-turn') claimed.push(...this.splice('next-turn', 0, 1, [], false))
    return claimed
  }

  /** `ReactLoopAgent.send` (`followup` / `steer` wake the driver). */
  private send(message: HostUserMessage, target: InboxTarget): void {
    const wakingAfterAbort = this.phase.kind === 'running' && this.phase.abort.signal.aborted
    this.splice(wakingAfterAbort ? 'next-turn' : target, Infinity, 0, [message], true)
    this.wakeDriver(wakingAfterAbort)
  }

  private wakeDriver(wakeAfterAbort = false): void {
    if (this.phase.kind !== 'idle') {
      if ((this.phase.abort.signal.reason as { kind?: unknown } | undefined)?.kind !== 'disposed' && wakeAfterAbort) this.phase.wakeRequested = true
      return
    }
    const driver = deferred()
    this.activityDone = driver.promise
    this.phase = { kind: 'running', abort: new AbortController(), turn: this.phase.lastTurn, step: 0, wakeRequested: false }
    void this.kick().then(() => driver.resolve())
  }

  private async kick(): Promise<void> {
    try {
      while (await this.turn());
    } catch {
      // Contained at the driver boundary, as rc.8 does.
    } finally {
      if (this.phase.kind === 'running') {
        const { turn, wakeRequested } = this.phase
        this.phase = { kind: 'idle', lastTurn: turn }
        if (wakeRequested && this.hasPending()) this.wakeDriver()
      }
    }
  }

  private hasPending(): boolean {
    return this.inbox['next-turn'].length > 0 || this.inbox['next-step'].length > 0
  }

  /** `ReactLoopAgent.turn`, one text step per claim (no tool rounds). */
  private async turn(): Promise<boolean> {
    const phase = this.phase
    if (phase.kind !== 'running') throw new Error(`agent "${this.id}": turn without driver reservation`)
    const { signal } = phase.abort
    signal.throwIfAborted()
    const turn = phase.turn + 1
    this.append('turn/start', { turn })
    phase.turn = turn
    let turnEnds: { kind: string, [key: string]: unknown } | null = null
    let target: InboxTarget = 'next-turn'
    try {
      for (;;) {
        signal.throwIfAborted()
        const step = phase.step + 1
        const claimed = this.claim(target)
        // preStep awaits the system prompt's assembly before deciding.
        await Promise.resolve()
        signal.throwIfAborted()
        if (turnEnds !== null && claimed.length === 0) break
        if (phase.step === 0 && claimed.length === 0) {
          turnEnds = { kind: 'completed' }
          return false
        }
        this.append('step/start', { turn, step })
        phase.step = step
        try {
          for (const message of claimed) this.append('user/message', message, { surfaceOp: 'append' })
          turnEnds = await this.step(turn, step, claimed, signal)
        } finally {
          this.append('step/end', { turn, step })
        }
        signal.throwIfAborted()
        if (this.inbox['next-step'].length === 0) break
        target = 'next-step'
      }
    } catch (error: unknown) {
      turnEnds = signal.aborted ? { kind: 'aborted', reason: json(signal.reason) ?? null } : { kind: 'error', error: { message: String(error), code: 'UNKNOWN' } }
      throw error
    } finally {
      this.append('turn/end', { turn, reason: turnEnds })
    }
    if (!this.hasPending()) return false
    phase.abort = new AbortController()
    phase.wakeRequested = false
    phase.step = 0
    return true
  }

  /** One model step: the scripted reply as the assistant's message. */
  private async step(turn: number, step: number, claimed: HostUserMessage[], signal: AbortSignal): Promise<{ kind: string }> {
    const hold = this.holds.shift()
    if (hold !== undefined) {
      hold.reached.resolve()
      await raceAbort(hold.gate.promise, signal)
    }
    const text = await raceAbort(Promise.resolve(this.model({ turn, step, claimed })), signal)
    this.append('assistant/message', { turn, step, message: { id: `assistant-${++assistantSerial}`, role: 'assistant', content: [{ type: 'text', text }], source: { kind: 'model', provider: 'deepseek', model: 'deepseek-v4-flash' } } }, { surfaceOp: 'append', sourceEventSeqs: [] })
    return { kind: 'completed' }
  }
}

/** A live agent over `events` (shared, not copied), not registered with any host. */
export function fakeAgent(header: Record<string, unknown>, events: LogEvent[] = []): FakeAgent {
  assertLog(header.id as string, events)
  return new FakeAgent(header, events)
}

/**
 * The handle `AgentLoop.prepare` returns: `dispose` cancels the agent with
 * `{kind: 'disposed'}`, waits until it is idle, then detaches it.
 */
export function agentHandle(agent: FakeAgent, detach: () => void = () => undefined): { agent: FakeAgent, dispose(): Promise<void>, readonly disposed: boolean } {
  let disposing: Promise<void> | undefined
  let disposed = false
  return {
    agent,
    get disposed() { return disposed },
    dispose() {
      disposing ??= (async () => {
        agent.cancel({ kind: 'disposed' })
        await agent.whenIdle()
        detach()
        disposed = true
      })()
      return disposing
    },
  }
}

// ---------------------------------------------------------------------------
// The host.

/** A default header (`SessionHeader` of a top-level session in /work/project; `version` is dsh-session's `SESSION_FORMAT_VERSION`, 0). */
function headerOf(id: string, createdAt: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 0, id, createdAt, cwd: '/work/project', ...extra }
}

/** A `session/title` event as @deepseek-ai/dsh-session-title@0.1.0-rc.8 appends it. */
export function titleEvent(seq: number, title: string): LogEvent {
  return { type: 'session/title', seq, time: 1_700_000_000_000 + seq, data: { title, messageSeqs: [], source: { kind: 'user' } } }
}

export class FakeHost {
  readonly registered = new Map<string, HostToolDefinition>()
  readonly logs: Array<{ level: string, message: string }> = []
  /** `sessionPersistence`: what is stored. */
  readonly persisted = new Map<string, PersistedSession>()
  /** The agent registry (and `ctx.sessions`): what is live. */
  readonly live = new Map<string, FakeAgent>()
  readonly calls: string[] = []
  readonly disposers: Array<() => void> = []
  /** What `agents.currentInitiator()` returns (rc.8: `undefined` outside an initiator boundary). */
  initiator: FakeAgent | undefined
  services: Record<string, unknown> = {}
  resumeDisposed: string[] = []
  /** The scripted model of every agent this host creates from now on (`FakeAgent.model`). */
  agentModel: FakeAgent['model'] | undefined

  /** `session/event` listeners, when the host emits them (`sessionEvents`). */
  private readonly sessionEventListeners: Array<(...args: unknown[]) => void> | undefined

  /**
   * @param options - `omit`: services left out; `sessionEvents`: the context
   *   has `on` and emits `session/event` (session, event) on every append, as
   *   rc.8 `Session.append` does (`@deepseek-ai/dsh-session@0.1.0-rc.8` lib/index.js).
   */
  constructor(options: { omit?: string[], sessionEvents?: boolean } = {}) {
    const host = this
    this.sessionEventListeners = options.sessionEvents === true ? [] : undefined
    /** `sessionPersistence.list`, as `SessionCorpus` awaits it. */
    const listPersisted = async (signal?: AbortSignal): Promise<Record<string, unknown>[]> => {
      await Promise.resolve()
      signal?.throwIfAborted()
      return [...host.persisted.values()].map(stored => stored.header)
    }
    /** `SessionCorpus.load`: a detached live-preferred source. */
    const load = async (id: string): Promise<{ header: Record<string, unknown>, events: LogEvent[] }> => {
      const live = host.live.get(id)
      if (live !== undefined) return structuredClone({ header: live.session.header, events: live.session.events })
      const listed = (await listPersisted()).find(header => header.id === id)
      const stored = host.persisted.get(id)
      if (listed === undefined || stored === undefined) throw notFound(id)
      return structuredClone({ header: stored.header, events: stored.events })
    }
    /** `readTitleSnapshots`' projection: `foldSessionTitle` over each live-preferred source, one result per unique id. */
    const projectTitles = async (ids: readonly string[], signal?: AbortSignal): Promise<Array<{ sessionId: string, status: 'fulfilled' | 'rejected', value?: unknown, reason?: unknown }>> => {
      const unique = [...new Set(ids)]
      signal?.throwIfAborted()
      const project = (source: { header: Record<string, unknown>, events: LogEvent[] }) => {
        const title = foldSessionTitle(source.events)
        return { session: structuredClone(source.header), ...(title === undefined ? {} : { title }) }
      }
      const resolved = new Map<string, { sessionId: string, status: 'fulfilled' | 'rejected', value?: unknown, reason?: unknown }>()
      const unresolved: string[] = []
      for (const id of unique) {
        const agent = host.live.get(id)
        if (agent === undefined) unresolved.push(id)
        else resolved.set(id, { sessionId: id, status: 'fulfilled', value: project(agent.session) })
      }
      if (unresolved.length > 0) {
        const listed = new Set((await listPersisted(signal)).map(header => header.id))
        signal?.throwIfAborted()
        for (const id of unresolved) {
          const stored = host.persisted.get(id)
          const source = host.live.get(id)?.session ?? (listed.has(id) ? stored : undefined)
          resolved.set(id, source === undefined ? { sessionId: id, status: 'rejected', reason: notFound(id) } : { sessionId: id, status: 'fulfilled', value: project(source) })
        }
      }
      return unique.map(id => resolved.get(id)!)
    }
    const all: Record<string, unknown> = {
      tools: {
        register(definition: HostToolDefinition) {
          host.registered.set(definition.name, definition)
          return () => host.registered.delete(definition.name)
        },
      },
      // @deepseek-ai/dsh-session-query@0.1.0-rc.8 lib/index.js SessionQueryEngine
      sessionQuery: {
        // SessionQueryEngine.listSessions → SessionCorpus.listSessions
        async listSessions(signal?: AbortSignal) {
          host.calls.push('sessionQuery.listSessions')
          signal?.throwIfAborted()
          const persisted = await listPersisted(signal)
          signal?.throwIfAborted()
          const records = new Map<string, { header: Record<string, unknown>, live: boolean, persisted: boolean }>()
          for (const header of persisted) records.set(header.id as string, { header: structuredClone(header), live: false, persisted: true })
          for (const agent of host.live.values()) {
            const durable = records.get(agent.id)
            if (durable !== undefined) assertHeadersCompatible(agent.session.header, durable.header)
            records.set(agent.id, { header: structuredClone(agent.session.header), live: true, persisted: durable !== undefined })
          }
          return [...records.values()].sort(compareSessions)
        },
        // SessionQueryEngine.readTitleSnapshots → SessionCorpus.projectMany (live first, then one persistence listing)
        async readTitleSnapshots(ids: readonly string[], signal?: AbortSignal) {
          host.calls.push(`sessionQuery.readTitleSnapshots(${ids.length})`)
          return await projectTitles(ids, signal)
        },
        // SessionQueryEngine.readTitleSnapshot: one readTitleSnapshots, a rejection thrown
        async readTitleSnapshot(id: string, signal?: AbortSignal) {
          host.calls.push('sessionQuery.readTitleSnapshot')
          const [result] = await projectTitles([id], signal)
          if (result?.status === 'rejected') throw result.reason
          return result?.value
        },
        // SessionQueryEngine.readSurface: current surface, capturedThroughSeq = last raw seq (null when empty)
        async readSurface(id: string) {
          host.calls.push('sessionQuery.readSurface')
          const loaded = await load(id)
          return { session: loaded.header, capturedThroughSeq: loaded.events.at(-1)?.seq ?? null, events: currentSurfaceEvents(loaded.events) }
        },
      },
      // @deepseek-ai/dsh-agent@0.1.0-rc.8 lib/index.js AgentRegistry
      agents: {
        get(id: string) {
          return host.live.get(id)
        },
        list() {
          return [...host.live.values()]
        },
        currentInitiator() {
          return host.initiator
        },
        // AgentRegistry.resume → @deepseek-ai/dsh-agent-loop@0.1.0-rc.8 lib/index.js AgentLoop.resumeWith
        async resume(options: { resumeSessionId: string, agentOptions?: unknown, signal?: AbortSignal }) {
          const id = options.resumeSessionId
          host.calls.push(`agents.resume(${id}, ${JSON.stringify(options.agentOptions ?? null)})`)
          options.signal?.throwIfAborted()
          await Promise.resolve()
          options.signal?.throwIfAborted()
          // sessionPersistence.prepare: a plain Error for an unknown id; the loaded log gets its open turn closed.
          const stored = host.persisted.get(id)
          if (stored === undefined) throw new Error(`session "${id}" not found`)
          stored.events.push(...interruptedTurnClosers(stored.events))
          // AgentRegistry.enter
          if (host.live.has(id)) throw new Error(`agent "${id}" is already registered`)
          const agent = new FakeAgent(stored.header, stored.events)
          if (host.agentModel !== undefined) agent.model = host.agentModel
          host.observe(agent)
          host.live.set(id, agent)
          return agentHandle(agent, () => {
            host.resumeDisposed.push(id)
            if (host.live.get(id) === agent) host.live.delete(id)
          })
        },
      },
      agentDefaultModel: { currentSelection: () => ({ provider: 'deepseek', model: 'deepseek-v4-flash' }) },
    }
    for (const [name, service] of Object.entries(all)) if (!options.omit?.includes(name)) this.services[name] = service
  }

  /** The Cordis-like context a plugin is applied with. */
  context(): PluginContext {
    const host = this
    const ctx = {
      get tools() { return host.services.tools },
      get sessionQuery() { return host.services.sessionQuery },
      get agents() { return host.services.agents },
      get: (name: string) => host.services[name],
      logger: () => ({
        info: (message: string) => host.logs.push({ level: 'info', message }),
        warn: (message: string) => host.logs.push({ level: 'warn', message }),
      }),
      inject(deps: string[], callback: (inner: PluginContext) => void) {
        if (deps.every(dep => host.services[dep] !== undefined)) callback(ctx as unknown as PluginContext)
      },
      effect(execute: () => () => void) {
        host.disposers.push(execute())
      },
      ...(host.sessionEventListeners === undefined
        ? {}
        : {
            on(name: string, listener: (...args: unknown[]) => void) {
              const listeners = host.sessionEventListeners!
              if (name === 'session/event') listeners.push(listener)
              return () => { listeners.splice(listeners.indexOf(listener) >>> 0, 1) }
            },
          }),
    }
    return ctx as unknown as PluginContext
  }

  /** Run every registered disposer (Cordis fiber disposal). */
  dispose(): void {
    for (const dispose of this.disposers.splice(0).reverse()) dispose()
  }

  /**
   * Store a cold top-level session. `events` must be a log rc.8 loads (seqs
   * 0…n-1, surface events marked); `title` appends its `session/title`
   * event after them.
   */
  persist(id: string, createdAt: number, extra: { header?: Record<string, unknown>, events?: LogEvent[], title?: string } = {}): PersistedSession {
    const events = [...(extra.events ?? [])]
    if (extra.title !== undefined) events.push(titleEvent(events.length, extra.title))
    assertLog(id, events)
    const stored = { header: headerOf(id, createdAt, extra.header), events }
    this.persisted.set(id, stored)
    return stored
  }

  /** A live session with its agent (not persisted), over `events`; `title` as for {@link persist}. */
  goLive(id: string, createdAt: number, events: LogEvent[] = [], extra: { header?: Record<string, unknown>, title?: string } = {}): FakeAgent {
    if (extra.title !== undefined) events.push(titleEvent(events.length, extra.title))
    const agent = fakeAgent(headerOf(id, createdAt, extra.header), events)
    if (this.agentModel !== undefined) agent.model = this.agentModel
    this.observe(agent)
    this.live.set(id, agent)
    return agent
  }

  /** Emit this agent's appends as `session/event`, when the host does. */
  private observe(agent: FakeAgent): void {
    const listeners = this.sessionEventListeners
    if (listeners !== undefined) agent.onAppend = (session, event) => { for (const listener of [...listeners]) listener(session, event) }
  }

  /**
   * Execute a registered tool as the harness would, from `agent`'s turn: the
   * model's text, rendered from the value by the definition's `output.render`
   * (rc.8 `ToolRuntime.createSuccessResult`, `@deepseek-ai/dsh-tools@0.1.0-rc.8` lib/index.js).
   */
  async run(tool: string, args: unknown, agent: FakeAgent | undefined, callId = `call-${Math.random()}`): Promise<string> {
    return (await this.runResult(tool, args, agent, callId)).text
  }

  /** {@link run}, with the value and the `meta` (`output.presentationMeta`) a client receives. */
  async runResult(tool: string, args: unknown, agent: FakeAgent | undefined, callId = `call-${Math.random()}`): Promise<RunResult> {
    const definition = this.registered.get(tool)
    if (definition === undefined) throw new Error(`tool ${tool} is not registered`)
    const exec = { ...(agent === undefined ? {} : { agent }), signal: new AbortController().signal, callId }
    const value = await definition.execute(args, exec)
    const text = definition.output.render(args, value).map(block => block.text).join('\n')
    return { text, value, meta: definition.output.presentationMeta?.(args, value) }
  }
}

/** One call as {@link FakeHost.runResult} reports it: the model's text, the value, and the `meta` a client receives. */
export interface RunResult { readonly text: string, readonly value: unknown, readonly meta: unknown }

/** A `user/message` event as the loop appends a claimed prompt (`surfaceOp: 'append'`). */
export function userMessageEvent(seq: number, id: string, text: string, source: Record<string, unknown> = { kind: 'user' }): LogEvent {
  return { type: 'user/message', seq, time: 1_700_000_000_000 + seq, data: { id, role: 'user', content: [{ type: 'text', text }], source }, surfaceOp: 'append' }
}
