/**
 * `sessions_list`: discover peer sessions.
 *
 * Source: docs/tools.md#sessions_list (arguments, output; filter order
 * visibility → scope → live_only → query, local filtering that never uses
 * `searchSessions()`; Unicode-aware case-insensitive matching; newest first,
 * caller last and peers fill the limit; one batched title fold, only for
 * shown rows when there is no query; a capped limit is said).
 *
 * Backend calls per call: one listing, at most one `readTitles` (none when no
 * row is shown), and on a port that has it one `recheck` of the shown rows;
 * only when a re-check finds a shown row changed or gone, up to
 * {@link RECHECK_ROUNDS} more of each, for the rows then shown. The listing is
 * `listSessions`, or, without a query or `live_only`, a port's `listNewest`
 * (./list-source.ts); after a `listNewest` that declines, or whose shown row a
 * re-check finds changed, `listSessions` (and the list is made again).
 *
 * @module dsh-cross-session/tools/sessions-list
 */

import { cancelled, commonRefusals, NOTHING_LISTED, refused, STEPS, type StoppedValue } from '../presentation/common.js'
import { failureText } from '../presentation/failures.js'
import { listedValue, type ListedValue } from '../presentation/list.js'
import type { SessionRecordView } from '../ports.js'
import { SessionsListArgs } from '../model/schemas.js'
import { TOOL_NAMES } from '../model/tool-names.js'
import { readRecord } from '../model/sessions.js'
import { headerPasses } from '../model/list-filter.js'
import { callBackend } from '../model/service-boundary.js'
import { validateArguments } from './arguments.js'
import type { ToolCallContext, ToolDeps } from './shared.js'
import { applyRechecked, foldForMatch, matchesMetadata, orderRows } from './list-rows.js'
import { listAll, listNewest, type Listing } from './list-source.js'

const TOOL = TOOL_NAMES.list

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
 * Rounds of re-checking the shown rows before they are printed (docs/tools.md#sessions_list, "Shown rows are
 * checked"): a round re-checks the rows shown that no round checked yet; the next round runs only when one changed
 * (a round brings in as many rows as the last one found gone). The last round brings in none: a row it finds gone
 * leaves the list shorter than its limit, never holding a row nobody checked.
 */
export const RECHECK_ROUNDS = 16

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
  // The filters (docs/tools.md#sessions_list, in order); a query's match needs the titles read below.
  const filter = { caller: caller.header, visibility: settings.visibility, scope }
  const filtersPass = (row: SessionRecordView): boolean => headerPasses(filter, row.header) && (args.live_only !== true || row.live)
  /** The list from one listing; `'changed'` when a re-check changed a row of a `listNewest` listing. */
  const showRows = async (listing: Listing): Promise<ListedValue | StoppedValue | 'changed'> => {
    let malformed = 0
    const candidates: SessionRecordView[] = []
    for (const raw of listing.rows) {
      const record = readRecord(raw)
      if (record === undefined) malformed++
      else if (filtersPass(record)) candidates.push(record)
    }

    // With a query, titles decide matches: fold them for every candidate, once.
    // Without one, fold only the rows that will be shown.
    let titles = new Map<string, string | undefined>()
    let titlesFailed: string | undefined
    const readTitles = async (ids: string[], budgetMs?: number): Promise<string | undefined> => {
      if (ids.length === 0) return undefined
      const options = budgetMs === undefined ? undefined : { budgetMs }
      const result = await callBackend(STEPS.readingTitles, call.signal, () => deps.sessions.readTitles(ids, call.signal, options),
        deps.log)
      if (result.ok) {
        if (titles.size === 0) titles = result.value
        else for (const [id, title] of result.value) titles.set(id, title)
        return undefined
      }
      return result.cancelled ? 'cancelled' : failureText(result.failure)
    }

    let matched = candidates
    let unsearched = 0
    const seen = new Map<string, boolean>()
    const matchesQuery = (row: SessionRecordView): boolean => matchesMetadata(row, query, seen)
      || foldForMatch(titles.get(row.header.id) ?? '').includes(query)
    if (query.length > 0) {
      const left = Math.max(0, QUERY_TITLE_BUDGET_MS - (performance.now() - started))
      titlesFailed = await readTitles(candidates.map(row => row.header.id), left)
      if (titlesFailed === 'cancelled') return cancelled(TOOL, STEPS.readingTitles, NOTHING_LISTED)
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
    let shown = orderRows(matched, caller.sessionId, limit)
    const showTitles = async (): Promise<boolean> => {
      if (query.length > 0) return true
      const failed = await readTitles(shown.filter(row => !titles.has(row.header.id)).map(row => row.header.id))
      titlesFailed ??= failed
      return failed !== 'cancelled'
    }
    if (!await showTitles()) return cancelled(TOOL, STEPS.readingTitles, NOTHING_LISTED)

    // A port that lists from a cache re-checks the rows shown before they are printed (docs/tools.md#sessions_list,
    // "Shown rows are checked"); a row it finds changed or gone changes what is shown, and the new rows are checked too.
    const recheck = deps.sessions.recheck?.bind(deps.sessions)
    const checked = new Set<string>()
    let leftOut = 0
    const keep = (row: SessionRecordView): boolean => filtersPass(row) && (query.length === 0 || matchesQuery(row))
    for (let round = 1; recheck !== undefined; round++) {
      const ids = shown.filter(row => row.persisted && !checked.has(row.header.id)).map(row => row.header.id)
      if (ids.length === 0) break
      for (const id of ids) checked.add(id)
      const result = await callBackend(STEPS.checkingShown, call.signal, () => recheck(ids, call.signal), deps.log)
      if (!result.ok && result.cancelled) return cancelled(TOOL, result.step, NOTHING_LISTED)
      // A re-check that fails leaves the rows as listed (the failure is logged).
      const applied = result.ok ? applyRechecked(matched, result.value, keep) : undefined
      if (applied?.changed !== true) break
      if (listing.considered !== undefined) return 'changed'
      matched = applied.rows
      if (round === RECHECK_ROUNDS) {
        // The last round: a row it found gone or out of the filters leaves what is shown, and none comes in unchecked.
        const now = new Map(matched.map(row => [row.header.id, row]))
        const before = shown.length
        shown = orderRows(shown.flatMap(row => now.get(row.header.id) ?? []), caller.sessionId, limit)
        leftOut = before - shown.length
        break
      }
      shown = orderRows(matched, caller.sessionId, limit)
      if (!await showTitles()) return cancelled(TOOL, STEPS.readingTitles, NOTHING_LISTED)
    }

    return listedValue({
      shown,
      matched: listing.considered ?? matched.length,
      callerId: caller.sessionId,
      titles,
      titlesFailed,
      query: query.length > 0 ? args.query : undefined,
      cappedLimit: args.limit !== undefined && args.limit > settings.maxListResults
        ? { asked: args.limit, max: settings.maxListResults } : undefined,
      malformed,
      unsearched,
      leftOut,
    })
  }

  // A new process's first list reads only the rows it can show, where the port can (docs/performance.md "What a new
  // process reads"); when a re-check finds a row it shows changed, the list is made again from every row.
  const newest = query.length === 0 && args.live_only !== true
    ? await listNewest(call, deps, { filter, limit })
    : undefined
  if (newest !== undefined && !('rows' in newest)) return newest
  const listing = newest ?? await listAll(call, deps)
  if (!('rows' in listing)) return listing
  const answer = await showRows(listing)
  if (answer !== 'changed') return answer
  const all = await listAll(call, deps)
  return 'rows' in all ? await showRows(all) as ListedValue | StoppedValue : all
}
