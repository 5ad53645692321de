/**
 * Build a `DSH_HOME` holding a persisted corpus for the real-harness bench.
 *
 * Cheapest honest way, measured here (a headless rc.8 run against the
 * scripted local model takes ~0.8 s):
 * 1. Real sessions: run `dsh --profile headless` a few times against the
 *    scripted model: plain one-turn sessions in two workspaces, and one whose
 *    model calls the harness's own `subagent` tool (a parent plus a real
 *    subagent child with `parentSession` / `origin: 'subagent'`).
 * 2. Copies: every further session is a byte-faithful copy of a real plain
 *    log with a new session id, fresh message ids, shifted `createdAt` and
 *    event times, another workspace and its own title word, written in the
 *    harness's own physical format (see ./zstd-log.ts).
 * 3. Long sessions: a real plain log whose real turn (inbox splice, turn,
 *    step, request header, chunks, messages, title events) is repeated with
 *    renumbered seqs, turn numbers and message ids, to ~1,000 and ~10,000
 *    events.
 * The harness itself then lists, validates and reads every one of them in
 * the bench, so a copy it could not parse would show up as a failure.
 *
 * A seeded home is reused while its manifest matches the plan and names this home.
 *
 * @module bench/harness/seed-home
 */

import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeModel } from '../../test/e2e/support/fake-model.js'
import { runHeadless } from './dsh.js'
import { decodeLog, encodeLog, logPathOf } from './zstd-log.js'

/** Bump when the corpus recipe changes (invalidates cached homes). */
const RECIPE = 3
/** Homes of at least this many sessions also hold a ~100,000-event session (the cold-read path of docs/performance.md). */
const HUGE_FROM = 10_000

/** Recipe of a home of `sessions` (the huge log changed only the large homes). */
function recipeOf(sessions: number): number {
  return sessions >= HUGE_FROM ? RECIPE + 1 : RECIPE
}
/** Placeholder word in the real runs' prompts, replaced per copy. */
const SEED_WORD = 'SEEDWORD'

/** What the bench needs to know about a seeded home. */
export interface HomeManifest {
  recipe: number
  home: string
  sessions: number
  realRuns: number
  workspaces: string[]
  /** A small cold top-level session (a copy). */
  smallId: string
  /** Its title word (a query that matches by title only). */
  smallWord: string
  /** Cold top-level sessions with ~1,000 and ~10,000 events (and ~100,000 in homes of 10,000+). */
  longIds: Record<string, string>
  /** Cold top-level targets for accepted sends (they will be woken). */
  sendTargets: string[]
  /** A real subagent child session. */
  subagentId: string
  /** Where the bench caller's own session runs. */
  benchCwd: string
  seedMs: number
}

interface StoredLog {
  header: Record<string, unknown> & { id: string, createdAt: number, cwd?: string }
  events: string[]
}

function readStored(path: string): StoredLog {
  const lines = decodeLog(readFileSync(path)).split('\n').filter(line => line.length > 0)
  return { header: JSON.parse(lines[0] as string) as StoredLog['header'], events: lines.slice(1) }
}

function writeStored(home: string, log: StoredLog): void {
  const path = logPathOf(home, log.header.cwd, log.header.id)
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 })
  writeFileSync(path, encodeLog(JSON.stringify(log.header), log.events), { mode: 0o600 })
}

function findLogs(dir: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...findLogs(path))
    else if (entry.name === 'session.jsonl.zstd') found.push(path)
  }
  return found
}

