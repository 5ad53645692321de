/**
 * What `sessions_list` shows: one two-line row per session and the footer.
 *
 * Source: docs/tools.md#sessions_list, "Output" (a capped limit is said; a
 * failed title fold is said, never hidden).
 *
 * @module dsh-cross-session/presentation/list
 */

import type { SessionRecordView } from '../ports.js'
import { isSubagent, ownerOf, type MachineView } from '../model/sessions.js'
import { clipLine, oneLine } from '../core/text.js'
import { displayId, displayTitle, metadataSuffix, shownMetadata, stateTag } from './common.js'

/** Everything the list text is built from. */
interface ListPage {
  readonly shown: readonly SessionRecordView[]
  /** How many rows matched before the limit. */
  readonly matched: number
  readonly callerId: string
  readonly titles: ReadonlyMap<string, string | undefined>
  /** Why titles could not be read (a failure-table row), if they could not. */
  readonly titlesFailed: string | undefined
  /** The query as given, when one was. */
  readonly query: string | undefined
  /** The limit as given, when it was over `maxListResults`. */
  readonly cappedLimit: { readonly asked: number, readonly max: number } | undefined
  readonly malformed: number
  /** Candidates whose titles a bounded query did not reach (not matched by id, cwd or preset either). */
  readonly unsearched: number
  /** Places the list's last round of checks emptied and did not fill (docs/tools.md#sessions_list, "Shown rows are checked"). */
  readonly leftOut: number
}

/** One listed session, every field as the text shows it (one line, clipped). */
export interface ListedRow {
  readonly sessionId: string
  readonly live: boolean
  readonly subagent: boolean
  /** Workspace path, its end kept (`metadataSuffix`). */
  readonly cwd?: string
  readonly preset?: string
  /** The other dsh process where it is live, when it is (docs/architecture.md §8). */
  readonly elsewherePid?: number
  /** Another machine's session: that machine's name (one line, clipped), and whether a process of it answers now. */
  readonly machine?: { readonly name: string, readonly reachable: boolean }
  /** The owning session of a subagent, when known. */
  readonly owner?: string
  /** The caller's own row. */
  readonly self: boolean
  /** The title as shown: `(untitled)`, `(title unavailable)` or the title. */
  readonly title: string
}

/** The value of a `sessions_list` result. */
export interface ListedValue {
  readonly kind: 'listed'
  readonly rows: readonly ListedRow[]
  /** How many rows matched before the limit. */
  readonly matched: number
  /** The limit as given and the maximum it was capped to. */
  readonly cappedLimit?: { readonly asked: number, readonly max: number }
  /** The query as shown (one line, 80 code points), when one was given. */
  readonly query?: string
  /** Why titles could not be read (a failure-table row). */
  readonly titlesFailed?: string
  readonly malformed: number
  /** Candidates not searched by title yet: the query's time for title folds ran out (docs/tools.md#sessions_list). */
  readonly unsearched?: number
  /** Rows the list found gone in its last round of checks and did not replace (docs/tools.md#sessions_list). */
  readonly leftOut?: number
}

/** The value of a list page: the facts as shown. */
export function listedValue(page: ListPage): ListedValue {
  const rows = page.shown.map((row): ListedRow => {
    const { header } = row
    const owner = isSubagent(header) ? ownerOf(header) : undefined
    return {
      sessionId: displayId(header.id),
      live: row.live,
      subagent: isSubagent(header),
      ...shownMetadata(header),
      ...(row.elsewhere === undefined ? {} : { elsewherePid: row.elsewhere.pid }),
      ...(row.machine === undefined ? {} : { machine: shownMachine(row.machine) }),
      ...(owner === undefined ? {} : { owner: displayId(owner) }),
      self: header.id === page.callerId,
      title: page.titlesFailed === undefined ? displayTitle(page.titles.get(header.id)) : '(title unavailable)',
    }
  })
  return {
    kind: 'listed',
    rows,
    matched: page.matched,
    ...(page.cappedLimit === undefined ? {} : { cappedLimit: page.cappedLimit }),
    ...(page.query === undefined ? {} : { query: clipLine(oneLine(page.query), 80) }),
    ...(page.titlesFailed === undefined ? {} : { titlesFailed: page.titlesFailed }),
    malformed: page.malformed,
    ...(page.unsearched === 0 ? {} : { unsearched: page.unsearched }),
    ...(page.leftOut === 0 ? {} : { leftOut: page.leftOut }),
  }
}

/** A machine as a row shows it: its name on one line, at most 64 code points. */
export function shownMachine(machine: MachineView): { readonly name: string, readonly reachable: boolean } {
  return { name: clipLine(oneLine(machine.name), 64), reachable: machine.reachable }
}

/** ` | machine=server-1`, and ` (not reachable now)` when no process of it answers (docs/tools.md#sessions_list). */
export function machineSuffix(machine: { readonly name: string, readonly reachable: boolean }): string {
  return ` | machine=${machine.name}${machine.reachable ? '' : ' (not reachable now)'}`
}

/** One row: `- <id> [state]…` and its title line. */
function listRow(row: ListedRow): [string, string] {
  let line = `- ${row.sessionId} ${stateTag(row)}${metadataSuffix(row)}`
  if (row.elsewherePid !== undefined) line += ` | live in another dsh process (pid ${row.elsewherePid})`
  if (row.machine !== undefined) line += machineSuffix(row.machine)
  if (row.subagent) line += row.owner === undefined ? ' | not messageable' : ` | not messageable (owner ${row.owner})`
  if (row.self) line += ' | this session'
  return [line, `  ${row.title}`]
}

/** The text of a `sessions_list` result. */
export function renderListed(value: ListedValue): string {
  const lines: string[] = []
  for (const row of value.rows) lines.push(...listRow(row))
  lines.push(`${value.rows.length} of ${value.matched} considered sessions`)
  if (value.cappedLimit !== undefined) {
    lines.push(`limit ${value.cappedLimit.asked} was capped to maxListResults (${value.cappedLimit.max}).`)
  }
  const hasQuery = value.query !== undefined
  if (value.unsearched !== undefined) {
    const more = value.unsearched === 1 ? '1 more session was' : `${value.unsearched} more sessions were`
    lines.push(`${more} not searched by title: this home's title index is still being built.`
      + ' Ask again with the same query to search more of them (each call indexes more).')
  }
  if (value.leftOut !== undefined) {
    lines.push(`${value.leftOut === 1 ? '1 row was' : `${value.leftOut} rows were`} left out: the logs of the newest sessions kept`
      + ' changing (deleted or replaced) while this list checked them. Ask again to list the sessions after them.')
  }
  if (value.rows.length === 0 && value.leftOut === undefined) {
    if (value.unsearched !== undefined) lines.push(`No session searched so far matched query ${JSON.stringify(value.query)}.`)
    else if (hasQuery) lines.push(`No session matched query ${JSON.stringify(value.query)}; try a shorter query, scope "all", or no query.`)
    else lines.push('No session matched; try scope "all" or live_only false.')
  }
  if (value.titlesFailed !== undefined) {
    lines.push(`Titles could not be read (${value.titlesFailed})${hasQuery ? '; the query matched id, cwd and preset only' : ''}.`)
  }
  if (value.malformed > 0) lines.push(`${value.malformed} malformed session records were skipped.`)
  lines.push('Top-level sessions are messageable with sessions_send; subagent sessions are not.')
  return lines.join('\n')
}
