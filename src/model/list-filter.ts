/**
 * The filters a list applies to a session's header (docs/tools.md#sessions_list: visibility, then `scope`) as
 * plain values, so a port can apply them to its stored rows without building a header of each
 * (`SessionQueryPort.listNewest`, ports/session-query.ts) and the tool applies the very same rule.
 *
 * @module dsh-cross-session/model/list-filter
 */

import type { SessionHeaderView, Visibility } from './sessions.js'

/** A list's `scope` argument (docs/tools.md#sessions_list). */
export type ListScope = 'top-level' | 'subagents' | 'all'

/**
 * The filters a list applies to a row's header before liveness and the query (docs/tools.md#sessions_list:
 * visibility, then `scope`), as values a port can apply to its rows without building a header of each
 * (`SessionQueryPort.listNewest`).
 */
export interface HeaderFilter {
  /** The caller's header id: its own row is always visible. */
  readonly callerId: string
  /**
   * `undefined`: every session is visible (`visibility: all`); a path: only sessions of that workspace; `null`: none
   * (`visibility: workspace`, and the caller has no workspace).
   */
  readonly workspace: string | null | undefined
  readonly scope: ListScope
}

/** The {@link HeaderFilter} of a caller (`isVisible`, ./sessions.ts, and `inScope`, tools/list-rows.ts, as values). */
export function headerFilter(caller: SessionHeaderView, visibility: Visibility, scope: ListScope): HeaderFilter {
  return { callerId: caller.id, workspace: visibility === 'all' ? undefined : caller.cwd ?? null, scope }
}

/**
 * Whether a header with these fields passes `filter` (the same answer as `isVisible` and `inScope` of that header).
 * Optional fields are as a checked header holds them: a non-empty string or `undefined`.
 */
export function headerPasses(filter: HeaderFilter, id: string, cwd: string | undefined, parentSession: string | undefined,
  origin: string | undefined): boolean {
  const { workspace, scope } = filter
  if (workspace !== undefined && id !== filter.callerId && (workspace === null || cwd !== workspace)) return false
  if (scope === 'all') return true
  const subagent = parentSession !== undefined || origin === 'subagent'
  return scope === 'subagents' ? subagent : !subagent
}
