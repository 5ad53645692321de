/**
 * `sessions_list {}` on machine A while machine B published
 * {@link REMOTE_SESSIONS} sessions (docs/architecture.md §8 "Several
 * machines"): the real tool (`src/tools/sessions-list.ts`) over A's port
 * wrapped with the other machines' sessions (`home/pg/machines-query.ts`,
 * the directory read through `home/pg/directory-cache.ts` on A's store
 * worker). A's own sessions are the unit tests' in-memory port (a few
 * rows): what is measured is the other machines' part.
 *
 * - **first**: a new process's first list (the directory read whole);
 * - **warm**: the next lists while the reading is fresh (no round trip);
 * - **after a change**: a list right after another process changed the
 *   store (a `NOTIFY` drops the reading: the directory is read again).
 *
 * @module bench/home/machines-list
 */

import { DirectoryCache } from '../../src/home/pg/directory-cache.js'
import type { DirectoryRow } from '../../src/home/pg/directory-rows.js'
import { withMachines } from '../../src/home/pg/machines-query.js'
import type { PgSync } from '../../src/home/pg/pg-sync.js'
import { sessionsList } from '../../src/testing.js'
import { makeWorld, session } from '../../test/support/fakes.js'
import { summarize, type Summary } from './stats.js'

/** Sessions machine B publishes. */
export const REMOTE_SESSIONS = 10_000

/** What the list part measured. */
export interface RemoteListResult {
  readonly sessions: number
  readonly first: number
  readonly warm: Summary
  readonly afterChange: Summary
  /** Directory reads A made over all the lists. */
  readonly directoryReads: number
}

/** B publishes {@link REMOTE_SESSIONS} sessions; A lists them with `sessions_list {}` `runs` times each way. */
export async function remoteList(a: PgSync, b: PgSync, runs: number): Promise<RemoteListResult> {
  const rows: DirectoryRow[] = Array.from({ length: REMOTE_SESSIONS }, (_, n) => ({
    header: { id: `session-b-${String(n).padStart(5, '0')}`, createdAt: Date.UTC(2026, 0, 1) + n * 60_000, cwd: `/home/dev/projects/p${n % 40}`,
      agentPreset: 'standard' },
    title: `Session ${n} on the server: a title of some length, as people write them`, live: n % 50 === 0,
  }))
  await b.callAsync('publish', [{ upserts: rows, removed: [] }])
  const w = makeWorld()
  const me = session('session-a-me', Date.UTC(2026, 6, 1), { live: true })
  w.corpus.add(me)
  let directoryReads = 0
  let dropReading: () => void = () => undefined
  const directory = new DirectoryCache(async () => {
    directoryReads++
    return await a.callAsync('directory', [])
  }, listener => { dropReading = listener })
  const deps = { ...w.deps, sessions: withMachines(w.corpus, { directory, visibility: () => 'all', log: () => undefined,
    askSurface: async () => ({ kind: 'not-found' }) }) }
  const list = async (): Promise<number> => {
    const started = performance.now()
    const text = await sessionsList({}, w.call(me), deps)
    if (!text.includes(`of ${REMOTE_SESSIONS + 1} considered sessions`)) throw new Error(`remote list: ${text.split('\n').at(-1)}`)
    return performance.now() - started
  }
  const first = await list()
  const warm: number[] = []
  for (let n = 0; n < runs; n++) warm.push(await list())
  const afterChange: number[] = []
  for (let n = 0; n < runs; n++) {
    dropReading()
    afterChange.push(await list())
  }
  return { sessions: REMOTE_SESSIONS, first, warm: summarize(warm), afterChange: summarize(afterChange), directoryReads }
}
