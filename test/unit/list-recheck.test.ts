/**
 * `sessions_list` re-checks the rows it shows on a port that lists from a cache (docs/tools.md#sessions_list,
 * "Shown rows are checked"): the pure `applyRechecked`, and the tool over the in-memory fake corpus wrapped as
 * such a port (its listing is the cache; `disk` is what the logs hold now).
 */
import { describe, expect, it } from 'vitest'
import { applyRechecked, RECHECK_ROUNDS, sessionsList, type SessionHeaderView, type SessionQueryPort,
  type SessionRecordView } from '../../src/testing.js'
import { makeWorld, session, type FakeSession, type World } from '../support/fakes.js'

const header = (id: string, createdAt: number, extra: Partial<SessionHeaderView> = {}): SessionHeaderView =>
  ({ id, createdAt, cwd: '/work/project', agentPreset: 'standard', ...extra })
const row = (id: string, createdAt: number, extra: Partial<SessionHeaderView> = {}): SessionRecordView =>
  ({ header: header(id, createdAt, extra), live: false, persisted: true })

describe('applyRechecked', () => {
  const rows = [row('a', 3), row('b', 2), row('c', 1)]
  const all = () => true

  it('leaves the very rows when every re-checked header says the same', () => {
    const same = new Map([['a', header('a', 3)], ['b', rows[1]!.header]])
    expect(applyRechecked(rows, same, all)).toEqual({ rows, changed: false })
    expect(applyRechecked(rows, same, all).rows).toBe(rows)
    expect(applyRechecked(rows, new Map(), all).rows).toBe(rows)
  })

  it('drops a row whose log is gone and leaves rows it did not re-check', () => {
    const out = applyRechecked(rows, new Map([['b', undefined]]), all)
    expect(out.changed).toBe(true)
    expect(out.rows.map(each => each.header.id)).toEqual(['a', 'c'])
    expect(out.rows[0]).toBe(rows[0])
  })

  it('carries a changed header, and keeps the row only if the filters still take it', () => {
    const moved = new Map([['a', header('a', 3, { parentSession: 'c' })], ['c', header('c', 9)]])
    const topLevel = (record: SessionRecordView) => record.header.parentSession === undefined
    const out = applyRechecked(rows, moved, topLevel)
    expect(out.changed).toBe(true)
    expect(out.rows.map(each => [each.header.id, each.header.createdAt])).toEqual([['b', 2], ['c', 9]])
    expect(out.rows[1]).toEqual({ ...rows[2], header: header('c', 9) })
  })
})

/** The fake corpus as a caching port: it lists what it was given, and `recheck` answers from `disk`. */
function cachingPort(w: World, disk: Map<string, SessionHeaderView | undefined>, options: { fail?: boolean } = {}) {
  const inner = w.corpus
  const rechecked: string[][] = []
  const port: SessionQueryPort = {
    listSessions: signal => inner.listSessions(signal),
    readTitles: (ids, signal) => inner.readTitles(ids, signal),
    readSurface: (id, signal) => inner.readSurface(id, signal),
    lookup: (id, signal) => inner.lookup(id, signal),
    isLive: id => inner.isLive(id),
    async recheck(ids) {
      rechecked.push([...ids])
      if (options.fail === true) throw new Error('EIO: the disk went away')
      return new Map(ids.map(id => [id, disk.has(id) ? disk.get(id) : inner.sessions.get(id)?.header]))
    },
  }
  return { port, rechecked }
}

function world() {
  const w = makeWorld()
  const me = session('session-me', 5000, { live: true, title: 'Me' })
  const sessions: FakeSession[] = [me, session('session-a', 4000, { title: 'A' }), session('session-b', 3000, { title: 'B' }),
    session('session-c', 2000, { title: 'C' }), session('session-d', 1000, { title: 'D' })]
  for (const each of sessions) w.corpus.add(each)
  return { w, me }
}

