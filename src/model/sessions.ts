/**
 * Facts about sessions every tool shares: the one "subagent / not
 * messageable" predicate, visibility, and defensive reading of backend rows.
 *
 * Rules: docs/tools.md#sessions_list, "Subagent rows" (a header with
 * `parentSession` or `origin: subagent`, the one predicate every tool uses;
 * `not-messageable` in docs/tools.md#refusals-and-their-order), and
 * docs/tools.md#limits, `visibility` (`workspace`: only sessions with the
 * caller's exact `cwd` exist; any other id reads as `not-found`).
 *
 * @module dsh-cross-session/model/sessions
 */

/** Who a session may see: every session, or only those sharing its `cwd` (the `visibility` setting). */
export type Visibility = 'all' | 'workspace'

/** Durable session header fields this package reads (rc.8 `SessionHeader`). */
export interface SessionHeaderView {
  /** Durable session id, e.g. `session-e218…` or a bare UUID for subagents. */
  readonly id: string
  /** Creation time, Unix epoch ms. */
  readonly createdAt: number
  /** Absolute workspace path the session was created in, if any. */
  readonly cwd?: string
  /** The session this one was forked from (subagents carry their owner here). */
  readonly parentSession?: string
  /** `'subagent'` for a child created by the subagent tool. */
  readonly origin?: string
  /** Agent preset id the session was composed from, if any. */
  readonly agentPreset?: string
}

/** One corpus row (rc.8 `SessionRecord`). */
export interface SessionRecordView {
  readonly header: SessionHeaderView
  /** Whether the session is live in this process right now. */
  readonly live: boolean
  /** Whether the persistence backend holds it. */
  readonly persisted: boolean
  /** Set when it is live in another dsh process on this home (`live` is then true). */
  readonly elsewhere?: { readonly pid: number }
  /** Set when it is a session of another machine on a shared store (docs/architecture.md §8 "Several machines"). */
  readonly machine?: MachineView
}

/** The machine of another machine's session: the name it shows, and whether a process of it answers now. */
export interface MachineView {
  readonly name: string
  readonly reachable: boolean
}

/**
 * Longest session id that can name a session, in UTF-8 bytes: a Linux file
 * name is at most 255 bytes (`NAME_MAX`), and rc.8's JSONL persistence
 * names a directory after each session id
 * (`@deepseek-ai/dsh-session-persistence-jsonl@0.1.0-rc.8`).
 */
const MAX_SESSION_ID_BYTES = 255

/**
 * Whether `sessionId` can name a session at all: 1–255 UTF-8 bytes, no
 * control characters, no path syntax (`/`, `\\`, a lone `.` or `..`). An id
 * that cannot is `not-found` for every tool, before any backend sees it (a
 * backend that stores sessions as directories would otherwise fail on it
 * with a file-system error). Pure.
 */
export function canNameSession(sessionId: string): boolean {
  if (sessionId.length === 0 || Buffer.byteLength(sessionId, 'utf8') > MAX_SESSION_ID_BYTES) return false
  if (sessionId === '.' || sessionId === '..' || /[/\\]/u.test(sessionId)) return false
  return !/\p{Cc}/u.test(sessionId)
}

/**
 * The single predicate for "subagent, not messageable": a header with a
 * `parentSession` or `origin: 'subagent'`.
 */
export function isSubagent(header: SessionHeaderView): boolean {
  return header.parentSession !== undefined || header.origin === 'subagent'
}

/** The owning session of a subagent, when the header names one. */
export function ownerOf(header: SessionHeaderView): string | undefined {
  return header.parentSession
}

/**
 * Whether a session exists for the caller under the visibility setting.
 * With `workspace`, a session is visible only when both have a `cwd` and the
 * two are equal (exact string equality, as the harness's own session-query
 * tool authorises: `@deepseek-ai/dsh-tool-session-query@0.0.1-rc.1`
 * lib/index.js); the caller always sees itself.
 */
