import { describe, expect, it } from 'vitest'
import { orderRows, readHeader, readRecord, sessionsList, type SessionRecordView } from '../../src/testing.js'
import { makeWorld, session, type FakeSession } from '../support/fakes.js'
import { mulberry32 } from '../support/prng.js'

function world(settings = {}) {
  const w = makeWorld(settings)
  const me = session('session-me', 5000, { live: true, title: 'Me' })
  const sessions: FakeSession[] = [
    me,
    session('session-old', 1000, { title: 'Fix the newapi reasoning-effort config' }),
    session('session-new', 9000, { live: true, title: 'Straße umbauen', header: { cwd: '/work/other' } }),
    session('session-mid', 3000, { title: 'Untitled work', header: { agentPreset: 'code' } }),
    session('019c3d96-child', 8000, { title: 'Bounded completed checkpoint', header: { parentSession: 'session-old', origin: 'subagent' } }),
  ]
  for (const s of sessions) w.corpus.add(s)
  return { w, me }
}

describe('sessions_list', () => {
  it('prints the rows of docs/tools.md#sessions_list: newest first, caller last, subagents hidden by default', async () => {
    const { w, me } = world()
    const text = await sessionsList({}, w.call(me), w.deps)
    expect(text).toBe([
      '- session-new [live, top-level] | cwd=/work/other | preset=standard',
      '  Straße umbauen',
      '- session-mid [cold, top-level] | cwd=/work/project | preset=code',
      '  Untitled work',
      '- session-old [cold, top-level] | cwd=/work/project | preset=standard',
      '  Fix the newapi reasoning-effort config',
      '- session-me [live, top-level] | cwd=/work/project | preset=standard | this session',
      '  Me',
      '4 of 4 considered sessions',
      'Top-level sessions are messageable with sessions_send; subagent sessions are not.',
    ].join('\n'))
  })

  it('makes exactly one listing and one title fold of only the shown rows without a query', async () => {
    const { w, me } = world()
    await sessionsList({ limit: 2 }, w.call(me), w.deps)
    expect(w.corpus.calls).toEqual({ listSessions: 1, readTitles: 1 })
    expect(w.corpus.titlesFolded).toBe(2)
  })

  it('fills the limit with peers first (the caller is dropped, not a peer)', async () => {
    const { w, me } = world()
    const text = await sessionsList({ limit: 2 }, w.call(me), w.deps)
    expect(text).toContain('session-new')
    expect(text).toContain('session-mid')
    expect(text).not.toContain('session-me')
    expect(text).toContain('2 of 4 considered sessions')
  })

  it('shows subagents with scope, not messageable, naming the owner', async () => {
    const { w, me } = world()
    const text = await sessionsList({ scope: 'subagents' }, w.call(me), w.deps)
    expect(text).toContain('- 019c3d96-child [cold, subagent] | cwd=/work/project | preset=standard | not messageable (owner session-old)')
    expect(text).toContain('1 of 1 considered sessions')
    const everything = await sessionsList({ scope: 'all' }, w.call(me), w.deps)
    expect(everything).toContain('5 of 5 considered sessions')
  })

  it('filters live_only', async () => {
    const { w, me } = world()
    const text = await sessionsList({ live_only: true }, w.call(me), w.deps)
    expect(text).toContain('session-new')
    expect(text).not.toContain('session-old')
    expect(text).toContain('2 of 2 considered sessions')
  })

  it.each([
    ['NEWAPI', 'session-old'],
    ['strasse', 'session-new'],
    ['/work/other', 'session-new'],
    ['code', 'session-mid'],
    ['MID', 'session-mid'],
  ])('matches query %j over title, cwd, preset and id (case-insensitive, Unicode-aware)', async (query, id) => {
    const { w, me } = world()
    const text = await sessionsList({ query }, w.call(me), w.deps)
    expect(text).toContain(`- ${id} `)
    expect(text).toMatch(/^1 of 1 considered sessions$/m)
    expect(w.corpus.calls).toEqual({ listSessions: 1, readTitles: 1 })
  })

  it('matches a title of non-ASCII letters only, and a row with neither workspace nor preset', async () => {
    const { w, me } = world()
    w.corpus.add(session('session-wide', 6000, { title: 'ＦＵＬＬ', header: { cwd: undefined, agentPreset: undefined } }))
    const text = await sessionsList({ query: 'full' }, w.call(me), w.deps)
    expect(text).toContain('- session-wide ')
    expect(text).toMatch(/^1 of 1 considered sessions$/m)
  })

  it('says so when a query matches nothing', async () => {
    const { w, me } = world()
    const text = await sessionsList({ query: 'zebra' }, w.call(me), w.deps)
    expect(text).toContain('0 of 0 considered sessions')
    expect(text).toContain('No session matched query "zebra"')
  })

  it('caps limit at maxListResults and says so', async () => {
    const { w, me } = world({ maxListResults: 2 })
    const text = await sessionsList({ limit: 50 }, w.call(me), w.deps)
    expect(text).toContain('limit 50 was capped to maxListResults (2).')
    expect(text.match(/^- /gm)).toHaveLength(2)
    // A limit equal to the maximum is not capped.
    expect(await sessionsList({ limit: 2 }, w.call(me), w.deps)).not.toContain('capped')
  })

  it('with visibility workspace shows only sessions sharing the caller\'s cwd', async () => {
    const { w, me } = world({ visibility: 'workspace' })
    const text = await sessionsList({ scope: 'all' }, w.call(me), w.deps)
    expect(text).not.toContain('session-new')
    expect(text).toContain('4 of 4 considered sessions')
  })

  it('refuses without a caller and on bad arguments', async () => {
    const { w, me } = world()
    expect(await sessionsList({}, w.call(undefined), w.deps)).toMatch(/^refused: rejected \| the calling session could not be identified/)
    expect(await sessionsList({ limit: '5' }, w.call(me), w.deps)).toMatch(/^refused: invalid-arguments \| argument "limit" got the string "5"/)
    expect(w.corpus.calls).toEqual({})
  })
})

