/**
 * Cross-process delivery between real `dsh` processes (rc.8,
 * docs/architecture.md §8): a `dsh web` host holds session A live; a
 * headless `dsh` process B, on the same `DSH_HOME`, makes `sends`
 * sequential `sessions_send` calls to A, which go through the home store.
 * For comparison the same sends are then made by a session C live in the
 * web host itself (a local delivery, no store).
 *
 * Every figure is read from what the processes themselves recorded, on one
 * machine clock (epoch ms):
 * - the message's row in `cross-session/store.sqlite`: `created_at` is the
 *   sender's `post`, i.e. its admission (a local send has no row: its
 *   admission is A's `agent/inbox/spliced` of the message);
 * - A's log: `agent/inbox/spliced` (its holder admitted it) and the
 *   message's own `user/message` (recorded);
 * - the sender's log: `tool/call` and `tool/result` of the send (the tool
 *   returned `recorded at seq N`).
 * "Admission → the sender has `recorded at seq N`" is the sender's
 * `tool/result` minus its admission: the wait `waitRecorded` adds, plus the
 * few statements that format the result. Also given: the whole tool call
 * (`tool/call` → `tool/result`), and the span the scripted model sees from
 * its answer carrying the call to the request carrying the result (what
 * this bench measured for the file mailbox before the store,
 * docs/performance.md).
 *
 * @module bench/home/real
 */

import { existsSync } from 'node:fs'
import { storePaths } from '../../src/home/store-open.js'
import { startFakeModel } from '../../test/e2e/support/fake-model.js'
import { makeHome, readSession, runHeadless, startWeb, writePatch, type PersistedSession, type WebHarness } from '../../test/e2e/support/harness.js'
import { router, type ActorScript } from '../../test/e2e/support/scenario.js'
import type { HomeRow } from '../table.js'
import { summarize, type Summary } from './stats.js'

/** One path's figures, ms. */
export interface RealPath {
  sends: number
  /** Results that said `recorded at seq N` and whose seq A's log (and, remote, the store row) agrees with. */
  recorded: number
  /** Admission → the sender's tool returned `recorded at seq N`. */
  admissionToResult: Summary
  /** The same, split at A's admission (remote: the holder noticed and claimed the post) and at A's `user/message`. */
  phases: { admitted: Summary, logged: Summary, back: Summary }
  /** The whole `sessions_send` call in the sender (`tool/call` → `tool/result`). */
  toolCall: Summary
  /** At the scripted model: its answer carrying the call → the request carrying the result. */
  atModel: Summary
}

/** Result of {@link runRealCrossProcessBench}. */
export interface RealResult {
  remote: RealPath
  local: RealPath
  /** Messages the store held for A once both runs were over, by state. */
  storeRows: Record<string, number>
}

interface Spans { repliedAt: number[], arrivedAt: number[] }

/** The call id inside a message id made by `requestIdFor` (`cross-session:<caller>:<callId>:<digest>`). */
function callIdOf(messageId: string): string | undefined {
  const parts = messageId.split(':')
  return parts.length === 4 && parts[0] === 'cross-session' ? parts[2] : undefined
}

/** Per call id of `sessions_send`: when the tool was called and when its result was logged, and the result text. */
function toolCalls(log: PersistedSession): Map<string, { calledAt: number, resultAt?: number, text?: string }> {
  const calls = new Map<string, { calledAt: number, resultAt?: number, text?: string }>()
  for (const event of log.events) {
    if (event.type === 'tool/call' && event.data?.name === 'sessions_send' && typeof event.data.callId === 'string') calls.set(event.data.callId, { calledAt: event.time })
    if (event.type !== 'tool/result') continue
    const callId = event.data?.message?.source?.callId
    const call = typeof callId === 'string' ? calls.get(callId) : undefined
    if (call === undefined) continue
    call.resultAt = event.time
    call.text = JSON.stringify(event.data.message.content)
  }
  return calls
}

