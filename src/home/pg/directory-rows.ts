/**
 * The sessions a machine publishes for the other machines to list
 * (docs/architecture.md §8 "Several machines"), and what changed between
 * two publications. Pure.
 *
 * @module dsh-cross-session/home/pg/directory-rows
 */

import type { SessionHeaderView } from '../../model/sessions.js'
import type { InboundMode } from '../../settings/resolve.js'

/** One published session: its header fields, its title, and whether it is live on its machine now. */
export interface DirectoryRow {
  readonly header: SessionHeaderView
  readonly title?: string
  readonly live: boolean
}

/** A session of another machine, as this machine lists it. */
export interface RemoteSession extends DirectoryRow {
  /** The machine's id (`home/pg/machine-id.ts`). */
  readonly machine: string
  /** The name it shows (its `machine` setting, or its host name). */
  readonly machineName: string
  /** Whether a process of that machine holds a lease now (it can answer a read, deliver a message). */
  readonly reachable: boolean
  /** That machine's `inbound` setting, as it last published it: what a peer message does to a session with no choice of its own. */
  readonly hostInbound?: InboundMode
}

/** What to write so that the published rows become `next`: rows new or changed, and ids gone. */
export interface DirectoryChange {
  readonly upserts: readonly DirectoryRow[]
  readonly removed: readonly string[]
}

/** Whether two rows publish the same thing. */
function same(a: DirectoryRow, b: DirectoryRow): boolean {
  const x = a.header
  const y = b.header
  return a.live === b.live && a.title === b.title && x.createdAt === y.createdAt && x.cwd === y.cwd && x.parentSession === y.parentSession
    && x.origin === y.origin && x.agentPreset === y.agentPreset
}

/** What changed from `published` (what the store holds for this machine) to `next` (what it should hold). */
export function directoryChange(published: ReadonlyMap<string, DirectoryRow>, next: readonly DirectoryRow[]): DirectoryChange {
  const seen = new Set<string>()
  const upserts: DirectoryRow[] = []
  for (const row of next) {
    if (seen.has(row.header.id)) continue
    seen.add(row.header.id)
    const before = published.get(row.header.id)
    if (before === undefined || !same(before, row)) upserts.push(row)
  }
  const removed = [...published.keys()].filter(id => !seen.has(id))
  return { upserts, removed }
}