export function isVisible(target: SessionHeaderView, caller: SessionHeaderView, visibility: Visibility): boolean {
  if (visibility === 'all' || target.id === caller.id) return true
  return caller.cwd !== undefined && target.cwd === caller.cwd
}

/**
 * Read an untrusted header. Returns `undefined` when the row has no usable
 * id; optional fields of the wrong type are dropped, a bad `createdAt` reads
 * as 0 (sorted oldest).
 */
export function readHeader(raw: unknown): SessionHeaderView | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  // A header this function made is frozen and read as it is: a list reads every stored session's header
  // again at the tool boundary (100,000 at the bench's largest home).
  if ((raw as { [MADE_HERE]?: unknown })[MADE_HERE] === true) return raw as SessionHeaderView
  const row = raw as Record<string, unknown>
  return headerOf(row.id, row.createdAt, row.cwd, row.parentSession, row.origin, row.agentPreset)
}

/**
 * {@link readHeader} of a header given field by field (a stored row's columns, `home/store-corpus.ts`: no
 * object to read first). The same checks: `undefined` without a usable id, optional fields that are not
 * non-empty strings dropped, a bad `createdAt` read as 0.
 */
export function headerOf(id: unknown, createdAt: unknown, cwd: unknown, parentSession: unknown, origin: unknown,
  agentPreset: unknown): SessionHeaderView | undefined {
  if (typeof id !== 'string' || id.length === 0) return undefined
  // Filled in place, not spread: a list reads this for every stored session (100,000 at the bench's largest home).
  const header: { -readonly [K in keyof SessionHeaderView]: SessionHeaderView[K] } = {
    id, createdAt: typeof createdAt === 'number' && Number.isFinite(createdAt) ? createdAt : 0 }
  if (typeof cwd === 'string' && cwd.length > 0) header.cwd = cwd
  if (typeof parentSession === 'string' && parentSession.length > 0) header.parentSession = parentSession
  if (typeof origin === 'string' && origin.length > 0) header.origin = origin
  if (typeof agentPreset === 'string' && agentPreset.length > 0) header.agentPreset = agentPreset
  // Not enumerable: invisible to JSON, `Object.values` and deep equality.
  Object.defineProperty(header, MADE_HERE, { value: true })
  return Object.freeze(header)
}

/** Brand of a header {@link readHeader} made (module-private, and the header is frozen: still exactly as it was checked). */
const MADE_HERE = Symbol('dsh-cross-session header')

/** A corpus row's fields as read before they are checked. */
interface RawRecord {
  readonly elsewhere?: { pid?: unknown }
  readonly live?: unknown
  readonly persisted?: unknown
  readonly machine?: unknown
}

/** Read an untrusted corpus row; `undefined` when it has no usable header. */
export function readRecord(raw: unknown): SessionRecordView | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const row = raw as Record<string, unknown>
  const header = readHeader(row.header)
  if (header === undefined) return undefined
  const { elsewhere, live, persisted, machine } = row as RawRecord
  // A row whose header {@link readHeader} made, with plain booleans and no `elsewhere` or `machine`, is read as it is:
  // a list reads every stored session's row at the tool boundary (no copy of each).
  if (header === row.header && elsewhere === undefined && machine === undefined && typeof live === 'boolean'
    && typeof persisted === 'boolean') return raw as SessionRecordView
  const pid = typeof elsewhere === 'object' && elsewhere !== null ? elsewhere.pid : undefined
  const shownMachine = readMachine(machine)
  return {
    header, live: live === true, persisted: persisted === true,
    ...(typeof pid === 'number' ? { elsewhere: { pid } } : {}),
    ...(shownMachine === undefined ? {} : { machine: shownMachine }),
  }
}

function readMachine(raw: unknown): MachineView | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const { name, reachable } = raw as { name?: unknown, reachable?: unknown }
  return typeof name === 'string' ? { name, reachable: reachable === true } : undefined
}