/** Per message id: when A's holder admitted it and where and when A's log recorded it. */
function targetLog(log: PersistedSession): Map<string, { admittedAt?: number, seq?: number, loggedAt?: number }> {
  const messages = new Map<string, { admittedAt?: number, seq?: number, loggedAt?: number }>()
  const entry = (id: string): { admittedAt?: number, seq?: number, loggedAt?: number } => {
    let found = messages.get(id)
    if (found === undefined) messages.set(id, found = {})
    return found
  }
  for (const event of log.events) {
    if (event.type === 'agent/inbox/spliced') {
      for (const inserted of Array.isArray(event.data?.inserted) ? event.data.inserted : []) {
        if (typeof inserted?.id === 'string' && inserted.id.startsWith('cross-session:')) entry(inserted.id).admittedAt ??= event.time
      }
    } else if (event.type === 'user/message' && typeof event.data?.id === 'string' && event.data.id.startsWith('cross-session:')) {
      const found = entry(event.data.id)
      found.seq ??= event.seq
      found.loggedAt ??= event.time
    }
  }
  return messages
}

interface StoreRow { message_id: string, sender: string, state: string, seq: number | null, created_at: number }

function pathFigures(options: { sends: number, sender: PersistedSession, target: ReturnType<typeof targetLog>, rows: Map<string, StoreRow> | undefined, spans: Spans }): RealPath {
  const calls = toolCalls(options.sender)
  const total: number[] = []
  const admitted: number[] = []
  const logged: number[] = []
  const back: number[] = []
  const toolCall: number[] = []
  let recorded = 0
  for (const [messageId, inTarget] of options.target) {
    if (!messageId.startsWith(`cross-session:${options.sender.header.id}:`)) continue
    const call = calls.get(callIdOf(messageId) ?? '')
    if (call?.resultAt === undefined || inTarget.admittedAt === undefined || inTarget.loggedAt === undefined) continue
    const row = options.rows?.get(messageId)
    const said = /recorded at seq (\d+)/.exec(call.text ?? '')
    const agrees = said !== null && Number(said[1]) === inTarget.seq && (options.rows === undefined || (row?.state === 'recorded' && row.seq === inTarget.seq))
    if (!agrees) continue
    recorded++
    // Remote: admission is the sender's post (its store row); local: A's inbox splice.
    const admission = options.rows === undefined ? inTarget.admittedAt : row!.created_at
    total.push(call.resultAt - admission)
    admitted.push(inTarget.admittedAt - admission)
    logged.push(inTarget.loggedAt - inTarget.admittedAt)
    back.push(call.resultAt - inTarget.loggedAt)
    toolCall.push(call.resultAt - call.calledAt)
  }
  const atModel = options.spans.arrivedAt.map((at, index) => at - options.spans.repliedAt[index]!)
  return {
    sends: options.sends,
    recorded,
    admissionToResult: summarize(total),
    phases: { admitted: summarize(admitted), logged: summarize(logged), back: summarize(back) },
    toolCall: summarize(toolCall),
    atModel: summarize(atModel),
  }
}

