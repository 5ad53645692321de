/**
 * Pure decisions of `sessions_list` over listed rows (docs/tools.md#sessions_list): query matching, the order, and
 * what a re-check of the shown rows changes ({@link applyRechecked}). The header filters are `model/list-filter.ts`.
 *
 * @module dsh-cross-session/tools/list-rows
 */

import type { SessionHeaderView, SessionRecordView } from '../ports.js'

const NOT_ASCII = /[^\x00-\x7f]/

/**
 * Fold a string for case-insensitive, Unicode-aware matching: NFKC, then
 * upper- and lower-casing (so `ß` matches `SS` and `Ｆｕｌｌ` matches `full`).
 */
export function foldForMatch(text: string): string {
  // ASCII (every harness-made id, most paths and titles): NFKC is the identity and the case round trip is `toLowerCase`.
  if (!NOT_ASCII.test(text)) return text.toLowerCase()
  return text.normalize('NFKC').toUpperCase().toLowerCase()
}

/**
 * Whether a row matches a folded query by id, workspace or preset (no title
 * needed). `seen` memoises the workspace and preset answers for one call
 * (a corpus has few distinct ones, and a query list checks every row).
 */
export function matchesMetadata(record: SessionRecordView, foldedQuery: string, seen: Map<string, boolean>): boolean {
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

/** Whether two headers say the same thing (every field a list filters, orders or prints by). */
function sameHeader(a: SessionHeaderView, b: SessionHeaderView): boolean {
  return a === b || (a.id === b.id && a.createdAt === b.createdAt && a.cwd === b.cwd && a.parentSession === b.parentSession
    && a.origin === b.origin && a.agentPreset === b.agentPreset)
}

/**
 * The matched rows after a re-check of some of them (docs/tools.md#sessions_list, "Shown rows are checked"): a
 * row whose log is gone (`undefined`) is dropped; a row whose log now holds another header carries that header and
 * stays only if `keep` still takes it (its scope, workspace or match can have changed); rows not in `rechecked`
 * are left as they are.
 * @param rechecked - id → the header its log holds now, `undefined` when no log of that id exists now.
 * @returns the rows (the very `matched` array when nothing changed) and whether anything changed.
 */
export function applyRechecked(matched: SessionRecordView[], rechecked: ReadonlyMap<string, SessionHeaderView | undefined>,
  keep: (record: SessionRecordView) => boolean): { rows: SessionRecordView[], changed: boolean } {
  let changed = false
  const rows: SessionRecordView[] = []
  for (const row of matched) {
    if (!rechecked.has(row.header.id)) {
      rows.push(row)
      continue
    }
    const header = rechecked.get(row.header.id)
    if (header !== undefined && sameHeader(header, row.header)) {
      rows.push(row)
      continue
    }
    changed = true
    if (header === undefined) continue
    const record = { ...row, header }
    if (keep(record)) rows.push(record)
  }
  return changed ? { rows, changed } : { rows: matched, changed }
}
