/**
 * `sessions_list`: discover peer sessions.
 *
 * Source: docs/tools.md#sessions_list (arguments, output; filter order
 * visibility → scope → live_only → query, local filtering that never uses
 * `searchSessions()`; Unicode-aware case-insensitive matching; newest first,
 * caller last and peers fill the limit; one batched title fold, only for
 * shown rows when there is no query; a capped limit is said).
 *
 * Backend calls per call: exactly one `listSessions`, and at most one
 * `readTitles` (none when no row is shown).
 *
 * @module dsh-cross-session/tools/sessions-list
 */

import { cancelled, commonRefusals, NOTHING_LISTED, refused, STEPS, type StoppedValue } from '../presentation/common.js'
import { failureText } from '../presentation/failures.js'
import { listedValue, type ListedValue } from '../presentation/list.js'
import type { SessionRecordView } from '../ports.js'
import { SessionsListArgs } from '../model/schemas.js'
import { TOOL_NAMES } from '../model/tool-names.js'
import { isSubagent, isVisible, readRecord } from '../model/sessions.js'
import { callBackend } from '../model/service-boundary.js'
import { validateArguments } from './arguments.js'
import type { ToolCallContext, ToolDeps } from './shared.js'

const TOOL = TOOL_NAMES.list

const NOT_ASCII = /[^\x00-\x7f]/

/**
 * How long after its start a `query` list may go on folding titles from
 * the logs, in ms (docs/performance.md "A query on a home still being
 * indexed"): the listing before the folds counts, so a home whose headers
 * alone take seconds to read folds less, not longer. A home indexed by any
 * earlier process folds only what changed, far below this; the first query
 * on a large unindexed home stops here (after at least one fold), lists
 * what it searched, and says how many titles it has not searched yet.
 */
export const QUERY_TITLE_BUDGET_MS = 5_000

/**
 * Fold a string for case-insensitive, Unicode-aware matching: NFKC, then
 * upper- and lower-casing (so `ß` matches `SS` and `Ｆｕｌｌ` matches `full`).
 */
function foldForMatch(text: string): string {
  // ASCII (every harness-made id, most paths and titles): NFKC is the identity and the case round trip is `toLowerCase`.
  if (!NOT_ASCII.test(text)) return text.toLowerCase()
  return text.normalize('NFKC').toUpperCase().toLowerCase()
}

/** The `scope` filter (`top-level` default; docs/tools.md#sessions_list). */
function inScope(record: SessionRecordView, scope: 'top-level' | 'subagents' | 'all'): boolean {
  if (scope === 'all') return true
  return scope === 'subagents' ? isSubagent(record.header) : !isSubagent(record.header)
}

/**
 * Whether a row matches a folded query by id, workspace or preset (no title
 * needed). `seen` memoises the workspace and preset answers for one call
 * (a corpus has few distinct ones, and a query list checks every row).
 */
function matchesMetadata(record: SessionRecordView, foldedQuery: string, seen: Map<string, boolean>): boolean {
  const { id, cwd, agentPreset } = record.header
  if (foldForMatch(id).includes(foldedQuery)) return true
  for (const value of [cwd, agentPreset]) {
    if (value === undefined) continue
    let matches = seen.get(value)
    if (matches === undefined) seen.set(value, matches = foldForMatch(value).includes(foldedQuery))
    if (matches) return true
  }
  return false
}

/**
 * Order rows newest first by creation time, the caller's own row last, and
 * fill `limit` with peers first (docs/tools.md#sessions_list, "Order"). Ties
 * keep the rows' order. One pass that keeps the `limit` newest peers (no sort
 * of every row: a list orders every stored session, 100,000 at the bench's
 * largest home).
 * @returns the rows to show, in order.
 */
export function orderRows(rows: readonly SessionRecordView[], callerId: string, limit: number): SessionRecordView[] {
  const peers: SessionRecordView[] = []
  let self: SessionRecordView | undefined
  for (const row of rows) {
    if (row.header.id === callerId) {
      // The first of the caller's rows in sorted order: the newest, earliest among ties.
      if (self === undefined || row.header.createdAt > self.header.createdAt) self = row
      continue
    }
    if (limit <= 0) continue
    const createdAt = row.header.createdAt
    if (peers.length === limit && createdAt <= peers[limit - 1]!.header.createdAt) continue
    // After every kept row at least as new (ties keep input order).
    let low = 0
    let high = peers.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (peers[middle]!.header.createdAt >= createdAt) low = middle + 1
      else high = middle
    }
    peers.splice(low, 0, row)
    if (peers.length > limit) peers.pop()
  }
  return self !== undefined && peers.length < limit ? [...peers, self] : peers
}

