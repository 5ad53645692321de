/**
 * `npm run bench`: how each tool's cost grows with the corpus, and the
 * budgets (bench/budgets.ts, docs/performance.md "Budgets"), PASS/FAIL.
 *
 * 1. In memory: the package's executors over the counting fakes, corpora of
 *    100 / 1,000 / 10,000 / 50,000 sessions and surfaces of 100 / 1,000 /
 *    10,000 / 100,000 events; the bytes of the definitions the plugin
 *    registers; send-limiter memory; sends through the plugin mounted on the
 *    fake host built from rc.8, timed. The plugin mounted in this process
 *    keeps its home store in a temporary `DSH_HOME`, never in `~/.dsh`.
 * 2. Real harness (rc.8): seeded `DSH_HOME`s of 120, 1,000 and 10,000 persisted
 *    sessions, one headless harness process each, the package's own
 *    definitions timed inside it against `ctx.sessionQuery` / `ctx.agents`.
 *
 * 3. Several processes on one home (docs/architecture.md §8, bench/home/):
 *    delivery through the home store between two OS processes, an idle
 *    owner's CPU, the store's size before and after its sweep, and the
 *    same delivery between real `dsh` processes (headless → web host).
 *
 * 4. Many processes posting at once against one home store
 *    (bench/home/load.ts): failed posts, duplicates, each process's longest
 *    event-loop stall, store transactions per delivered message.
 *
 * 5. Several machines on one PostgreSQL server over loopback
 *    (bench/home/machines.ts): a store call's round trip, how soon another
 *    machine hears a post, a post until the other machine recorded it, a
 *    read of a session of the other machine.
 *
 * Options: `--quick` (fewer iterations), `--no-harness` (no real `dsh`
 * process), `--only home` (parts 3 and 4 alone), `--only load` (part 4
 * alone), `--only machines` (part 5 alone), `--fresh` (re-seed the homes),
 * `--out FILE` (also write the markdown report there; default
 * `.tmp/bench/report.md`), `--100k` (also the real harness at 100,000
 * sessions: seeding it takes minutes and ~1.7 GB). Exit code 1 when a
 * budget fails.
 *
 * Needs `--expose-gc` and a large young generation for the heap figures
 * (see ./measure.ts): when started without them it re-runs itself with them.
 *
 * @module bench/run
 */

import { spawnSync } from 'node:child_process'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { controllerHostCases, controllerHostTable, controllerHostVerdicts, frameParseCase } from './controller-host.js'
import { limiterCases, listCases, pluginSendCases, readCases, schemaBytes, sendCases, type PluginSendRow } from './cases.js'
import { homeVerdicts, loadVerdicts, machinesVerdicts, memoryVerdicts, pluginSendVerdicts, realVerdicts, wireSchemaVerdict, type Verdict } from './budgets.js'
import { settingsReadCost } from './settings.js'
import { ROOT } from './harness/dsh.js'
import { runHarnessBench, type HarnessResult } from './harness/run-harness.js'
import type { CaseRow } from './measure.js'
import { caseTable, corpusTable, homeTable, limiterTable, storeSizeTable, verdictTable } from './table.js'
import { crossProcessNotes, crossProcessRows, runCrossProcessBench } from './home/cross-process.js'
import { realNotes, realRows, runRealCrossProcessBench, type RealResult } from './home/real.js'
import { runStoreSizeBench, storeSizeNotes } from './home/store-size.js'
import { loadNotes, PROCESSES, runLoadBench } from './home/load.js'
import { machinesNotes, runMachinesBench } from './home/machines.js'

const NODE_FLAGS = ['--expose-gc', '--max-semi-space-size=256']