/** Replace every occurrence of each key of `map` in `text`. */
function replaceAll(text: string, map: ReadonlyMap<string, string>): string {
  let out = text
  for (const [from, to] of map) out = out.split(from).join(to)
  return out
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

/** A faithful copy of a real log under a new identity. */
function copyLog(source: StoredLog, options: { id: string, createdAt: number, cwd: string, word: string }): StoredLog {
  const map = new Map<string, string>([[source.header.id, options.id], [SEED_WORD, options.word]])
  if (source.header.cwd !== undefined) map.set(source.header.cwd, options.cwd)
  for (const line of source.events) for (const uuid of line.match(UUID) ?? []) if (!source.header.id.endsWith(uuid)) map.set(uuid, randomUUID())
  const delta = options.createdAt - source.header.createdAt
  const events = source.events.map(line => replaceAll(line, map).replace(/"time":(\d+)/g, (_m, time: string) => `"time":${Number(time) + delta}`))
  return { header: { ...source.header, id: options.id, createdAt: options.createdAt, cwd: options.cwd }, events }
}

/** Repeat the real turn of a one-turn log until it holds about `target` events. */
function longLog(source: StoredLog, options: { id: string, createdAt: number, cwd: string, word: string, target: number }): StoredLog {
  const base = copyLog(source, options)
  const parsed = base.events.map(line => JSON.parse(line) as Record<string, any>)
  const turnStart = parsed.findIndex(event => event.type === 'agent/inbox/spliced')
  const preamble = parsed.slice(0, turnStart)
  const turn = parsed.slice(turnStart)
  const first = turn[0]!.seq as number
  const out: Array<Record<string, any>> = [...preamble]
  for (let copy = 0; out.length < options.target; copy++) {
    const offset = out.length - first
    const ids = new Map<string, string>()
    const fresh = (id: unknown): unknown => {
      if (typeof id !== 'string' || !UUID.test(id)) return id
      UUID.lastIndex = 0
      if (!ids.has(id)) ids.set(id, randomUUID())
      return ids.get(id)
    }
    for (const event of turn) {
      const next = structuredClone(event)
      next.seq = (event.seq as number) + offset
      next.time = (event.time as number) + copy * 60_000
      if (Array.isArray(next.sourceEventSeqs)) next.sourceEventSeqs = next.sourceEventSeqs.map((seq: number) => seq + offset)
      const data = next.data
      if (data !== undefined && data !== null) {
        if (typeof data.turn === 'number') data.turn = copy + 1
        if (Array.isArray(data.messageSeqs)) data.messageSeqs = data.messageSeqs.map((seq: number) => seq + offset)
        if (data.id !== undefined) data.id = fresh(data.id)
        if (data.message?.id !== undefined) data.message.id = fresh(data.message.id)
        if (Array.isArray(data.inserted)) for (const item of data.inserted) item.id = fresh(item.id)
        UUID.lastIndex = 0
      }
      out.push(next)
    }
  }
  return { header: base.header, events: out.map(event => JSON.stringify(event)) }
}

/**
 * Seed (or reuse) a home with `sessions` persisted sessions.
 * @param home - the `DSH_HOME` directory to create.
 * @param sessions - total persisted sessions, at least 10.
 */
export async function seedHome(home: string, sessions: number, options: { fresh?: boolean, log?: (line: string) => void } = {}): Promise<HomeManifest> {
  const log = options.log ?? (() => {})
  const manifestPath = join(home, 'bench-manifest.json')
  if (!options.fresh && existsSync(manifestPath)) {
    const cached = JSON.parse(readFileSync(manifestPath, 'utf8')) as HomeManifest
    // Seeded here, by this recipe (a home copied from another checkout names that checkout's workspaces, and a
    // run there would start in a directory that may be gone).
    if (cached.recipe === recipeOf(sessions) && cached.sessions === sessions && cached.home === home && existsSync(cached.benchCwd)) return cached
  }
  const started = Date.now()
  rmSync(home, { recursive: true, force: true })
  const workspaces = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map(name => join(home, '..', `ws-${name}`))
  for (const dir of workspaces) mkdirSync(dir, { recursive: true })
  mkdirSync(home, { recursive: true })

  const model = await startFakeModel({
    title: request => /TITLE:\s*([A-Za-z0-9 -]+)/.exec(request.messages.map(m => JSON.stringify(m.content)).join('\n'))?.[1]?.trim() ?? 'Untitled',
    scenario: request => request.toolResults.length === 0 && /use the subagent/.test(request.lastUserText) && request.toolNames.includes('subagent')
      ? { calls: [{ name: 'subagent', args: { description: 'check the notes', prompt: 'Child task: list two risks.', run_in_background: false } }] }
      : { text: `Summary for ${SEED_WORD}: the plan has three steps; the second one is risky.` },
  })
  let realRuns = 0
  try {
    const runs = [
      { cwd: workspaces[0]!, task: `TITLE: corpus seed ${SEED_WORD}\nPlease summarise the migration plan.` },
      { cwd: workspaces[1]!, task: `TITLE: corpus seed ${SEED_WORD}\nPlease summarise the release notes.` },
      { cwd: workspaces[0]!, task: 'TITLE: delegated review\nPlease use the subagent tool to review the notes.' },
    ]
    for (let index = 0; index < runs.length; index += 2) {
      const batch = runs.slice(index, index + 2)
      const done = await Promise.all(batch.map(run => runHeadless({ home, cwd: run.cwd, task: run.task, modelUrl: model.url })))
      for (const result of done) {
        if (result.code !== 0) throw new Error(`seeding run failed (exit ${result.code}): ${result.stderr.slice(-2000)}`)
        realRuns++
      }
    }
  } finally {
    await model.close()
  }
  const real = findLogs(join(home, 'sessions')).map(readStored)
  const plain = real.filter(entry => entry.header.parentSession === undefined && entry.events.some(line => line.includes(SEED_WORD)))
  const child = real.find(entry => entry.header.parentSession !== undefined)
  if (plain.length < 2 || child === undefined) throw new Error(`seeding produced ${real.length} sessions, not the expected plain + subagent ones`)
  log(`seed: ${real.length} real sessions from ${realRuns} headless runs in ${Date.now() - started} ms`)

  const now = Date.now()
  const copies = sessions - real.length
  let smallId = ''
  let smallWord = ''
  const sendTargets: string[] = []
  const longIds: Record<string, string> = {}
  for (let index = 0; index < copies; index++) {
    const id = `session-${randomUUID()}`
    const word = `w${String(index).padStart(5, '0')}`
    const cwd = workspaces[index % workspaces.length]!
    const createdAt = now - (index + 10) * 60_000
    const source = plain[index % plain.length]!
    let copy: StoredLog
    if (index === 1 || index === 2 || (index === 3 && sessions >= HUGE_FROM)) {
      const target = index === 1 ? 1000 : index === 2 ? 10_000 : 100_000
      copy = longLog(source, { id, createdAt, cwd, word, target })
      longIds[String(copy.events.length)] = id
    } else {
      copy = copyLog(source, { id, createdAt, cwd, word })
      if (index === 5) {
        smallId = id
        smallWord = word
      }
      if (index >= 10 && index < 16) sendTargets.push(id)
    }
    writeStored(home, copy)
  }
  const manifest: HomeManifest = {
    recipe: recipeOf(sessions),
    home,
    sessions,
    realRuns,
    workspaces,
    smallId,
    smallWord,
    longIds,
    sendTargets,
    subagentId: child.header.id,
    benchCwd: workspaces[2]!,
    seedMs: Date.now() - started,
  }
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2))
  log(`seed: ${sessions} sessions in ${home} (${copies} copies) in ${manifest.seedMs} ms`)
  return manifest
}
