/**
 * Cross-process delivery in the real harness (rc.8): a `dsh web` host holds
 * session A live; a headless `dsh` process B, on the same `DSH_HOME`, makes
 * `sends` sequential `sessions_send` calls to A. For comparison the same
 * sends are made by a session C that lives in the web host itself (a local
 * delivery). A tool call's latency is the time from the model's answer
 * carrying the call to the harness's next request carrying its result
 * (timed at the scripted model), so it includes the harness's own tool
 * dispatch and A's recording of the message ("accepted means recorded").
 *
 * @module bench/home/real
 */

import { startFakeModel } from '../../test/e2e/support/fake-model.js'
import { makeHome, runHeadless, startWeb, writePatch } from '../../test/e2e/support/harness.js'
import { router, type ActorScript } from '../../test/e2e/support/scenario.js'

/** Result of {@link runRealCrossProcessBench}. */
export interface RealResult {
  remote: number[]
  local: number[]
  allRecorded: boolean
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** Run the bench (one web host, one headless sender). */
export async function runRealCrossProcessBench(options: { sends: number, log: (line: string) => void }): Promise<RealResult> {
  const h = makeHome('bench-xp', 'xs-bench-')
  let alphaId = ''
  const timings: Record<'B' | 'C', { repliedAt: number[], arrivedAt: number[], results: string[] }> = {
    B: { repliedAt: [], arrivedAt: [], results: [] },
    C: { repliedAt: [], arrivedAt: [], results: [] },
  }
  const sender = (who: 'B' | 'C'): ActorScript => turn => {
    const timing = timings[who]
    if (turn.step > 0) {
      timing.arrivedAt.push(Date.now())
      timing.results.push(turn.results[0]?.content ?? '')
    }
    if (turn.step >= options.sends) return { text: `${who} done` }
    timing.repliedAt.push(Date.now())
    return { calls: [{ name: 'sessions_send', args: { session_id: alphaId, message: `bench ${who} ${turn.step}` } }] }
  }
  const model = await startFakeModel({
    scenario: router({ 'ROLE:A': () => ({ text: 'ok' }), 'ROLE:B': sender('B'), 'ROLE:C': sender('C') }),
    maxRequests: 4 * options.sends + 40,
  })
  // The per-target rate limit (6/min by default) would refuse most sends of a bench.
  const patch = writePatch(h, { plugin: { maxSendsPerMinute: 120 } })
  const web = await startWeb(h, model, { patch })
  try {
    alphaId = (await web.create()).sessionId
    await web.prompt(alphaId, 'ROLE:A target')
    await web.waitIdle(alphaId)
    options.log(`real cross-process: ${options.sends} sends from a headless process`)
    await runHeadless(h, model, 'ROLE:B send', { patch, timeoutMs: 240_000 })
    options.log(`real cross-process: ${options.sends} sends from a session in the same web host`)
    const gamma = (await web.create()).sessionId
    await web.prompt(gamma, 'ROLE:C send')
    await web.waitIdle(gamma, { timeoutMs: 240_000 })
    const spans = (who: 'B' | 'C'): number[] => timings[who].arrivedAt.map((at, index) => at - timings[who].repliedAt[index]!)
    const recorded = [...timings.B.results, ...timings.C.results].every(text => /recorded at seq \d+/.test(text))
    return { remote: spans('B'), local: spans('C'), allRecorded: recorded && timings.B.results.every(text => text.includes('delivered through the mailbox')) }
  } finally {
    await web.stop()
    await model.close()
    h.cleanup()
  }
}

/** Markdown lines of the result. */
export function realReport(result: RealResult): string[] {
  const describe = (values: number[]): string => `median ${median(values).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms (${values.length} sends)`
  return [
    `- real harness, sender in another dsh process (headless → web host, through the mailbox): ${describe(result.remote)}.`,
    `- real harness, sender in the same process (web host → web host, local delivery), for comparison: ${describe(result.local)}.`,
    `- every send answered \`recorded at seq N\`${result.allRecorded ? '' : ' — NOT all (see the tool results)'}.`,
  ]
}

export { median }
