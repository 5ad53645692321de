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

  let benchTools: Array<{ function?: { name?: string } }> = []
  const model = await startFakeModel({
    lifetimeMs: 9 * 60_000,
    title: () => 'Cross-session bench',
    scenario: request => {
      if (request.toolNames.includes('sessions_list') && benchTools.length === 0) benchTools = request.tools
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
      nodeOptions: '--expose-gc --max-semi-space-size=64',
      timeoutMs: 240_000,
    })
  } finally {
    await model.close()
  }
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
  return { manifest, rows: result.rows, wireToolBytes, bootMs: run.ms, log: run.stderr }
}
