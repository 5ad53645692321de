/**
 * What `sessions_list` shows: one two-line row per session and the footer.
 *
 * Source: docs/tools.md#sessions_list, "Output" (a capped limit is said; a
 * failed title fold is said, never hidden).
 *
 * @module dsh-cross-session/presentation/list
 */

import type { SessionRecordView } from '../ports.js'
import { isSubagent, ownerOf } from '../model/sessions.js'
import { clipLine, oneLine } from '../core/text.js'
import { displayId, displayTitle, metadataSuffix, stateTag } from './common.js'

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
}

/** One row: `- <id> [state]…` and its title line. */
function listRow(row: SessionRecordView, callerId: string, title: string): [string, string] {
  let line = `- ${displayId(row.header.id)} ${stateTag(row.header, row.live)}${metadataSuffix(row.header)}`
  if (row.elsewhere !== undefined) line += ` | live in another dsh process (pid ${row.elsewhere.pid})`
  if (isSubagent(row.header)) {
    const owner = ownerOf(row.header)
    line += owner === undefined ? ' | not messageable' : ` | not messageable (owner ${displayId(owner)})`
  }
  if (row.header.id === callerId) line += ' | this session'
  return [line, `  ${title}`]
}

/** The whole list result. */
export function renderList(page: ListPage): string {
  const lines: string[] = []
  for (const row of page.shown) {
    lines.push(...listRow(row, page.callerId, page.titlesFailed === undefined ? displayTitle(page.titles.get(row.header.id)) : '(title unavailable)'))
  }
  lines.push(`${page.shown.length} of ${page.matched} considered sessions`)
  if (page.cappedLimit !== undefined) {
    lines.push(`limit ${page.cappedLimit.asked} was capped to maxListResults (${page.cappedLimit.max}).`)
  }
  const hasQuery = page.query !== undefined
  if (page.shown.length === 0) {
    lines.push(hasQuery
      ? `No session matched query ${JSON.stringify(clipLine(oneLine(page.query ?? ''), 80))}; try a shorter query, scope "all", or no query.`
      : 'No session matched; try scope "all" or live_only false.')
  }
  if (page.titlesFailed !== undefined) {
    lines.push(`Titles could not be read (${page.titlesFailed})${hasQuery ? '; the query matched id, cwd and preset only' : ''}.`)
  }
  if (page.malformed > 0) lines.push(`${page.malformed} malformed session records were skipped.`)
  lines.push('Top-level sessions are messageable with sessions_send; subagent sessions are not.')
  return lines.join('\n')
}
