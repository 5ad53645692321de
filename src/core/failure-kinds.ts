/**
 * Backend failures sorted into a closed set of kinds, so that only a table
 * text (`src/presentation/failures.ts`) ever reaches the model and the raw
 * error goes to the log alone (docs/tools.md#refusals-and-their-order,
 * `rejected`; the pattern of `serviceBoundary` in
 * `@deepseek-ai/dsh-tool-session-query@0.0.1-rc.1` lib/index.js).
 *
 * Sources of the codes:
 * - session controller `RemoteError` codes: `@deepseek-ai/dsh-api-session-controller`
 *   0.1.2-alpha.2 lib/typert.host.js `RemoteErrorDetailsMap` (see
 *   `src/adapters/remote-errors.ts`);
 * - session query: `@deepseek-ai/dsh-session-query` 0.1.0-rc.8
 *   lib/types/config.d.ts `SessionQueryErrorCode` (copied: the package is
 *   not a dependency of this one);
 * - file system: Node's `error.code` of the calls the mailbox, lease and
 *   index make (`node:fs`);
 * - another machine's session read through the shared store: this package's own `machine/…` codes;
 * - `AbortError` / `TimeoutError` by `error.name` (DOM exceptions of
 *   `AbortSignal`).
 *
 * Pure; never throws.
 *
 * @module dsh-cross-session/core/failure-kinds
 */

/** Controller `RemoteError` codes this package tells apart. */
export const CONTROLLER_CODES = [
  'session/not-found',
  'session/agent-busy',
  'session/model-unavailable',
  'session/steer-unavailable',
  'session/queue-item-not-found',
  'session/conflict',
  'session/workspace-attach-failed',
  'workspace/not-found',
  'agent-preset/not-found',
  'agent-preset/invalid',
  'agent-preset/locked',
  'agent-preset/conflict',
  'gateway/cancelled',
  'gateway/bad-request',
  'gateway/internal',
] as const

/** rc.8 `SessionQueryErrorCode`, every member. */
export const SESSION_QUERY_CODES = [
  'SESSION_QUERY_ABORTED',
  'SESSION_QUERY_CORRUPT_SESSION',
  'SESSION_QUERY_EVENT_NOT_FOUND',
  'SESSION_QUERY_INDEX_FAILED',
  'SESSION_QUERY_INVALID_CONFIG',
  'SESSION_QUERY_INVALID_CURSOR',
  'SESSION_QUERY_INVALID_FILTER',
  'SESSION_QUERY_INVALID_LIMIT',
  'SESSION_QUERY_INVALID_QUERY',
  'SESSION_QUERY_INVALID_LINEAGE',
  'SESSION_QUERY_INVALID_SURFACE',
  'SESSION_QUERY_INVALID_WINDOW',
  'SESSION_QUERY_PERSISTENCE_FAILED',
  'SESSION_QUERY_SEARCH_DISABLED',
  'SESSION_QUERY_SESSION_NOT_FOUND',
  'SESSION_QUERY_STALE_CURSOR',
  'SESSION_QUERY_SOURCE_CONFLICT',
] as const

/** File-system error codes of the calls this package makes. */
export const FILE_SYSTEM_CODES = [
  'EACCES', 'EPERM', 'ENOENT', 'EEXIST', 'ENOTDIR', 'EISDIR', 'ELOOP', 'ENAMETOOLONG',
  'ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EMFILE', 'ENFILE', 'EBUSY', 'EAGAIN',
] as const

/**
 * A session of another machine read through the shared store (docs/architecture.md §8 "Several machines"):
 * `home/pg/machines-query.ts` throws these codes.
 */
export const MACHINE_CODES = [
  'machine/unreachable',
  'machine/unanswered',
  'machine/read-failed',
  'machine/too-large',
  'machine/store-down',
] as const

type ControllerCode = typeof CONTROLLER_CODES[number]
type MachineCode = typeof MACHINE_CODES[number]
type SessionQueryCode = typeof SESSION_QUERY_CODES[number]
type FileSystemCode = typeof FILE_SYSTEM_CODES[number]

/** Every kind of backend failure; each has one row in the model-safe table. */
export type FailureKind = ControllerCode | SessionQueryCode | FileSystemCode | MachineCode | 'aborted' | 'timeout' | 'unknown'

const KNOWN_CODES: ReadonlySet<string> = new Set<string>([
  ...CONTROLLER_CODES, ...SESSION_QUERY_CODES, ...FILE_SYSTEM_CODES, ...MACHINE_CODES,
])

/** Whether `code` names a kind of its own (own strings only). */
export function isFailureCode(code: unknown): code is ControllerCode | SessionQueryCode | FileSystemCode | MachineCode {
  return typeof code === 'string' && KNOWN_CODES.has(code)
}

/**
 * The kind of one thrown value: its `code` when the table knows it, else
 * `aborted` / `timeout` by name, else `unknown`. Messages are never read.
 */
export function classifyFailure(error: unknown): FailureKind {
  try {
    if (typeof error !== 'object' || error === null) return 'unknown'
    const { code, name } = error as { code?: unknown, name?: unknown }
    if (isFailureCode(code)) return code
    if (name === 'AbortError' || code === 'ABORT_ERR') return 'aborted'
    if (name === 'TimeoutError' || code === 'ETIMEDOUT') return 'timeout'
    return 'unknown'
  } catch {
    return 'unknown'
  }
}