if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
  const child = spawnSync(process.execPath, [...NODE_FLAGS, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' })
  process.exit(child.status ?? 1)
}

const argv = new Set(process.argv.slice(2))
const quick = argv.has('--quick')
const onlyIndex = process.argv.indexOf('--only')
const only = onlyIndex > 0 ? process.argv[onlyIndex + 1] : undefined
if (only !== undefined && only !== 'home' && only !== 'load' && only !== 'machines') {
  throw new Error(`--only ${only}: the parts that run alone are \`home\`, \`load\` and \`machines\``)
}
const harness = !argv.has('--no-harness')
const outIndex = process.argv.indexOf('--out')
const workDir = join(ROOT, '.tmp', 'bench')
const outFile = outIndex > 0 ? process.argv[outIndex + 1]! : join(workDir, 'report.md')
const log = (line: string): void => { process.stderr.write(`${line}\n`) }
// The plugin mounted in this process (controller-host and plugin cases) opens its home store under DSH_HOME.
const benchHome = mkdtempSync(join(tmpdir(), 'xs-bench-home-'))
process.env.DSH_HOME = benchHome
process.once('exit', () => rmSync(benchHome, { recursive: true, force: true }))

function machine(): string {
  const nproc = spawnSync('nproc', { encoding: 'utf8' }).stdout.trim()
  return `nproc ${nproc || cpus().length}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform}-${process.arch}, load average at start ${loadavg().map(value => value.toFixed(1)).join(' / ')}`
}

/** `lib/` built for the real harness (it mounts `lib/plugin.js`). */
function buildLib(): void {
  log('building lib/ (tsc -p tsconfig.build.json)')
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' })
  if (build.status !== 0) throw new Error('build failed')
}

/** Parts 1 and 2: the tools over in-memory corpora, then over real persisted ones. */
async function corpusParts(out: string[], verdicts: Verdict[]): Promise<void> {
  log('in-memory: sessions_list')
  const memory: CaseRow[] = [...await listCases(quick, log)]
  log('in-memory: sessions_read')
  memory.push(...await readCases(quick, log))
  log('in-memory: sessions_send')
  memory.push(...await sendCases(quick, log))
  const schemas = schemaBytes()
  const limiter = limiterCases()
  verdicts.push(...memoryVerdicts(memory, schemas.total, limiter))
  out.push('## In memory (package executors over the counting fakes)', '', caseTable(memory), '')
  out.push(`Schemas of the definitions the plugin registers, as the model receives them (request \`tools\` entries, compact JSON): ${Object.entries(schemas.perTool).map(([name, bytes]) => `${name} ${bytes}`).join(', ')}; total ${schemas.total} bytes (${schemas.inner} without the \`{"type":"function"}\` wrappers).`, '')
  out.push('Send limiter, one sender to N distinct peers:', '', limiterTable(limiter), '')
  log('in-memory: settings read per tool call')
  const settingsCost = await settingsReadCost(quick)
  out.push(`Settings read per tool call (real rc.8 settings service): ${settingsCost.readonlyNs.toFixed(1)} ns while unchanged (median of 5 × ${settingsCost.reads} reads); ${(settingsCost.afterChangeNs / 1000).toFixed(1)} µs for the first read after a change (one resolveSettings).`, '')
  log('in-memory: sends through the mounted plugin, timed')
  const pluginSends = await pluginSendCases(quick ? 5 : 20)
  out.push('Sends through the plugin mounted on the fake rc.8 host (real adapters, home guard, record wait):', '', pluginSendTable(pluginSends), '')
  verdicts.push(...pluginSendVerdicts(pluginSends))
  log('in-memory: controller-line host and frame parsing')
  const controllerRows = [...await controllerHostCases(quick ? 5 : 20), await frameParseCase(quick ? 5 : 20)]
  out.push('## Controller-line host and frame parsing', '', controllerHostTable(controllerRows), '')
  verdicts.push(...controllerHostVerdicts(controllerRows))

  if (harness) {
    buildLib()
    const results: HarnessResult[] = []
    for (const size of [120, 1_000, 10_000, ...(argv.has('--100k') ? [100_000] : [])]) {
      log(`real harness: ${size} persisted sessions`)
      results.push(await runHarnessBench(workDir, size, { fresh: argv.has('--fresh'), iterations: quick ? 2 : 5, log }))
    }
    const real = results.flatMap(result => result.rows)
    out.push('## Real harness (rc.8 `ctx.sessionQuery` / `ctx.agents`, persisted JSONL+zstd corpus)', '', caseTable(real), '')
    out.push('### Corpus cost: first call and warm median per corpus size', '', corpusTable(real), '')
    for (const result of results) {
      out.push(`- ${result.manifest.sessions} sessions: seeded from ${result.manifest.realRuns} real headless runs (home reused or built in ${result.manifest.seedMs} ms); the priming process (it indexed the home) ${result.primeMs} ms, the measured harness process ${result.bootMs} ms end to end.`)
    }
    const wire = results[0]!.wireToolBytes
    const wireTotal = Object.values(wire).reduce((sum, bytes) => sum + bytes, 0)
    out.push('', `Tools on the wire (the chat request's \`tools\` entries, \`{"type":"function","function":{…}}\`, as the harness sent them): ${Object.entries(wire).map(([name, bytes]) => `${name} ${bytes}`).join(', ')}; total ${wireTotal} bytes.`, '')
    verdicts.push(...realVerdicts(real), wireSchemaVerdict(wire))
  }
}

function pluginSendTable(rows: PluginSendRow[]): string {
  return [
    '| case | iterations | bound ms | median ms | max ms | result |',
    '|---|--:|--:|--:|--:|---|',
    ...rows.map(row => `| ${row.case} | ${row.iterations} | ${row.boundMs} | ${row.medianMs.toFixed(2)} | ${row.maxMs.toFixed(2)} | ${row.result.replace(/\|/g, '\\|')} |`),
  ].join('\n')
}

/** Part 3: several dsh processes on one home (docs/architecture.md §8). */
async function homePart(out: string[], verdicts: Verdict[]): Promise<void> {
  log('home: package path (two OS processes, one store)')
  const crossProcess = await runCrossProcessBench({ messages: quick ? 50 : 200, idleMs: quick ? 5000 : 10_000, log })
  log('home: store size and sweep')
  const storeSize = await runStoreSizeBench({ messages: 10_000, batches: 2, log })
  let real: RealResult | undefined
  if (harness) real = await runRealCrossProcessBench({ sends: quick ? 10 : 30, log })
  out.push('## Several processes on one home (docs/architecture.md §8)', '', homeTable([...crossProcessRows(crossProcess), ...(real === undefined ? [] : realRows(real))]), '')
  out.push(...crossProcessNotes(crossProcess), ...(real === undefined ? [] : realNotes(real)), '')
  out.push(...storeSizeNotes(storeSize), '', storeSizeTable(storeSize), '')
  verdicts.push(...homeVerdicts({ crossProcess, storeSize, ...(real === undefined ? {} : { real }) }))
}

async function main(): Promise<void> {
  const started = Date.now()
  const out: string[] = [`# dsh-cross-session benchmark`, '', `machine: ${machine()}`, `date: ${new Date().toISOString()}${quick ? ' (--quick)' : ''}`, '']

  const verdicts: Verdict[] = []
  if (only === undefined) await corpusParts(out, verdicts)
  else if (harness && only === 'home') buildLib()
  if (only === undefined || only === 'home') await homePart(out, verdicts)

  if (only === undefined || only === 'home' || only === 'load') {
    log(`load: ${PROCESSES} processes posting at once`)
    const load = await runLoadBench({ perProcess: quick ? 10 : 60, log })
    out.push(`## ${PROCESSES} processes posting at once (docs/architecture.md §8)`, '', ...loadNotes(load), '')
    verdicts.push(...loadVerdicts(load))
  }

  if (only === undefined || only === 'machines') {
    log('machines: two machines on one PostgreSQL server')
    const machines = await runMachinesBench({ messages: quick ? 20 : 100, log })
    out.push('## Several machines on one PostgreSQL server (docs/architecture.md §8 "Several machines")', '', ...machinesNotes(machines), '')
    verdicts.push(...machinesVerdicts(machines))
  }

  out.push('## Budgets', '', `CPU: ${cpus()[0]?.model ?? 'unknown'} (nproc ${cpus().length}); load average now ${loadavg().map(value => value.toFixed(1)).join(' / ')}; each timed figure below carries the 1-minute load when it was taken.`, '', verdictTable(verdicts), '')
  out.push(`Load average at the end: ${loadavg().map(value => value.toFixed(1)).join(' / ')} (shared machine: wall times scale with it).`, '')
  const seconds = ((Date.now() - started) / 1000).toFixed(0)
  out.push(`Bench wall time: ${seconds} s.`)
  const report = out.join('\n')
  process.stdout.write(`${report}\n`)
  mkdirSync(join(outFile, '..'), { recursive: true })
  writeFileSync(outFile, `${report}\n`)
  const failed = verdicts.filter(verdict => !verdict.pass)
  log(failed.length === 0 ? 'all budgets PASS' : `${failed.length} budget(s) FAIL`)
  process.exitCode = failed.length === 0 ? 0 : 1
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 2
})
