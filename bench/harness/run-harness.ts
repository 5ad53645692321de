/**
 * The real-harness half of the benchmark: seed a `DSH_HOME`, boot one
 * headless rc.8 process against the scripted local model with three patch
 * rows (a logger sink, the package's own plugin, the bench plugin), let the
 * model call `bench_run` once, and collect what the bench plugin measured.
 *
 * It also reads, from the model's side of the wire, the exact bytes of the
 * three tools as the harness serialised them into the chat request.
 *
 * @module bench/harness/run-harness
 */

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeModel } from '../../test/e2e/support/fake-model.js'
import type { CaseRow } from '../measure.js'
import { ROOT, runHeadless } from './dsh.js'
import { seedHome, type HomeManifest } from './seed-home.js'

const TASK = 'RUN THE CROSS-SESSION BENCH: call bench_run once, then stop.'
const TOOL_NAMES = ['sessions_list', 'sessions_read', 'sessions_send']

/** What one harness boot measured. */
export interface HarnessResult {
  manifest: HomeManifest
  rows: CaseRow[]
  /** Bytes of each of the three tools' JSON as the harness sent it to the model. */
  wireToolBytes: Record<string, number>
  bootMs: number
  /** The priming process (it indexed the home and exited before the measured one started), ms. */
  primeMs: number
  log: string
}

/**
 * Seed (or reuse) a home with `sessions` sessions and run the bench plugin in it.
 * @param workDir - scratch root (gitignored `.tmp/bench`).
 */
export async function runHarnessBench(workDir: string, sessions: number, options: { fresh?: boolean, iterations?: number, log?: (line: string) => void } = {}): Promise<HarnessResult> {
  const log = options.log ?? (() => {})
  const manifest = await seedHome(join(workDir, `home-${sessions}`), sessions, { fresh: options.fresh, log })
  if (!existsSync(join(ROOT, 'lib', 'plugin.js'))) throw new Error('lib/plugin.js is missing: build first (npm run build)')
  const out = join(workDir, `result-${sessions}.json`)
  const sinkLog = join(workDir, `harness-log-${sessions}.jsonl`)
  rmSync(out, { force: true })
  rmSync(sinkLog, { force: true })
  const patch = join(workDir, `bench-${sessions}.patch.yml`)
  const rows = [
    { id: 'bench-log', name: join(ROOT, 'test', 'e2e', 'support', 'logger-sink.mjs'), config: { file: sinkLog, level: 2 } },
    { id: 'cross-session', name: join(ROOT, 'lib', 'plugin.js'), config: {} },
    { id: 'cross-session-bench', name: join(ROOT, 'bench', 'harness', 'bench-plugin.mjs'), config: { out, manifest, iterations: options.iterations ?? 7 } },
  ]
  mkdirSync(workDir, { recursive: true })
  writeFileSync(patch, `- insert: ${JSON.stringify(rows)}\n`)
  // 600 s covers 10,000 sessions on a loaded 2-core machine (the run is killed at its limit, and the bench
  // plugin then reports the host's shutdown as its error); a larger home gets time in proportion.
  const timeoutMs = Math.max(600_000, sessions * 12)

  // "First call" means the first call of a new process on a home an earlier process already indexed
  // (docs/performance.md "What a new process reads"): one process lists once (its query folds every title)
  // and exits; the measured process comes after it. The priming process starts on an unindexed home (its
  // home store removed, an earlier bench run's rows with it), so its query is the unindexed first query.
  rmSync(join(manifest.home, 'cross-session'), { recursive: true, force: true })
  const primeOut = join(workDir, `prime-${sessions}.json`)
  const primePatch = join(workDir, `bench-${sessions}-prime.patch.yml`)
  rmSync(primeOut, { force: true })
  writeFileSync(primePatch, `- insert: ${JSON.stringify([rows[0], rows[1], { ...rows[2], config: { out: primeOut, manifest, prime: true } }])}\n`)
  const primed = await boot(manifest, primePatch, timeoutMs, () => [])
  if (!existsSync(primeOut)) throw new Error(`the priming process wrote no result (dsh exit ${primed.run.code}).\nstderr: ${primed.run.stderr.slice(-3000)}`)
  const { run, benchTools } = await boot(manifest, patch, timeoutMs, tools => tools)
  if (!existsSync(out)) {
    throw new Error(`the bench plugin wrote no result (dsh exit ${run.code}).\nstderr: ${run.stderr.slice(-3000)}\nstdout: ${run.stdout.slice(-1000)}`)
  }
  const result = JSON.parse(readFileSync(out, 'utf8')) as { ok: boolean, rows?: CaseRow[], error?: string }
  if (!result.ok || result.rows === undefined) throw new Error(`bench plugin failed: ${result.error}`)
  const wireToolBytes: Record<string, number> = {}
  for (const tool of benchTools) {
    const name = tool.function?.name
    if (name !== undefined && TOOL_NAMES.includes(name)) wireToolBytes[name] = Buffer.byteLength(JSON.stringify(tool))
  }
  const prime = JSON.parse(readFileSync(primeOut, 'utf8')) as { rows?: CaseRow[] }
  return { manifest, rows: [...prime.rows ?? [], ...result.rows], wireToolBytes, bootMs: run.ms, primeMs: primed.run.ms, log: run.stderr }
}

/** One headless boot against the scripted model; `keep` picks the tools of the first request that offered the package's. */
async function boot(manifest: HomeManifest, patch: string, timeoutMs: number, keep: (tools: Array<{ function?: { name?: string } }>) => Array<{ function?: { name?: string } }>) {
  let benchTools: Array<{ function?: { name?: string } }> = []
  const model = await startFakeModel({
    lifetimeMs: timeoutMs + 60_000,
    title: () => 'Cross-session bench',
    scenario: request => {
      if (request.toolNames.includes('sessions_list') && benchTools.length === 0) benchTools = keep(request.tools)
      if (request.toolResults.some(result => result.name === 'bench_run')) return { text: 'bench done' }
      if (request.lastUserText.includes('RUN THE CROSS-SESSION BENCH') && request.toolNames.includes('bench_run')) {
        return { calls: [{ name: 'bench_run', args: {} }] }
      }
      return { text: 'ack: noted your message.' }
    },
  })
  let run
  try {
    run = await runHeadless({
      home: manifest.home,
      cwd: manifest.benchCwd,
      task: TASK,
      modelUrl: model.url,
      patch,
      // BENCH_DSH_NODE_OPTIONS adds flags to both harness processes (e.g. `--cpu-prof --cpu-prof-dir=…` to profile them).
      nodeOptions: `--expose-gc --max-semi-space-size=64 ${process.env.BENCH_DSH_NODE_OPTIONS ?? ''}`.trim(),
      timeoutMs,
    })
  } finally {
    await model.close()
  }
  return { run, benchTools }
}
