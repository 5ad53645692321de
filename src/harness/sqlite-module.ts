/**
 * Load `node:sqlite` with its experimental warning on one line.
 *
 * Node 22 prints two lines the first time `node:sqlite` loads in a process:
 * `(node:PID) ExperimentalWarning: SQLite is an experimental feature and
 * might change at any time` and, for the first warning of a process, a
 * `(Use \`node --trace-warnings ...\` …)` hint. Measured in rc.8 `dsh
 * --profile headless` and `dsh web`: they are the only lines on stderr, and
 * the hint points at Node internals a dsh user cannot act on. The harness
 * installs no `warning` listener of its own and rc.8 never loads
 * `node:sqlite` in its default profiles (its SQLite session index is
 * `openAt: never`).
 *
 * So only while this module's one load runs, the SQLite warning Node emits
 * synchronously is taken aside and written as its first line alone — and
 * only when Node's own printer is active (its `onWarning` listener is there;
 * `--no-warnings` removes it). No listener is added or removed, every other
 * warning passes through untouched, and later loads print nothing (Node
 * warns once per process).
 *
 * @module dsh-cross-session/harness/sqlite-module
 */

import { isMainThread } from 'node:worker_threads'

type Sqlite = typeof import('node:sqlite')

function isSqliteWarning(warning: unknown, type: unknown): boolean {
  const text = warning instanceof Error ? warning.message : String(warning)
  const name = warning instanceof Error ? warning.name : typeof type === 'string' ? type : (type as { type?: unknown } | undefined)?.type
  return name === 'ExperimentalWarning' && /SQLite/u.test(text)
}

/** Whether Node's default warning printer is listening (it is not under `--no-warnings`). */
function nodePrintsWarnings(): boolean {
  return process.listeners('warning').some(listener => listener.name === 'onWarning')
}

/** `node:sqlite`, loaded once per process. */
export function loadSqlite(): Sqlite {
  const original = process.emitWarning
  let message: string | undefined
  process.emitWarning = function (this: unknown, warning: unknown, ...rest: unknown[]) {
    if (message === undefined && isSqliteWarning(warning, rest[0])) {
      message = warning instanceof Error ? warning.message : String(warning)
      return
    }
    return (original as (...args: unknown[]) => void).call(process, warning, ...rest)
  } as typeof process.emitWarning
  try {
    return process.getBuiltinModule('node:sqlite') as Sqlite
  } finally {
    process.emitWarning = original
    // A worker thread of the process (`home/store-worker.ts`) says nothing: its process said it.
    if (message !== undefined && isMainThread && nodePrintsWarnings())
      process.stderr.write(`(node:${process.pid}) ExperimentalWarning: ${message}\n`)
  }
}
