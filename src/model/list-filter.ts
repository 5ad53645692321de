/**
 * The filters a list applies to a session's header before liveness and the query (docs/tools.md#sessions_list:
 * visibility, then `scope`), as one value the tool and a port share (`SessionQueryPort.listNewest`,
 * ports/session-query.ts): the port applies them to its stored rows (`home/corpus-row-scan.ts` `passesSql`), the
 * tool and the port to headers with {@link headerPasses}.
 *
 * @module dsh-cross-session/model/list-filter
 */

import { isSubagent, isVisible, type SessionHeaderView, type Visibility } from './sessions.js'

/** A list's `scope` argument (docs/tools.md#sessions_list). */
export type ListScope = 'top-level' | 'subagents' | 'all'

/** A list's header filters: who is calling, the `visibility` setting, and the `scope` argument. */
export interface HeaderFilter {
  /** The caller's header: its own session is always visible; with `visibility: workspace`, its `cwd` is the workspace. */
  readonly caller: SessionHeaderView
  readonly visibility: Visibility
  readonly scope: ListScope
}

/** Whether a header passes `filter`: visible to the caller (`isVisible`, ./sessions.ts) and in scope (`isSubagent`). */
export function headerPasses(filter: HeaderFilter, header: SessionHeaderView): boolean {
  if (!isVisible(header, filter.caller, filter.visibility)) return false
  return filter.scope === 'all' || (filter.scope === 'subagents') === isSubagent(header)
}
