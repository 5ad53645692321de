/**
 * In-memory fakes of the ports (docs/architecture.md §2), shared by unit tests and the
 * benchmark. They count every backend call by method, so tests and the bench
 * can assert call budgets, and they record everything a controller was asked
 * to do, so tests can prove what was (not) touched.
 *
 * @module test/support/fakes
 */

import { type AnswerWatch, DEFAULT_SETTINGS, latestRelay, relaySource, SendLimits, type Caller, type ControllerOutcome, type ControllerPort, type DeliveryReason, type ReleaseOutcome, type Recorded, type RelayProvenance, type ResolvedTarget, type SendMode, type SessionHeaderView, type SessionQueryPort, type SessionRecordView, type Settings, type SurfaceView, type ToolCallContext, type ToolDeps, type InboundPort, type InboundMode, type NewApproval, type Approval, type LocalDelivery } from '../../src/testing.js'

/** One fake session: header, liveness, title and surface events. */
export interface FakeSession {
  header: SessionHeaderView
  live: boolean
  title?: string
  events: unknown[]
}

/** Backend call counts by method name. */
export type CallCounts = Record<string, number>

/** A `user/message` surface event. */
export function userEvent(seq: number, text: string, source: unknown = { kind: 'user' }, extra: Record<string, unknown> = {}): unknown {
  return { seq, type: 'user/message', surfaceOp: 'append', data: { id: `m${seq}`, role: 'user', content: [{ type: 'text', text }], source }, ...extra }
}

/** An `assistant/message` surface event (text plus optional other blocks). */
export function assistantEvent(seq: number, text: string, extraBlocks: unknown[] = []): unknown {
  return {
    seq,
    type: 'assistant/message',
    surfaceOp: 'append',
    data: { turn: 1, step: 1, message: { id: `m${seq}`, role: 'assistant', content: [...extraBlocks, { type: 'text', text }], source: { kind: 'model', provider: 'deepseek', model: 'deepseek-v4-flash' } } },
  }
}

/** A `tool/result` surface event (always dropped by reads). */
export function toolResultEvent(seq: number, text: string): unknown {
  return { seq, type: 'tool/result', surfaceOp: 'append', data: { turn: 1, step: 1, message: { id: `m${seq}`, role: 'user', content: [{ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text }] }], source: { kind: 'tool', callId: 'c1' } } } }
}

/** An in-memory corpus implementing the session query port. */
export class FakeSessionQuery implements SessionQueryPort {
  readonly sessions = new Map<string, FakeSession>()
  readonly calls: CallCounts = {}
  /** Titles folded, summed over every `readTitles` call. */
  titlesFolded = 0
  /** Make a method fail, hang or return garbage (hostile-backend tests). */
  fault: Partial<Record<keyof SessionQueryPort, 'throw' | 'hang' | 'garbage'>> = {}

  add(session: FakeSession): this {
    this.sessions.set(session.header.id, session)
    return this
  }

  private count(method: string): void {
    this.calls[method] = (this.calls[method] ?? 0) + 1
  }

  private async faulted<T>(method: keyof SessionQueryPort, signal: AbortSignal | undefined, garbage: unknown): Promise<T | undefined> {
    const fault = this.fault[method]
    if (fault === 'throw') throw Object.assign(new Error(`disk on fire\n    at secretFrame (/internal/path.js:1:1)`), { code: 'EIO' })
    if (fault === 'hang') {
      await new Promise<never>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }))
    }
    if (fault === 'garbage') return garbage as T
    return undefined
  }

  async listSessions(signal: AbortSignal): Promise<SessionRecordView[]> {
    this.count('listSessions')
    const faulted = await this.faulted<SessionRecordView[]>('listSessions', signal, [null, 42, { header: {} }, { header: { id: 'session-garbage', createdAt: 'yesterday' }, live: 'yes' }])
    if (faulted !== undefined) return faulted
    return [...this.sessions.values()]
      .map(session => ({ header: session.header, live: session.live, persisted: true }))
      .sort((a, b) => b.header.createdAt - a.header.createdAt)
  }

  async readTitles(sessionIds: readonly string[], signal: AbortSignal): Promise<Map<string, string | undefined>> {
    this.count('readTitles')
    const faulted = await this.faulted<Map<string, string | undefined>>('readTitles', signal, new Map())
    if (faulted !== undefined) return faulted
    this.titlesFolded += sessionIds.length
    return new Map(sessionIds.map(id => [id, this.sessions.get(id)?.title]))
  }

  async readSurface(sessionId: string, signal: AbortSignal): Promise<SurfaceView | undefined> {
    this.count('readSurface')
    const faulted = await this.faulted<SurfaceView>('readSurface', signal, { session: { id: sessionId, createdAt: 1 }, capturedThroughSeq: 'x', events: 'not-an-array' })
    if (faulted !== undefined) return faulted
    const session = this.sessions.get(sessionId)
    if (session === undefined) return undefined
    const last = session.events.at(-1) as { seq?: number } | undefined
    return { session: session.header, capturedThroughSeq: last?.seq ?? null, events: session.events }
  }

  async lookup(sessionId: string, signal: AbortSignal): Promise<SessionRecordView | undefined> {
    this.count('lookup')
    const faulted = await this.faulted<SessionRecordView>('lookup', signal, undefined)
    if (faulted !== undefined) return faulted
    const session = this.sessions.get(sessionId)
    return session === undefined ? undefined : { header: session.header, live: session.live, persisted: true }
  }

  isLive(sessionId: string): boolean {
    this.count('isLive')
    return this.sessions.get(sessionId)?.live === true
  }
}

