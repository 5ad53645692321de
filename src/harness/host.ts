/**
 * The slice of the DeepSeek Harness host this package reads, as structural
 * types.
 *
 * Why not import the harness's own types: the loader imports this package
 * with Node's `import()`, and an `@deepseek-ai/*` import from an out-of-tree
 * package resolves from the package's own `node_modules`, so a second copy of
 * the harness could appear (docs/architecture.md §2). Everything here
 * mirrors rc.8's `lib/types/*.d.ts` (`@deepseek-ai/dsh-agent` `Agent` / `AgentRegistry`,
 * `@deepseek-ai/dsh-session-query` `SessionQueryEngine`,
 * `@deepseek-ai/dsh-api-session-controller@0.1.2-alpha.2`
 * `SessionController`), reduced to the members used, every one of them
 * treated as possibly absent or malformed at run time.
 *
 * @module dsh-cross-session/harness/host
 */

/** A user-role message (`@deepseek-ai/dsh-llm` `UserMessage`). */
export interface HostUserMessage {
  readonly id: string
  readonly role: 'user'
  readonly content: ReadonlyArray<{ readonly type: 'text', readonly text: string }>
  /** This package's relay source (`src/model/provenance.ts`). */
  readonly source: { readonly kind: string }
}

/** A live session (`@deepseek-ai/dsh-session` `Session`), as read here. */
interface HostSession {
  readonly id: string
  readonly header: unknown
  readonly events: readonly unknown[]
}

/** A live agent (`@deepseek-ai/dsh-agent` `Agent`), as used here. */
export interface HostAgent {
  readonly id: string
  readonly session: HostSession
  readonly status: 'idle' | 'running'
  followup(message: HostUserMessage): void
  steer(message: HostUserMessage): void
  whenIdle(): Promise<void>
}

/** Owned handle of a resumed agent (`AgentHandle`). */
export interface HostAgentHandle {
  readonly agent: HostAgent
  dispose(): Promise<void>
}

/** `ctx.agents` (`AgentRegistry`). */
export interface HostAgents {
  get(id: string): HostAgent | undefined
  currentInitiator?(): HostAgent | undefined
  resume(options: { resumeSessionId: string, agentOptions?: Record<string, unknown>, signal?: AbortSignal }): Promise<HostAgentHandle>
  /** Every live agent of this process (rc.8 `AgentRegistry.list`). */
  list?(): HostAgent[]
}

/** `ctx.sessionQuery` (`SessionQueryEngine`), the members used. */
export interface HostSessionQuery {
  listSessions(signal?: AbortSignal): Promise<unknown[]>
  readTitleSnapshots(ids: readonly string[], signal?: AbortSignal): Promise<unknown[]>
  readTitleSnapshot(id: string, signal?: AbortSignal): Promise<unknown>
  readSurface(id: string): Promise<unknown>
}

/** `ctx.sessionController` of later harness lines (absent in rc.8). */
export interface HostSessionController {
  /** Resolve or resume one session; `error` is a `RemoteError` (`code`, `message`). */
  resolveAgent(sessionId: string): Promise<{ agent: HostAgent } | { error: { code?: string, message?: string } }>
  inspect?(sessionId: string, signal?: AbortSignal): Promise<{ meta: unknown, events: unknown[] }>
}

/** `ctx.agentDefaultModel` (deployment default provider/model), if offered. */
export interface HostDefaultModel {
  currentSelection(): unknown
}

/** `ctx.tools` (`ToolRegistry`), the member used. */
interface HostTools {
  register(definition: HostToolDefinition): () => void
}

/**
 * A raw tool definition as `ctx.tools.register` takes it (`@deepseek-ai/dsh-tools@0.1.0-rc.8` lib/types/index.d.ts
 * `ToolDefinition`, `ToolRuntime.register`).
 */
export interface HostToolDefinition {
  readonly name: string
  readonly description: string
  readonly parameters: unknown
  /** The canonical value's schema, its model text, and its replayable projection for clients (the `tool/result` event's `meta`). */
  readonly output: {
    readonly schema: unknown
    render(args: unknown, value: unknown): Array<{ type: 'text', text: string }>
    presentationMeta?(args: unknown, value: unknown): unknown
  }
  /** Resolves to the canonical value (lossless JSON); a throw becomes an `isError` result. */
  execute(args: unknown, exec: HostToolExec): Promise<unknown>
  readonly isConcurrencySafe?: (args: unknown) => boolean
  /** rc.8 `ToolDefinition.presentCall` / `presentResult` (UI views; docs/architecture.md §7). */
  readonly presentCall?: (args: unknown) => CallView | undefined
  readonly presentResult?: (args: unknown, result: PresentedResult) => ResultView | undefined
}

/** What the registry passes to `execute` (rc.8 `ToolRunContext`), as read here. */
export interface HostToolExec {
  readonly agent?: HostAgent
  readonly signal?: AbortSignal
  readonly callId?: string
}

/** A Cordis logger, the levels used. */
interface HostLogger {
  info(message: string): void
  warn(message: string): void
  debug?(message: string): void
}

/** The Cordis context as this plugin reads it. */
export interface HostContext {
  readonly tools: HostTools
  readonly sessionQuery: HostSessionQuery
  readonly agents: HostAgents
  readonly sessionController?: HostSessionController
  readonly agentDefaultModel?: HostDefaultModel
  logger(name: string): HostLogger
}

/** rc.8 `ContentBlock`, text only (all this plugin emits). */
interface TextBlock { readonly type: 'text', readonly text: string }

/** rc.8 `GenericCallView`. */
export interface CallView {
  readonly card: 'generic'
  readonly title: string
  readonly kind?: 'read' | 'search' | 'other'
  readonly rawInput?: unknown
}

/** rc.8 `GenericResultView`. */
export interface ResultView {
  readonly card: 'generic'
  readonly title?: string
  readonly content?: TextBlock[]
}

/** rc.8 `ToolResult` as read here. */
export interface PresentedResult {
  readonly content: ReadonlyArray<{ readonly type: string, readonly text?: string }>
  readonly isError: boolean
  /** `output.presentationMeta`'s projection, threaded from the `tool/result` event; absent for a nested call or an error. */
  readonly meta?: unknown
}

/**
 * Write a live session's log to disk now: rc.8 `@deepseek-ai/dsh-session`
 * `SessionStore.flush(session)` (service `sessions`), read per call; resolves
 * at once on a host without it.
 */
export function sessionFlush(ctx: { get(name: string): unknown }): (agent: HostAgent) => Promise<void> {
  return async agent => {
    const sessions = ctx.get('sessions') as { flush?: (session: unknown) => Promise<unknown> } | undefined
    if (typeof sessions?.flush === 'function') await sessions.flush(agent.session)
  }
}
