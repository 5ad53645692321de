/**
 * A scripted stand-in for the remote LLM, served on 127.0.0.1.
 *
 * The DeepSeek Harness model adapter POSTs OpenAI-style `/chat/completions`
 * with `stream: true`. This server answers every such request
 * from a *scenario*: a function of the request (last user text, whether the
 * last message is a tool result, which tools are offered), so several
 * sessions, even in one harness process, can share one server and still get
 * their own script. Every request is recorded (messages and tool catalog), so
 * a test asserts on what the harness really sent the model: the tool results
 * our plugin produced and the schemas it registered.
 *
 * Safety rails, because a runaway agent loop against a local server would
 * otherwise spin until the test times out: a bounded request count (past it
 * every answer is a plain `stop` text saying so) and a lifetime cap after
 * which the server closes itself. It never sends an empty `stop` answer (the
 * harness retries those as errors).
 * @module test/e2e/support/fake-model
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One chat message as the harness serialises it (OpenAI wire shape). */
export interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content?: string | Array<{ type: string, text?: string }> | null
  tool_calls?: Array<{ id: string, type: 'function', function: { name: string, arguments: string } }>
  tool_call_id?: string
  reasoning_content?: string
  [key: string]: unknown
}

/** One tool of the catalog the harness offered the model. */
export interface WireTool {
  type: 'function'
  function: { name: string, description?: string, parameters?: unknown }
}

/** A tool call the scripted model makes. `id` defaults to a unique one. */
export interface ScriptedCall {
  name: string
  args: Record<string, unknown>
  id?: string
}

/** What the model answers: text (finish `stop`) or tool calls (finish `tool_calls`). */
export type Reply =
  | { text: string, reasoning?: string, delayMs?: number }
  | { calls: ScriptedCall[], text?: string, reasoning?: string, delayMs?: number }

/** A tool result the harness sent back, paired with the call that asked for it. */
export interface ToolResult {
  callId: string
  name: string | undefined
  args: unknown
  content: string
}

/** The scenario's view of one request. */
export interface ModelRequest {
  /** 0-based arrival order over the server's lifetime. */
  index: number
  /** True for the harness's title request (no tools offered). */
  isTitle: boolean
  messages: WireMessage[]
  tools: WireTool[]
  toolNames: string[]
  /**
   * Text of the last user-role message that is not harness-injected context
   * ('' when none). The harness appends a `Current runtime context.` user
   * message after the real prompt, so the raw last user message is rarely
   * what a scenario wants.
   */
  lastUserText: string
  /** Text of every non-injected user-role message, joined by newlines. */
  allUserText: string
  /** The results of the newest tool round, when the last message is a tool result. */
  toolResults: ToolResult[]
  /** The raw JSON body. */
  body: Record<string, unknown>
}

/** Decides one answer. May be async, e.g. to hold a turn open until a test releases it. */
export type Scenario = (request: ModelRequest) => Reply | Promise<Reply>

export interface FakeModelOptions {
  scenario: Scenario
  /** Title answer for title requests; default: a fixed-length echo of the first user line. */
  title?: (request: ModelRequest) => string
  /** Past this many requests every answer is a plain refusal text (default 400). */
  maxRequests?: number
  /** The server closes itself after this long (default 8 min). */
  lifetimeMs?: number
}

export interface FakeModel {
  url: string
  port: number
  /** Every request, in arrival order, with the reply it got. */
  requests: Array<ModelRequest & { reply?: Reply }>
  /** Every tool result the harness sent (across all requests, deduplicated by call id). */
  toolResults(name?: string): ToolResult[]
  close(): Promise<void>
}

/**
 * The content of result #`index` of `tool` the model received; throws,
 * naming every result it did receive, when there is no such result.
 */
export function resultOf(model: Pick<FakeModel, 'toolResults'>, tool: string, index = 0): string {
  const result = model.toolResults(tool)[index]
  if (result === undefined) throw new Error(`the model never received result #${index} of ${tool}; got ${JSON.stringify(model.toolResults().map(r => [r.name, r.content.slice(0, 200)]))}`)
  return result.content
}

/** Plain text of a wire message's content (string or content parts). */
export function textOf(message: WireMessage | undefined): string {
  if (message === undefined) return ''
  const { content } = message
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map(part => part.text ?? '').join('')
  return ''
}

/** Pair every tool message with the assistant tool call that asked for it. */
function collectToolResults(messages: WireMessage[]): ToolResult[] {
  const calls = new Map<string, { name: string, args: unknown }>()
  const results: ToolResult[] = []
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) {
      let args: unknown = call.function.arguments
      try { args = JSON.parse(call.function.arguments) } catch { /* keep the raw string */ }
      calls.set(call.id, { name: call.function.name, args })
    }
    if (message.role === 'tool' && typeof message.tool_call_id === 'string') {
      const call = calls.get(message.tool_call_id)
      results.push({ callId: message.tool_call_id, name: call?.name, args: call?.args, content: textOf(message) })
    }
  }
  return results
}

