/**
 * A tiny Cordis plugin that makes the harness's log visible.
 *
 * The harness swallows plugin load and activation errors unless a logger
 * exporter is mounted. The e2e patch mounts this row next to
 * the plugin under test, so a broken mount shows up in the run's output and
 * in `$DSH_HOME/e2e-log.jsonl`, which tests read.
 *
 * Config: `file` (absolute path to append JSON lines to), `level` (max level
 * exported: 0 error, 1 info, 2 warn, 3 debug; default 2).
 * It is plain JavaScript so the harness's own `import()` loads it as is.
 * @module test/e2e/support/logger-sink
 */
import { appendFileSync } from 'node:fs'
import { format } from 'node:util'

export const name = 'e2e-logger-sink'

function render(message) {
  try {
    return format(...message.args)
  } catch {
    return String(message.args[0])
  }
}

export function apply(ctx, config = {}) {
  const level = typeof config.level === 'number' ? config.level : 2
  const write = message => {
    const line = { ts: message.ts, name: message.name, type: message.type, text: render(message) }
    if (typeof config.file === 'string') appendFileSync(config.file, JSON.stringify(line) + '\n')
    if (message.type === 'error' || message.type === 'warn') process.stderr.write(`[dsh-log ${message.type}] ${line.name}: ${line.text}\n`)
  }
  // Messages logged before this row mounted sit in the root logger's buffer.
  for (const message of ctx.root.logger?.buffer ?? []) if (message.level <= level) write(message)
  ctx.logger.exporter({ levels: { default: level }, export: write })
}