/**
 * Execute one `sessions_list` call. Never throws.
 * @param rawArgs - arguments as the harness passed them (validated here).
 * @param call - caller, call id and abort signal.
 * @param deps - ports and settings.
 * @returns the listed rows (`listed`), a refusal, or a cancellation.
 */
export async function sessionsList(rawArgs: unknown, call: ToolCallContext, deps: ToolDeps): Promise<ListedValue | StoppedValue> {
  const parsed = validateArguments(SessionsListArgs, rawArgs)
  if (!parsed.ok) return refused(commonRefusals.invalidArguments(parsed.problem, TOOL), NOTHING_LISTED)
  const caller = call.caller
  if (caller === undefined) return refused(commonRefusals.noCaller(), NOTHING_LISTED)
  const args = parsed.value
  const { settings } = deps
  const limit = Math.min(args.limit ?? settings.maxListResults, settings.maxListResults)
  const scope = args.scope ?? 'top-level'
  const query = foldForMatch((args.query ?? '').trim())

  const started = performance.now()
  const listed = await callBackend(STEPS.listing, call.signal, () => deps.sessions.listSessions(call.signal), deps.log)
  if (!listed.ok) {
    return listed.cancelled
      ? cancelled(TOOL, listed.step, NOTHING_LISTED)
      : refused(commonRefusals.backend(listed.step, listed.failure, TOOL), NOTHING_LISTED)
  }
  let malformed = 0
  const candidates: SessionRecordView[] = []
  for (const raw of Array.isArray(listed.value) ? listed.value : []) {
    const record = readRecord(raw)
    if (record === undefined) {
      malformed++
      continue
    }
    if (!isVisible(record.header, caller.header, settings.visibility)) continue
    if (!inScope(record, scope)) continue
    if (args.live_only === true && !record.live) continue
    candidates.push(record)
  }

  // With a query, titles decide matches: fold them for every candidate, once.
  // Without one, fold only the rows that will be shown.
  let titles = new Map<string, string | undefined>()
  let titlesFailed: string | undefined
  const readTitles = async (ids: string[], budgetMs?: number): Promise<string | undefined> => {
    if (ids.length === 0) return undefined
    const options = budgetMs === undefined ? undefined : { budgetMs }
    const result = await callBackend(STEPS.readingTitles, call.signal, () => deps.sessions.readTitles(ids, call.signal, options), deps.log)
    if (result.ok) {
      titles = result.value
      return undefined
    }
    return result.cancelled ? 'cancelled' : failureText(result.failure)
  }

  let matched = candidates
  let unsearched = 0
  if (query.length > 0) {
    const left = Math.max(0, QUERY_TITLE_BUDGET_MS - (performance.now() - started))
    titlesFailed = await readTitles(candidates.map(row => row.header.id), left)
    if (titlesFailed === 'cancelled') return cancelled(TOOL, STEPS.readingTitles, NOTHING_LISTED)
    const seen = new Map<string, boolean>()
    matched = candidates.filter(row => {
      if (matchesMetadata(row, query, seen)) return true
      // A title the budget did not reach: not searched, and said (docs/tools.md#sessions_list).
      if (titlesFailed === undefined && !titles.has(row.header.id)) {
        unsearched++
        return false
      }
      return foldForMatch(titles.get(row.header.id) ?? '').includes(query)
    })
  }
  const shown = orderRows(matched, caller.sessionId, limit)
  if (query.length === 0) {
    titlesFailed = await readTitles(shown.map(row => row.header.id))
    if (titlesFailed === 'cancelled') return cancelled(TOOL, STEPS.readingTitles, NOTHING_LISTED)
  }

  return listedValue({
    shown,
    matched: matched.length,
    callerId: caller.sessionId,
    titles,
    titlesFailed,
    query: query.length > 0 ? args.query : undefined,
    cappedLimit: args.limit !== undefined && args.limit > settings.maxListResults
      ? { asked: args.limit, max: settings.maxListResults } : undefined,
    malformed,
    unsearched,
  })
}