/** Run the bench (one web host, one headless sender, then a sender in the web host). */
export async function runRealCrossProcessBench(options: { sends: number, log: (line: string) => void }): Promise<RealResult> {
  const h = makeHome('bench-xp', 'xs-bench-')
  let alphaId = ''
  const spans: Record<'B' | 'C', Spans> = { B: { repliedAt: [], arrivedAt: [] }, C: { repliedAt: [], arrivedAt: [] } }
  const sender = (who: 'B' | 'C'): ActorScript => turn => {
    if (turn.step > 0) spans[who].arrivedAt.push(Date.now())
    if (turn.step >= options.sends) return { text: `${who} done` }
    spans[who].repliedAt.push(Date.now())
    return { calls: [{ name: 'sessions_send', args: { session_id: alphaId, message: `bench ${who} ${turn.step}` } }] }
  }
  const model = await startFakeModel({
    scenario: router({ 'ROLE:A': () => ({ text: 'ok' }), 'ROLE:B': sender('B'), 'ROLE:C': sender('C') }),
    maxRequests: 4 * options.sends + 40,
  })
  // The per-target rate limit (6/min by default) would refuse most sends of a bench.
  const patch = writePatch(h, { plugin: { maxSendsPerMinute: 120 } })
  let web: WebHarness | undefined
  let bravoId = ''
  let gammaId = ''
  try {
    web = await startWeb(h, model, { patch })
    alphaId = (await web.create()).sessionId
    await web.prompt(alphaId, 'ROLE:A target')
    await web.waitIdle(alphaId)
    options.log(`real cross-process: ${options.sends} sends from a headless process to a session of the web host`)
    bravoId = (await runHeadless(h, model, 'ROLE:B send', { patch, timeoutMs: 240_000 })).sessionId
    options.log(`real cross-process: ${options.sends} sends from a session in the same web host`)
    gammaId = (await web.create()).sessionId
    await web.prompt(gammaId, 'ROLE:C send')
    await web.waitIdle(gammaId, { timeoutMs: 240_000 })
    await web.waitIdle(alphaId, { timeoutMs: 60_000 })
  } catch (error: unknown) {
    await web?.stop()
    await model.close()
    h.cleanup()
    throw error
  }
  try {
    // Stopped first, so every log is complete and the store closed.
    await web.stop()
    await model.close()
    const { file } = storePaths(h.home)
    if (!existsSync(file)) throw new Error(`bench: no home store at ${file}`)
    const sqlite = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite')
    const db = new sqlite.DatabaseSync(file, { readOnly: true })
    let rows: StoreRow[]
    try {
      rows = db.prepare('SELECT message_id, sender, state, seq, created_at FROM messages WHERE target = ?').all(alphaId) as unknown as StoreRow[]
    } finally {
      db.close()
    }
    const target = targetLog(readSession(h, alphaId))
    const storeRows: Record<string, number> = {}
    for (const row of rows) {
      const key = `${row.sender === bravoId ? 'from B' : row.sender === gammaId ? 'from C' : 'other'} ${row.state}`
      storeRows[key] = (storeRows[key] ?? 0) + 1
    }
    return {
      remote: pathFigures({ sends: options.sends, sender: readSession(h, bravoId), target, rows: new Map(rows.map(row => [row.message_id, row])), spans: spans.B }),
      local: pathFigures({ sends: options.sends, sender: readSession(h, gammaId), target, rows: undefined, spans: spans.C }),
      storeRows,
    }
  } finally {
    h.cleanup()
  }
}

/** Rows of the home table. */
export function realRows(result: RealResult): HomeRow[] {
  const rows = (part: string, path: RealPath, admitted: string): HomeRow[] => [
    { part, case: 'admission → the sender has `recorded at seq N`', ms: path.admissionToResult },
    { part, case: `  admission → ${admitted}`, ms: path.phases.admitted },
    { part, case: '  A admits → A\'s log holds it (rc.8 starts A\'s turn)', ms: path.phases.logged },
    { part, case: '  A\'s log → the sender\'s tool returns', ms: path.phases.back },
    { part, case: 'whole `sessions_send` (tool/call → tool/result)', ms: path.toolCall },
    { part, case: 'at the scripted model (answer with the call → request with its result)', ms: path.atModel },
  ]
  return [
    ...rows('real dsh: headless B → web A, through the store', result.remote, 'A admits it (its holder noticed the post and claimed it)'),
    ...rows('real dsh: web C → web A, local', result.local, 'A admits it (the same call)'),
  ]
}

/** Markdown lines under the table. */
export function realNotes(result: RealResult): string[] {
  return [
    `- real harness: A lives in a \`dsh web\` host; B is a headless \`dsh\`; C is a second session of the web host. Times from the processes' own records (the message's store row, A's and the sender's logs; one machine clock).`,
    `- sends answered \`recorded at seq N\` and agreeing with A's log (and, through the store, with the message's row): B ${result.remote.recorded}/${result.remote.sends}, C ${result.local.recorded}/${result.local.sends}; store rows for A afterwards: ${Object.entries(result.storeRows).map(([key, value]) => `${key} ${value}`).join(', ') || 'none'}.`,
  ]
}