describe('sessions_list re-checks the rows it shows', () => {
  it('leaves out a row whose log is gone; the next row fills the limit, titled and checked in turn', async () => {
    const { w, me } = world()
    const { port, rechecked } = cachingPort(w, new Map([['session-a', undefined]]))
    const text = await sessionsList({ limit: 2 }, w.call(me), { ...w.deps, sessions: port })
    expect(text).toBe([
      '- session-b [cold, top-level] | cwd=/work/project | preset=standard',
      '  B',
      '- session-c [cold, top-level] | cwd=/work/project | preset=standard',
      '  C',
      '2 of 4 considered sessions',
      'Top-level sessions are messageable with sessions_send; subagent sessions are not.',
    ].join('\n'))
    // The second round checks only the row that came in, and folds only its title.
    expect(rechecked).toEqual([['session-a', 'session-b'], ['session-c']])
    expect(w.corpus.calls).toEqual({ listSessions: 1, readTitles: 2 })
    expect(w.corpus.titlesFolded).toBe(3)
  })

  /** `count` peers, the newest first (p00 newest), and the caller, newer than all. */
  function many(count: number) {
    const w = makeWorld()
    const me = session('session-me', 1_000_000, { live: true, title: 'Me' })
    w.corpus.add(me)
    const id = (index: number) => `session-p${String(index).padStart(2, '0')}`
    for (let index = 0; index < count; index++) w.corpus.add(session(id(index), 10_000 - index, { title: `P${index}` }))
    return { w, me, id }
  }

  it('a burst of the newest logs gone: each round brings in as many rows as it found gone, until the rows shown hold', async () => {
    const { w, me, id } = many(10)
    const gone = new Map(Array.from({ length: 6 }, (_, index) => [id(index), undefined]))
    const { port, rechecked } = cachingPort(w, gone)
    const text = await sessionsList({ limit: 2 }, w.call(me), { ...w.deps, sessions: port })
    expect(rechecked).toEqual([[id(0), id(1)], [id(2), id(3)], [id(4), id(5)], [id(6), id(7)]])
    expect(text).toMatch(new RegExp(`^- ${id(6)} [^\\n]*\\n  P6\\n- ${id(7)} `))
    expect(text).toMatch(/^2 of 5 considered sessions$/m)
    expect(text).not.toContain('left out')
  })

  it('the last round brings in no row: what it found gone leaves the list shorter, and the footer says why', async () => {
    const { w, me, id } = many(2 * RECHECK_ROUNDS + 3)
    // Every row the rounds check is gone, but for one the last round checks (it is printed).
    const lastChecked = id(2 * RECHECK_ROUNDS - 1)
    const gone = new Map(Array.from({ length: 2 * RECHECK_ROUNDS + 3 }, (_, index) => [id(index), undefined] as const)
      .filter(([each]) => each !== lastChecked))
    const { port, rechecked } = cachingPort(w, gone)
    const text = await sessionsList({ limit: 2 }, w.call(me), { ...w.deps, sessions: port })
    expect(rechecked).toHaveLength(RECHECK_ROUNDS)
    expect(rechecked.flat()).toEqual(Array.from({ length: 2 * RECHECK_ROUNDS }, (_, index) => id(index)))
    expect(text).toMatch(new RegExp(`^- ${id(2 * RECHECK_ROUNDS - 1)} `))
    expect(text.match(/^- /gm)).toHaveLength(1)
    expect(text).toMatch(/^1 of 5 considered sessions$/m)
    expect(text).toContain('1 row was left out: the logs of the newest sessions kept changing (deleted or replaced) while this list checked them.'
      + ' Ask again to list the sessions after them.')
    // None printed at all: the footer says why, not that nothing matched.
    const { port: allGone } = cachingPort(w, new Map([...gone, [lastChecked, undefined]]))
    const empty = await sessionsList({ limit: 2 }, w.call(me), { ...w.deps, sessions: allGone })
    expect(empty).toMatch(/^0 of 4 considered sessions$/m)
    expect(empty).toContain('2 rows were left out')
    expect(empty).not.toContain('No session matched')
  })

  it('sees a header changed in its preset or origin only', async () => {
    const { w, me } = world()
    const disk = new Map([['session-a', header('session-a', 4000, { agentPreset: 'plan' })],
      ['session-b', header('session-b', 3000, { origin: 'subagent' })]])
    const text = await sessionsList({ limit: 2, scope: 'all' }, w.call(me), { ...w.deps, sessions: cachingPort(w, disk).port })
    expect(text).toContain('- session-a [cold, top-level] | cwd=/work/project | preset=plan\n')
    expect(text).toContain('- session-b [cold, subagent]')
  })

  it('a title read that fails is said, and one cancelled is a cancelled call', async () => {
    const { w, me } = world()
    w.corpus.fault.readTitles = 'throw'
    const failed = await sessionsList({ limit: 2 }, w.call(me), { ...w.deps, sessions: cachingPort(w, new Map([['session-a', undefined]])).port })
    expect(failed).toContain('- session-b ')
    expect(failed).not.toContain('- session-a ')
    expect(failed).toContain('(title unavailable)')
    const controller = new AbortController()
    const { port } = cachingPort(w, new Map([['session-a', undefined]]))
    port.readTitles = async () => {
      controller.abort()
      return new Map()
    }
    const cancelledText = await sessionsList({ limit: 2 }, w.call(me, { signal: controller.signal }), { ...w.deps, sessions: port })
    expect(cancelledText).toMatch(/^cancelled/)
    expect(cancelledText).toContain('reading titles')
  })

  it('prints the header a log holds now, and applies the filters to it (scope, workspace)', async () => {
    const { w, me } = world()
    const disk = new Map([['session-a', header('session-a', 4000, { parentSession: 'session-b' })],
      ['session-b', header('session-b', 3000, { cwd: '/work/moved' })]])
    const topLevel = await sessionsList({ limit: 2 }, w.call(me), { ...w.deps, sessions: cachingPort(w, disk).port })
    expect(topLevel).toContain('- session-b [cold, top-level] | cwd=/work/moved | preset=standard\n')
    expect(topLevel).not.toContain('session-a')
    const all = await sessionsList({ limit: 2, scope: 'all' }, w.call(me), { ...w.deps, sessions: cachingPort(w, disk).port })
    expect(all).toContain('- session-a [cold, subagent] | cwd=/work/project | preset=standard | not messageable (owner session-b)')
    const workspace = makeWorld({ visibility: 'workspace' })
    for (const each of w.corpus.sessions.values()) workspace.corpus.add(each)
    const mine = await sessionsList({ limit: 2 }, workspace.call(me), { ...workspace.deps, sessions: cachingPort(workspace, disk).port })
    expect(mine).not.toContain('session-b')
    expect(mine).toContain('- session-c ')
  })

  it('with a query, keeps a changed row only if it still matches', async () => {
    const { w, me } = world()
    w.corpus.sessions.get('session-b')!.header = header('session-b', 3000, { cwd: '/work/needle' })
    w.corpus.sessions.get('session-c')!.header = header('session-c', 2000, { cwd: '/work/needle' })
    const disk = new Map([['session-b', header('session-b', 3000, { cwd: '/work/elsewhere' })],
      ['session-c', header('session-c', 2000, { cwd: '/work/needle-moved' })]])
    const text = await sessionsList({ query: 'needle' }, w.call(me), { ...w.deps, sessions: cachingPort(w, disk).port })
    expect(text).not.toContain('session-b')
    expect(text).toContain('- session-c [cold, top-level] | cwd=/work/needle-moved')
    expect(text).toMatch(/^1 of 1 considered sessions$/m)
  })

  it('does not re-check a live session that has no log yet', async () => {
    const { w, me } = world()
    const { port, rechecked } = cachingPort(w, new Map())
    const listed = port.listSessions.bind(port)
    port.listSessions = async signal => (await listed(signal)).map(each => each.header.id === 'session-a' ? { ...each, live: true, persisted: false } : each)
    await sessionsList({ limit: 2 }, w.call(me), { ...w.deps, sessions: port })
    expect(rechecked).toEqual([['session-b']])
    // Nothing shown has a log: no re-check at all.
    port.listSessions = async signal => (await listed(signal)).map(each => ({ ...each, live: true, persisted: false }))
    rechecked.length = 0
    await sessionsList({ limit: 2 }, w.call(me), { ...w.deps, sessions: port })
    expect(rechecked).toEqual([])
  })

  it('a re-check that fails leaves the rows as listed, logged, never a refusal', async () => {
    const { w, me } = world()
    const text = await sessionsList({ limit: 2 }, w.call(me), { ...w.deps, sessions: cachingPort(w, new Map(), { fail: true }).port })
    expect(text).toContain('- session-a ')
    expect(text).toContain('2 of 5 considered sessions')
    expect(w.logs.join('\n')).toContain('checking the rows shown failed')
  })

  it('a call cancelled during the re-check says so', async () => {
    const { w, me } = world()
    const controller = new AbortController()
    const { port } = cachingPort(w, new Map())
    port.recheck = async () => {
      controller.abort()
      return new Map()
    }
    const text = await sessionsList({}, w.call(me, { signal: controller.signal }), { ...w.deps, sessions: port })
    expect(text).toMatch(/^cancelled/)
    expect(text).toContain('checking the rows shown')
  })
})