/** What the fake controller was asked to do, in order. */
export type ControllerLogEntry =
  | { op: 'resolve', sessionId: string, mayWake: boolean }
  | { op: 'wake', sessionId: string }
  | { op: 'admit', sessionId: string, requestId: string, mode: SendMode, text: string }
  | { op: 'release', sessionId: string }
  | { op: 'wait', sessionId: string, requestId: string }

/** An in-memory controller over a {@link FakeSessionQuery}'s sessions. */
export class FakeController implements ControllerPort {
  readonly log: ControllerLogEntry[] = []
  readonly calls: CallCounts = {}
  /** Ids admitted so far (a repeated request id is delivered once). */
  readonly delivered = new Map<string, { sessionId: string, mode: SendMode, text: string }>()
  /** Make admission fail with this reason (and code, as a controller gives it). */
  admitFailure: { reason: DeliveryReason, code?: string } | undefined
  /** Make resolution fail with this reason (and code). */
  resolveFailure: { reason: DeliveryReason, code?: string } | undefined
  /** Take the target cold right after it is resolved (race test). */
  goColdAfterResolve = false
  /** Whether messages are recorded in the target's log on admission. */
  recordOnAdmit = true
  /** Called just before `resolve` / `admit` return (e.g. to cancel the call mid-step). */
  afterResolve: (() => void) | undefined
  afterAdmit: (() => void) | undefined
  /** Notices asked for (`watchAnswer`), by request id; `false` makes this host one without a home store. */
  readonly watches = new Map<string, AnswerWatch>()
  canWatch = true

  private readonly corpus: FakeSessionQuery
  /** Whether the last `resolve` of each session allowed waking (the fake admits to a cold target only then). */
  private readonly mayWakeOf = new Map<string, boolean>()

  constructor(corpus: FakeSessionQuery) {
    this.corpus = corpus
  }

  private count(method: string): void {
    this.calls[method] = (this.calls[method] ?? 0) + 1
  }

  watchAnswer(watch: AnswerWatch): boolean {
    this.count('watchAnswer')
    if (this.canWatch) this.watches.set(watch.requestId, watch)
    return this.canWatch
  }

  unwatchAnswer(requestId: string): void {
    this.count('unwatchAnswer')
    this.watches.delete(requestId)
  }

  async resolve(sessionId: string, options: { mayWake: boolean, signal: AbortSignal }): Promise<ControllerOutcome<ResolvedTarget>> {
    this.count('resolve')
    this.log.push({ op: 'resolve', sessionId, mayWake: options.mayWake })
    this.mayWakeOf.set(sessionId, options.mayWake)
    if (this.resolveFailure !== undefined) return { ok: false, ...this.resolveFailure }
    const session = this.corpus.sessions.get(sessionId)
    if (session === undefined) return { ok: false, reason: { kind: 'not-found', sessionId }, code: 'not-found' }
    let woke = false
    if (!session.live) {
      if (!options.mayWake) return { ok: false, reason: { kind: 'not-live' } }
      this.log.push({ op: 'wake', sessionId })
      session.live = true
      woke = true
    }
    if (this.goColdAfterResolve) session.live = false
    this.afterResolve?.()
    return { ok: true, value: { sessionId, woke, running: false } }
  }

