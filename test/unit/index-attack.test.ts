/**
 * Attacks on the corpus index's promise (docs/performance.md "What each call
 * re-checks"): a session created, written, replaced or deleted by another
 * process is seen by the next call, with real files under a tmp root.
 */
import { linkSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { encodeLog } from '../../bench/harness/zstd-log.js'
import { CorpusIndex, createIndexedSessionQueryPort, jsonlFiles, jsonlLayout, sessionsList, type HostAgent } from '../../src/testing.js'
import { makeWorld, session } from '../support/fakes.js'
import { Root } from '../support/jsonl-root.js'

const signal = new AbortController().signal
let home: string
let root: Root

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cross-session-attack-'))
  root = new Root(home)
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

const settle = (ms = 80) => new Promise(resolve => setTimeout(resolve, ms))
const ids = (entries: readonly { header: { id: string } }[]) => entries.map(entry => entry.header.id).sort()

/** A log for `id` written beside its final path, then published with `link()` (rc.8 `materializePosix`). */
function publish(id: string, createdAt: number, title: string): void {
  const path = root.path(id)
  const tmp = `${path}.tmp`
  const header = JSON.stringify({ type: 'session', version: 0, id, createdAt, cwd: '/work/project' })
  writeFileSync(tmp, encodeLog(header, [JSON.stringify({ type: 'session/title', seq: 0, time: createdAt, data: { title, messageSeqs: [], source: { kind: 'user' } } })]))
  linkSync(tmp, path)
  unlinkSync(tmp)
}

describe('a log that appears in a session directory already listed', () => {
  it('is listed by the next refresh once the project directory has settled', async () => {
    root.write('session-a', 1, 'first')
    // rc.8 makes the session directory first, then links the log into it.
    mkdirSync(dirname(root.path('session-b')), { recursive: true })
    await settle()
    const index = new CorpusIndex(jsonlFiles(jsonlLayout(root.persistence())!, { racyMs: 40 }))
    expect(ids(await index.refresh(signal))).toEqual(['session-a'])
    expect(ids(await index.refresh(signal))).toEqual(['session-a'])
    publish('session-b', 2, 'second')
    expect(ids(await index.refresh(signal))).toEqual(['session-a', 'session-b'])
  })

  it('is listed again when its log was deleted (directory kept) and a new one published later', async () => {
    root.write('session-a', 1, 'first')
    root.write('session-b', 2, 'second')
    await settle()
    const index = new CorpusIndex(jsonlFiles(jsonlLayout(root.persistence())!, { racyMs: 40 }))
    expect(ids(await index.refresh(signal))).toEqual(['session-a', 'session-b'])
    unlinkSync(root.path('session-b'))
    // The deletion is seen by the check of the call that shows it.
    expect(index.check('session-b')).toBeUndefined()
    expect(ids(await index.refresh(signal))).toEqual(['session-a'])
    expect(ids(await index.refresh(signal))).toEqual(['session-a'])
    publish('session-b', 3, 'second again')
    expect(ids(await index.refresh(signal))).toEqual(['session-a', 'session-b'])
  })

  it('shows up in sessions_list through the port (default racy margin)', async () => {
    root.write('session-a', 1, 'first')
    mkdirSync(dirname(root.path('session-b')), { recursive: true })
    const w = makeWorld()
    const me = session('session-me', 5_000_000, { live: true })
    const persistence = root.persistence()
    const port = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: { get: () => undefined, list: () => [] as HostAgent[], resume: () => { throw new Error('a list must never resume') } },
      persistence: () => persistence,
      sessions: () => undefined,
    })
    const deps = { ...w.deps, sessions: port }
    // Past the 2 s margin: the project directory's listing is kept from here on.
    await settle(2200)
    expect(await sessionsList({}, w.call(me), deps)).not.toContain('session-b')
    expect(await sessionsList({}, w.call(me), deps)).not.toContain('session-b')
    publish('session-b', 2, 'second')
    const text = await sessionsList({}, w.call(me), deps)
    expect(text).toContain('session-b')
    expect(text).toContain('  second\n')
  }, 10_000)
})

describe('one session id with a log in two project directories', () => {
  function port() {
    const w = makeWorld()
    const me = session('session-me', 5_000_000, { live: true })
    const persistence = root.persistence()
    const sessions = createIndexedSessionQueryPort({
      fallback: w.corpus,
      agents: { get: () => undefined, list: () => [] as HostAgent[], resume: () => { throw new Error('a list must never resume') } },
      persistence: () => persistence,
      sessions: () => undefined,
    })
    return { list: (args: Record<string, unknown>) => sessionsList(args, w.call(me), { ...w.deps, sessions }) }
  }

  it.each([['/work/a', '/work/b'], ['/work/b', '/work/a']])('shows the title of the very log whose header it shows (newer copy in %s)', async (newer, older) => {
    root.write('session-x', 2, `title in ${newer}`, { cwd: newer })
    root.write('session-x', 1, `title in ${older}`, { cwd: older })
    const { list } = port()
    for (const text of [await list({}), await list({ query: 'title in' })]) {
      expect(text).toContain(`cwd=${newer}`)
      expect(text).toContain(`  title in ${newer}\n`)
    }
  })
})
