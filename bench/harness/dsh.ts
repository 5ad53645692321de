/**
 * Run the published harness (`e2e/node_modules/.bin/dsh`, rc.8) headless and
 * offline: a fresh `DSH_HOME`, a scripted model on 127.0.0.1, telemetry off,
 * an optional `--patch` overlay (README "Install into a dsh profile"; test/e2e/support/harness.ts).
 *
 * @module bench/harness/dsh
 */

import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** The pinned harness CLI. */
export const DSH_BIN = join(ROOT, 'e2e', 'node_modules', '.bin', 'dsh')

/** Outcome of one headless run. */
export interface DshRun {
  code: number | null
  stdout: string
  stderr: string
  ms: number
}

/**
 * Run `dsh --profile headless [--patch p] task` and wait for it to exit.
 * The harness needs Node >= 22.19: the Node running this script (started
 * through scripts/node22.mjs) is put first on PATH for the `dsh` shebang.
 */
export function runHeadless(options: {
  home: string
  cwd: string
  task: string
  modelUrl: string
  patch?: string
  nodeOptions?: string
  timeoutMs?: number
}): Promise<DshRun> {
  const started = Date.now()
  const args = ['--profile', 'headless', ...(options.patch === undefined ? [] : ['--patch', options.patch]), options.task]
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    DSH_HOME: options.home,
    DEEPSEEK_API_KEY: 'x',
    DEEPSEEK_BASE_URL: options.modelUrl,
    DSH_TELEMETRY_DISABLED: '1',
    NODE_OPTIONS: options.nodeOptions ?? '',
  }
  return new Promise((resolve, reject) => {
    const child = spawn(DSH_BIN, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs ?? 240_000)
    child.on('error', reject)
    child.on('exit', code => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, ms: Date.now() - started })
    })
  })
}