  async admit(target: ResolvedTarget, prompt: { requestId: string, mode: SendMode, text: string, provenance: RelayProvenance, signal: AbortSignal }): Promise<ControllerOutcome<{ mode: SendMode, running: boolean }>> {
    this.count('admit')
    this.log.push({ op: 'admit', sessionId: target.sessionId, requestId: prompt.requestId, mode: prompt.mode, text: prompt.text })
    if (this.admitFailure !== undefined) return { ok: false, ...this.admitFailure }
    const session = this.corpus.sessions.get(target.sessionId)
    if (session === undefined || (!session.live && this.mayWakeOf.get(target.sessionId) !== true)) return { ok: false, reason: { kind: 'went-cold' } }
    if (!this.delivered.has(prompt.requestId)) {
      this.delivered.set(prompt.requestId, { sessionId: target.sessionId, mode: prompt.mode, text: prompt.text })
      if (this.recordOnAdmit) {
        const seq = ((session.events.at(-1) as { seq?: number } | undefined)?.seq ?? 0) + 1
        // As src/adapters/controller.ts delivers: the relay source records the provenance.
        session.events.push({ ...(userEvent(seq, prompt.text) as object), data: { id: prompt.requestId, role: 'user', content: [{ type: 'text', text: prompt.text }], source: relaySource(prompt.provenance) } })
      }
    }
    this.afterAdmit?.()
    return { ok: true, value: { mode: prompt.mode, running: target.running } }
  }

  async releaseWoken(target: ResolvedTarget): Promise<ReleaseOutcome> {
    this.count('releaseWoken')
    this.log.push({ op: 'release', sessionId: target.sessionId })
    const session = this.corpus.sessions.get(target.sessionId)
    if (session !== undefined) session.live = false
    return 'put-back-to-sleep'
  }

  async waitRecorded(target: ResolvedTarget, requestId: string): Promise<Recorded | undefined> {
    this.count('waitRecorded')
    this.log.push({ op: 'wait', sessionId: target.sessionId, requestId })
    const session = this.corpus.sessions.get(target.sessionId)
    const event = session?.events.find(candidate => (candidate as { data?: { id?: string } }).data?.id === requestId) as { seq: number } | undefined
    return event === undefined ? undefined : { seq: event.seq, stage: 'conversation' }
  }
}

/** A caller view over a fake session (the production `latestRelay` over its events drives hop counting). */
export function fakeCaller(session: FakeSession): Caller {
  return {
    sessionId: session.header.id,
    header: session.header,
    latestRelay: () => latestRelay(session.events),
  }
}

/** The home store's approval half as the tools see it, in memory: inbound choices, held messages, the journal. */
export class FakeInbound implements InboundPort {
  readonly modes = new Map<string, InboundMode>()
  readonly held: Approval[] = []
  readonly journaled: LocalDelivery[] = []
  /** Calls, in order (`inboundOf <id>`, `hold <id>`, `journal <state>`). */
  readonly calls: string[] = []
  inboundOf(sessionId: string): InboundMode | undefined {
    this.calls.push(`inboundOf ${sessionId}`)
    return this.modes.get(sessionId)
  }

  holdForApproval(approval: NewApproval): { ok: true, approval: Approval, duplicate: boolean } {
    this.calls.push(`hold ${approval.target}`)
    const existing = this.held.find(held => held.messageId === approval.messageId)
    if (existing !== undefined) return { ok: true, approval: existing, duplicate: true }
    const stored: Approval = { ...approval, order: this.held.length + 1, state: 'held', createdAt: Date.now() }
    this.held.push(stored)
    return { ok: true, approval: stored, duplicate: false }
  }

  journal(entry: LocalDelivery): void {
    this.calls.push(`journal ${entry.state}`)
    this.journaled.push(entry)
  }
}

/** A harness-like world: corpus, controller, settings, and a call context factory. */
export interface World {
  corpus: FakeSessionQuery
  controller: FakeController
  inbound: FakeInbound
  deps: ToolDeps
  logs: string[]
  call(caller: FakeSession | undefined, options?: { callId?: string, signal?: AbortSignal }): ToolCallContext
}

let callCounter = 0

/** Build a world with the given settings overrides. */
export function makeWorld(settings: Partial<Settings> = {}, now?: () => number): World {
  const corpus = new FakeSessionQuery()
  const controller = new FakeController(corpus)
  const logs: string[] = []
  const inbound = new FakeInbound()
  const deps: ToolDeps = {
    sessions: corpus,
    controller,
    inbound,
    settings: { ...DEFAULT_SETTINGS, ...settings },
    limits: new SendLimits(now),
    log: message => logs.push(message),
  }
  return {
    corpus,
    controller,
    inbound,
    deps,
    logs,
    call: (caller, options = {}) => ({
      caller: caller === undefined ? undefined : fakeCaller(caller),
      callId: options.callId ?? `call-${++callCounter}`,
      signal: options.signal ?? new AbortController().signal,
    }),
  }
}

/** A top-level session with sensible defaults. */
export function session(id: string, createdAt: number, overrides: Partial<Omit<FakeSession, 'header'>> & { header?: Partial<SessionHeaderView> } = {}): FakeSession {
  const { header, ...rest } = overrides
  return {
    live: false,
    events: [],
    ...rest,
    header: { id, createdAt, cwd: '/work/project', agentPreset: 'standard', ...header },
  }
}