/** Harness-injected user context (the prefixes docs/tools.md "sessions_read" lists). */
export function isInjected(text: string): boolean {
  return /^(?:<system-reminder>|\[MNEMON\]|MNEMON RUNTIME MEMORY SNAPSHOT|Current runtime context\.)/.test(text)
}

function view(index: number, body: Record<string, unknown>): ModelRequest {
  const messages = Array.isArray(body.messages) ? (body.messages as WireMessage[]) : []
  const tools = Array.isArray(body.tools) ? (body.tools as WireTool[]) : []
  const users = messages.filter(m => m.role === 'user' && !isInjected(textOf(m)))
  // The newest tool round: the trailing run of tool messages.
  let tail = messages.length
  while (tail > 0 && messages[tail - 1]?.role === 'tool') tail--
  const lastRoundIds = new Set(messages.slice(tail).map(m => m.tool_call_id))
  return {
    index,
    isTitle: tools.length === 0,
    messages,
    tools,
    toolNames: tools.map(t => t.function.name),
    lastUserText: textOf(users.at(-1)),
    allUserText: users.map(textOf).join('\n'),
    toolResults: collectToolResults(messages).filter(r => lastRoundIds.has(r.callId)),
    body,
  }
}

/** The default title: the first short line of the first user text that is not harness context. */
function defaultTitle(request: ModelRequest): string {
  const text = request.messages.map(textOf).join('\n')
  const marked = /TITLE:\s*([^\n]+)/.exec(text)
  return marked?.[1]?.trim() ?? 'Untitled session'
}

let callSerial = 0

/** Serialise one reply as the SSE chunk sequence the harness's adapter expects. */
function sse(reply: Reply, model: string): string[] {
  const id = `chatcmpl-fake-${Date.now().toString(36)}`
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })
  const out: string[] = [chunk({ role: 'assistant', content: '' }, null)]
  if (reply.reasoning !== undefined) out.push(chunk({ reasoning_content: reply.reasoning }, null))
  if (reply.text !== undefined && reply.text !== '') out.push(chunk({ content: reply.text }, null))
  if ('calls' in reply && reply.calls.length > 0) {
    reply.calls.forEach((call, index) => {
      const callId = call.id ?? `call_fake_${++callSerial}_${Math.random().toString(36).slice(2, 8)}`
      out.push(chunk({ tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }] }, null))
    })
    out.push(chunk({}, 'tool_calls'))
  } else {
    out.push(chunk({}, 'stop'))
  }
  out.push(JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } }))
  out.push('[DONE]')
  return out
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
    req.on('error', reject)
  })
}

/** Start the server on a random loopback port. */
export async function startFakeModel(options: FakeModelOptions): Promise<FakeModel> {
  const maxRequests = options.maxRequests ?? 400
  const requests: FakeModel['requests'] = []
  const open = new Set<ServerResponse>()
  const server: Server = createServer((req, res) => {
    void handle(req, res)
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    open.add(res)
    res.on('close', () => open.delete(res))
    const raw = await readBody(req)
    if (req.method !== 'POST' || !(req.url ?? '').endsWith('/chat/completions')) {
      // Any other endpoint (model lists, health probes) is not part of the script.
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `fake model: no ${req.method} ${req.url}` } }))
      return
    }
    let body: Record<string, unknown> = {}
    try { body = JSON.parse(raw) as Record<string, unknown> } catch { /* recorded as empty */ }
    const request = view(requests.length, body)
    const entry: FakeModel['requests'][number] = { ...request }
    requests.push(entry)
    let reply: Reply
    if (requests.length > maxRequests) {
      reply = { text: `fake model: request budget of ${maxRequests} exhausted; stopping.` }
    } else if (request.isTitle) {
      reply = { text: (options.title ?? defaultTitle)(request) }
    } else {
      try {
        reply = await options.scenario(request)
      } catch (error) {
        reply = { text: `fake model: scenario failed: ${String(error)}` }
      }
    }
    // Never an empty stop answer: the harness retries those as errors.
    if (!('calls' in reply) && reply.text.trim() === '') reply = { ...reply, text: '(no comment)' }
    entry.reply = reply
    if (reply.delayMs !== undefined) await new Promise(r => setTimeout(r, reply.delayMs))
    if (res.destroyed) return
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'connection': 'keep-alive' })
    for (const data of sse(reply, typeof body.model === 'string' ? body.model : 'fake-model')) res.write(`data: ${data}\n\n`)
    res.end()
  }

  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  let closed: Promise<void> | undefined
  const close = (): Promise<void> => {
    closed ??= new Promise<void>(resolve => {
      clearTimeout(lifetime)
      for (const res of open) res.destroy()
      server.close(() => resolve())
      server.closeAllConnections()
    })
    return closed
  }
  // Lifetime cap; unref'd so the cap itself never keeps a test process alive.
  const lifetime = setTimeout(() => void close(), options.lifetimeMs ?? 8 * 60_000)
  lifetime.unref()

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    toolResults(name?: string): ToolResult[] {
      const seen = new Map<string, ToolResult>()
      for (const request of requests) for (const result of collectToolResults(request.messages)) seen.set(result.callId, result)
      return [...seen.values()].filter(r => name === undefined || r.name === name)
    },
    close,
  }
}