describe('orderRows', () => {
  // The rule of docs/tools.md#sessions_list "Order", written as the plain stable sort it is.
  const reference = (rows: SessionRecordView[], callerId: string, limit: number): SessionRecordView[] => {
    const sorted = [...rows].sort((a, b) => b.header.createdAt - a.header.createdAt)
    const peers = sorted.filter(row => row.header.id !== callerId).slice(0, limit)
    const self = sorted.find(row => row.header.id === callerId)
    return self !== undefined && peers.length < limit ? [...peers, self] : peers
  }

  it('keeps the limit newest peers, ties in input order, the caller last, as a full stable sort would (seeded)', () => {
    const random = mulberry32(20261202)
    for (let round = 0; round < 500; round++) {
      const count = Math.floor(random() * 60)
      // Few distinct times, so ties are common; the caller can appear more than once.
      const rows: SessionRecordView[] = Array.from({ length: count }, (_, index) => ({
        header: { id: random() < 0.1 ? 'me' : `s${index}`, createdAt: Math.floor(random() * 8) },
        live: false,
        persisted: true,
      }))
      const limit = 1 + Math.floor(random() * 30)
      expect(orderRows(rows, 'me', limit)).toEqual(reference(rows, 'me', limit))
    }
  })
})

describe('readHeader and readRecord at the tool boundary', () => {
  it('read a header they made as it is (frozen), and check anything else field by field', () => {
    const made = readHeader({ id: 'session-a', createdAt: 5, cwd: '/w', agentPreset: 7 })!
    expect(made).toEqual({ id: 'session-a', createdAt: 5, cwd: '/w' })
    expect(Object.isFrozen(made)).toBe(true)
    expect(readHeader(made)).toBe(made)
    expect(JSON.stringify(made)).toBe('{"id":"session-a","createdAt":5,"cwd":"/w"}') // the brand is invisible
    // A copy (or a look-alike) is not one it made: checked again, bad fields dropped.
    const copy = { ...made, createdAt: 'soon', origin: 3 }
    const read = readHeader(copy)!
    expect(read).not.toBe(copy)
    expect(read).toEqual({ id: 'session-a', createdAt: 0, cwd: '/w' })
    expect(readRecord({ header: made, live: 'yes', persisted: true, elsewhere: { pid: 42 } })).toEqual({ header: made, live: false, persisted: true, elsewhere: { pid: 42 } })
    expect(readRecord({ header: { id: '' }, live: true })).toBeUndefined()
  })
})
