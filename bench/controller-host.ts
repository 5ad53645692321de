/**
 * `sessions_send` on a host of the controller line, and the frame parser on
 * a body of 40,000 spaces (docs/performance.md "Controller-line host and
 * frame parsing").
 *
 * The controller-host case mounts the real plugin entry (`apply`) on the
 * fake host built from rc.8 (test/support/fake-host.ts) with
 * `ctx.sessionController` built from
 * `@deepseek-ai/dsh-api-session-controller@0.1.2-alpha.2`'s published code
 * (test/support/fake-controller.ts), and counts host calls per send. A send
 * that waited the whole `recordWaitMs` there took 5,015 ms and called
 * `agents.get` about 200 times.
 *
 * @module bench/controller-host
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { buildFrame, parseFrame } from '../src/framing.js'
import { apply } from '../src/plugin.js'
import { DEFAULT_SETTINGS } from '../src/settings/resolve.js'
import { withController } from '../test/support/controller-host.js'
import { FakeHost } from '../test/support/fake-host.js'
import type { Verdict } from './budgets.js'

/** One measured case. */
export interface ControllerHostRow {
  case: string
  iterations: number
  medianMs: number
  maxMs: number
  /** Host calls per call, by member. */
  perCall: Record<string, number>
  /** First line of the last result. */
  result: string
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

async function timed(iterations: number, run: (index: number) => Promise<string> | string): Promise<{ durations: number[], last: string }> {
  const durations: number[] = []
  let last = ''
  for (let index = 0; index < iterations; index++) {
    const started = performance.now()
    last = await run(index)
    durations.push(performance.now() - started)
  }
  return { durations, last }
}

/**
 * Sends on a controller-line host: to a live peer, and waking a cold one.
 * The host emits `session/event` on every append (as rc.8 does), so the
 * record wait wakes on the session's own events; the same cold-wake case on
 * a host without `session/event` (the wait polls, from 25 ms doubling, as
 * every host did before) is measured beside it, prefixed `polled:`.
 */
export async function controllerHostCases(iterations: number): Promise<ControllerHostRow[]> {
  const rows = [...await hostCases(iterations, true), ...(await hostCases(iterations, false)).filter(row => row.case.includes('cold')).map(row => ({ ...row, case: `polled: ${row.case}, host without session/event (before)` }))]
  // The same sends beside 1,001 idle live sessions, which this process holds: nothing may grow with them.
  for (const sessionEvents of [true, false]) {
    for (const row of await hostCases(iterations, sessionEvents, IDLE_MANY)) rows.push({ ...row, case: `${sessionEvents ? '' : 'polled: '}${row.case}, ${IDLE_MANY} idle live` })
  }
  return rows
}

/** Idle live sessions of the "nothing grows" rows. */
const IDLE_MANY = 1001

async function hostCases(iterations: number, sessionEvents: boolean, idle = 0): Promise<ControllerHostRow[]> {
  // A home of its own: the sessions of each host have the same ids, and what an earlier host left in a shared store
  // (messages it claimed and had not recorded when it was disposed, back to pending) would be delivered here again.
  const home = process.env.DSH_HOME
  process.env.DSH_HOME = mkdtempSync(join(tmpdir(), 'xs-bench-host-'))
  try {
    return await hostCasesIn(iterations, sessionEvents, idle)
  } finally {
    rmSync(process.env.DSH_HOME, { recursive: true, force: true })
    process.env.DSH_HOME = home
  }
}

async function hostCasesIn(iterations: number, sessionEvents: boolean, idle: number): Promise<ControllerHostRow[]> {
  const rows: ControllerHostRow[] = []
  const host = new FakeHost({ sessionEvents })
  // Live before the mount, so the home runtime's first reconcile holds every one of them.
  for (let index = 0; index < idle; index++) host.goLive(`session-idle-${index}`, 500_000 + index)
  const controller = withController(host)
  const agents = host.services.agents as { get: (id: string) => unknown }
  const get = agents.get.bind(agents)
  let gets = 0
  agents.get = (id: string) => {
    gets++
    return get(id)
  }
  apply(host.context(), { allowResume: true, maxSendsPerMinute: 60 })
  const me = host.goLive('session-me', 1)
  for (let index = 0; index < iterations; index++) {
    host.goLive(`session-live-${index}`, 2 + index)
    host.persist(`session-cold-${index}`, 1000 + index)
  }
  for (const [name, target] of [['accepted, live peer', 'session-live-'], ['accepted, wakes cold (resolveAgent)', 'session-cold-']] as const) {
    gets = 0
    const before = { ...controller.calls }
    const { durations, last } = await timed(iterations, index => host.run('sessions_send', { session_id: `${target}${index}`, message: `note ${index}` }, me))
    const perCall: Record<string, number> = { 'agents.get': gets / iterations }
    for (const [member, count] of Object.entries(controller.calls)) perCall[`sessionController.${member}`] = (count - (before[member] ?? 0)) / iterations
    rows.push({ case: name, iterations, medianMs: median(durations), maxMs: Math.max(...durations), perCall, result: last.split('\n')[0] ?? '' })
  }
  host.dispose()
  return rows
}

/** `parseFrame` on a frame whose body is 40,000 spaces (837 ms per parse with the quadratic expression it replaced). */
export async function frameParseCase(iterations: number): Promise<ControllerHostRow> {
  const { text } = buildFrame({ fromSessionId: 'session-a', fromTitle: 't', mode: 'queue', hop: 1, body: ' '.repeat(40_000) })
  const { durations } = await timed(iterations, () => (parseFrame(text) === undefined ? 'not a frame' : 'frame'))
  return { case: 'parseFrame, body of 40,000 spaces', iterations, medianMs: median(durations), maxMs: Math.max(...durations), perCall: {}, result: parseFrame(text) === undefined ? 'not a frame' : 'frame' }
}

/** The two send cases every verdict below needs. */
const SEND_CASES = ['accepted, live peer', 'accepted, wakes cold (resolveAgent)'] as const

/** Budgets of these cases; each needs its rows (a missing row or an uncounted call fails it). */
export function controllerHostVerdicts(rows: ControllerHostRow[]): Verdict[] {
  const sends = rows.filter(row => row.case.startsWith('accepted') && !row.case.endsWith('idle live'))
  const complete = SEND_CASES.every(name => sends.some(row => row.case === name && row.iterations > 0))
  const stalled = sends.filter(row => row.maxMs >= DEFAULT_SETTINGS.recordWaitMs / 10 || !/recorded at seq \d+/.test(row.result))
  // Lookups of the send itself: on the host without session/event (on the other, the home's settle looks the
  // held session up once per append it observes, docs/architecture.md §8). Every send looks its target up at
  // least once: a row without a counted agents.get measured nothing.
  const gets = rows.filter(row => !row.case.endsWith('idle live') && (row.case.startsWith('polled:') || row.case === 'accepted, live peer')).map(row => row.perCall['agents.get'])
  const counted = gets.length === SEND_CASES.length && gets.every(value => value !== undefined && value > 0)
  const maxGets = Math.max(...gets.map(value => value ?? Infinity))
  const frame = rows.find(row => row.case.startsWith('parseFrame'))
  // Each send row beside its twin with 1,001 idle live sessions, on both host kinds (rc.8's session/event path included).
  const allSends = rows.filter(row => row.case.includes('accepted'))
  const growth = allSends.filter(row => !row.case.endsWith(`${IDLE_MANY} idle live`)).map(row => {
    const name = row.case.startsWith('polled: ') ? `polled: ${row.case.slice('polled: '.length).replace(/, host without session\/event \(before\)$/, '')}` : row.case
    const twin = allSends.find(other => other.case === `${name}, ${IDLE_MANY} idle live`)
    const few = row.perCall['agents.get'] ?? 0
    const many = twin?.perCall['agents.get']
    return { name, few, many, ok: many !== undefined && few > 0 && many <= few * 1.1 }
  })
  return [
    {
      budget: `controller host: agents.get per accepted send with ${IDLE_MANY} idle live sessions ≤ 1.1× with none, on both host kinds`,
      measured: growth.map(entry => `${entry.name}: ${entry.few.toFixed(1)} → ${entry.many?.toFixed(1) ?? 'missing'}`).join('; '),
      pass: growth.length >= 3 && growth.every(entry => entry.ok),
    },
    { budget: `controller host: accepted send recorded, max < recordWaitMs/10 (${DEFAULT_SETTINGS.recordWaitMs / 10} ms)`, measured: sends.map(row => `${row.case}: median ${row.medianMs.toFixed(2)} ms, max ${row.maxMs.toFixed(2)} ms`).join('; '), pass: complete && stalled.length === 0 },
    // 10: the controller's own lookups, the non-waking lookup, resolve, admit, the record wait, and for a wake in a
    // short-lived host one to hold the woken session in the home store and one for its answer wait (docs/architecture.md §8).
    { budget: 'controller host: ≤ 10 agents.get per accepted send (the controller\'s own lookups and a woken session\'s answer wait included; 200 before)', measured: complete && counted ? `max ${maxGets.toFixed(1)}` : `not measured (${sends.length} send rows, agents.get counted in ${gets.filter(value => value !== undefined && value > 0).length})`, pass: complete && counted && maxGets <= 10 },
    { budget: 'parseFrame on 40,000 spaces ≤ 20 ms', measured: frame === undefined ? 'missing' : `median ${frame.medianMs.toFixed(3)} ms, max ${frame.maxMs.toFixed(3)} ms`, pass: frame !== undefined && frame.maxMs <= 20 },
  ]
}

/** Markdown table of the rows. */
export function controllerHostTable(rows: ControllerHostRow[]): string {
  const lines = ['| case | iterations | median ms | max ms | host calls per call | result |', '|---|---|---|---|---|---|']
  for (const row of rows) {
    const calls = Object.entries(row.perCall).map(([name, count]) => `${name} ${Number(count.toFixed(2))}`).join(', ') || '—'
    lines.push(`| ${row.case} | ${row.iterations} | ${row.medianMs.toFixed(3)} | ${row.maxMs.toFixed(3)} | ${calls} | ${row.result.replace(/\|/g, '\\|')} |`)
  }
  return lines.join('\n')
}
