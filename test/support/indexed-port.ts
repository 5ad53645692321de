/**
 * The indexed session-query port over a test `Root`, as the real tools see
 * it on a host with no live session in this process: a fake world
 * (`./fakes.ts`), a caller `session-me` (live, not in the root), and a
 * registry that lists nobody and must never resume.
 */
import { createIndexedSessionQueryPort, type CorpusIndex, type HostAgent } from '../../src/testing.js'
import { makeWorld, session } from './fakes.js'
import type { Root } from './jsonl-root.js'

/** The world, the caller and the port; `onIndex` sees each index the port builds. */
export function listingPort(root: Root, onIndex?: (index: CorpusIndex) => void): { w: ReturnType<typeof makeWorld>, me: ReturnType<typeof session>, port: ReturnType<typeof createIndexedSessionQueryPort> } {
  const w = makeWorld()
  const me = session('session-me', 5_000_000, { live: true })
  const persistence = root.persistence()
  const port = createIndexedSessionQueryPort({
    fallback: w.corpus,
    agents: { get: () => undefined, list: () => [] as HostAgent[], resume: () => { throw new Error('a list must never resume') } },
    persistence: () => persistence,
    sessions: () => undefined,
    ...(onIndex === undefined ? {} : { onIndex }),
  })
  return { w, me, port }
}
