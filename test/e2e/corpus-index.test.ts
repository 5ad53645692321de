/**
 * End to end, headless profile (docs/performance.md "Corpus index"): the corpus index sees what
 * another process did to the persisted corpus on the very next call. Between
 * two tool calls of one running session, a second real dsh process on the
 * same `DSH_HOME` creates a session, and the test process creates a session
 * log, appends a title to an existing one, deletes the created one, then
 * deletes a log and leaves its session directory, in rc.8's own physical
 * format (bench/harness/zstd-log.ts, a port of the jsonl backend's writer;
 * rc.8 itself never deletes). A process that indexes more logs than one
 * transaction of rows holds leaves every row, with its title, in the home store
 * (`src/index/write-turns.ts`: the later transactions run in later turns of the
 * event loop, or at the plugin's end).
 * @module test/e2e/corpus-index
 */
import { randomUUID } from 'node:crypto'
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { constants, zstdCompressSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { decodeLog, encodeLog, logPathOf } from '../../bench/harness/zstd-log.ts'
import { startFakeModel } from './support/fake-model.ts'
import { homeFixture, makeHome, readSession, readSessions, runDsh, runHeadless, SKIP_E2E, writePatch } from './support/harness.ts'
import { router, steps } from './support/scenario.ts'

function titleFrame(seq: number, title: string): Buffer {
  const line = JSON.stringify({ type: 'session/title', seq, time: Date.now(), data: { title, messageSeqs: [], source: { kind: 'user' } } })
  return zstdCompressSync(Buffer.from(`${line}\n`), { params: { [constants.ZSTD_c_checksumFlag]: 1 } })
}

describe.skipIf(SKIP_E2E)('corpus index (headless profile)', () => {
  const fx = homeFixture()

  it('sees a session created, a log written and a session deleted by another process on the next call', async () => {
    fx.h = makeHome('corpus-index')
    let alphaId = ''
    const charlieId = `session-${randomUUID()}`
    const results: string[] = []
    let deltaId = ''
    // The second dsh process's run, checked after B's run: an assertion inside the scripted model would
    // only turn into a model reply (fake-model.ts answers a throwing scenario with text).
    let delta: { code: number | null, stderr: string } | undefined
    let patch = ''
    const alphaPath = () => logPathOf(fx.h!.home, fx.h!.workspace, alphaId)
    const charliePath = () => logPathOf(fx.h!.home, fx.h!.workspace, charlieId)
    fx.model = await startFakeModel({
      title: r => (r.allUserText.includes('ROLE:A') ? 'Alpha first title' : r.allUserText.includes('ROLE:D') ? 'Delta from another dsh' : 'Bravo watcher'),
      scenario: router({
        'ROLE:A': steps([], 'ALPHA done'),
        'ROLE:D': steps([], 'DELTA done'),
        'ROLE:B': steps([
          { name: 'sessions_list', args: {} },
          async turn => {
            results.push(turn.results[0]?.content ?? '')
            // Another real dsh process on the same DSH_HOME creates a session while B waits for its model.
            delta = await runDsh(['--profile', 'headless', '--patch', patch, 'ROLE:D say hello too'], { h: fx.h!, model: fx.model! })
            deltaId = readSessions(fx.h!).find(s => JSON.stringify(s.events).includes('ROLE:D say hello too'))?.header.id ?? 'missing'
            // Another process: a new session (a copy of A under a new id and title) and a new title for A.
            const [header, ...events] = decodeLog(readFileSync(alphaPath())).split('\n').filter(line => line.length > 0)
            const copied = events.map(line => line.split(alphaId).join(charlieId))
            const lastSeq = (JSON.parse(events.at(-1)!) as { seq: number }).seq
            copied.push(JSON.stringify({ type: 'session/title', seq: lastSeq + 1, time: Date.now(), data: { title: 'Charlie copy', messageSeqs: [], source: { kind: 'user' } } }))
            mkdirSync(dirname(charliePath()), { recursive: true })
            writeFileSync(charliePath(), encodeLog(header!.split(alphaId).join(charlieId), copied))
            appendFileSync(alphaPath(), titleFrame(lastSeq + 1, 'Alpha renamed'))
            return { name: 'sessions_list', args: {} }
          },
          turn => {
            results.push(turn.results[0]?.content ?? '')
            rmSync(dirname(charliePath()), { recursive: true })
            return { name: 'sessions_read', args: { session_id: charlieId } }
          },
          turn => {
            results.push(turn.results[0]?.content ?? '')
            return { name: 'sessions_list', args: {} }
          },
          turn => {
            results.push(turn.results[0]?.content ?? '')
            // Delta's log deleted, its session directory left (the project directory does not change): the next
            // list re-checks the rows it shows before printing them.
            rmSync(logPathOf(fx.h!.home, fx.h!.workspace, deltaId))
            return { name: 'sessions_list', args: {} }
          },
        ], turn => {
          results.push(turn.results[0]?.content ?? '')
          return 'B done'
        }),
      }),
    })
    patch = writePatch(fx.h)
    alphaId = (await runHeadless(fx.h, fx.model, 'ROLE:A say hello', { patch })).sessionId
    // B's run creates more than its own session, so it is started without runHeadless's one-new-session check.
    const bravo = await runDsh(['--profile', 'headless', '--patch', patch, 'ROLE:B watch the corpus'], { h: fx.h, model: fx.model })
    expect(bravo.code, bravo.stderr.slice(-2000)).toBe(0)
    expect(delta, 'B\'s model never reached the step that starts the second dsh process').toBeDefined()
    expect(delta!.code, delta!.stderr.slice(-2000)).toBe(0)
    expect(deltaId).toMatch(/^session-/)

    const [before, afterWrite, readDeleted, afterDelete, logGone] = results
    expect(before).toContain(alphaId)
    expect(before).toContain('Alpha first title')
    expect(before).not.toContain(charlieId)
    // Created and written by another process: seen on the next call, titles current.
    expect(afterWrite).toContain(charlieId)
    expect(afterWrite).toContain('Charlie copy')
    expect(afterWrite).toContain('Alpha renamed')
    expect(afterWrite).not.toContain('Alpha first title')
    expect(afterWrite).toMatch(new RegExp(`${deltaId} \\[cold, top-level\\][^\\n]*\\n  Delta from another dsh`))
    // Deleted by another process: gone on the next call.
    expect(readDeleted).toMatch(/not-found/)
    expect(afterDelete).not.toContain(charlieId)
    expect(afterDelete).toContain('Alpha renamed')
    expect(afterDelete).toContain(deltaId)
    // A log deleted in a session directory that stays: not printed.
    expect(logGone).toContain(alphaId)
    expect(logGone).not.toContain(deltaId)
    // The harness itself accepts the appended title (the log stays valid).
    expect(readSession(fx.h, alphaId).events.at(-1)).toMatchObject({ type: 'session/title' })
  })

  it('a new process\'s first list, from the rows an earlier process wrote, is exact about what changed since', async () => {
    fx.h = makeHome('corpus-first-list')
    const lists: string[] = []
    fx.model = await startFakeModel({
      title: r => (r.allUserText.includes('ROLE:A one') ? 'Alpha one' : r.allUserText.includes('ROLE:A two') ? 'Alpha two' : 'Lister'),
      scenario: router({
        'ROLE:A': steps([], 'ALPHA done'),
        'ROLE:L': steps([{ name: 'sessions_list', args: { limit: 3 } }], turn => {
          lists.push(turn.results[0]?.content ?? '')
          return 'L done'
        }),
      }),
    })
    const patch = writePatch(fx.h)
    const one = (await runHeadless(fx.h, fx.model, 'ROLE:A one', { patch })).sessionId
    const two = (await runHeadless(fx.h, fx.model, 'ROLE:A two', { patch })).sessionId
    // This process lists: its index writes every log's row to the home store as it ends.
    const firstLister = (await runHeadless(fx.h, fx.model, 'ROLE:L first', { patch })).sessionId
    // Since then, another writer: the oldest session deleted, one new log (a copy of Alpha two under a new id and
    // title, created just after it).
    rmSync(dirname(logPathOf(fx.h.home, fx.h.workspace, one)), { recursive: true })
    const charlieId = `session-${randomUUID()}`
    const [header, ...events] = decodeLog(readFileSync(logPathOf(fx.h.home, fx.h.workspace, two))).split('\n').filter(line => line.length > 0)
    const copied = events.map(line => line.split(two).join(charlieId))
    const lastSeq = (JSON.parse(events.at(-1)!) as { seq: number }).seq
    copied.push(JSON.stringify({ type: 'session/title', seq: lastSeq + 1, time: Date.now(), data: { title: 'Charlie copy', messageSeqs: [], source: { kind: 'user' } } }))
    mkdirSync(dirname(logPathOf(fx.h.home, fx.h.workspace, charlieId)), { recursive: true })
    const charlieHeader = JSON.parse(header!.split(two).join(charlieId)) as { createdAt: number }
    charlieHeader.createdAt += 1
    writeFileSync(logPathOf(fx.h.home, fx.h.workspace, charlieId), encodeLog(JSON.stringify(charlieHeader), copied))
    await runHeadless(fx.h, fx.model, 'ROLE:L second', { patch })

    const [, second] = lists
    expect(second).toMatch(new RegExp(`${charlieId} \\[cold, top-level\\][^\\n]*\\n  Charlie copy`))
    expect(second).toMatch(new RegExp(`${two} \\[cold, top-level\\][^\\n]*\\n  Alpha two`))
    expect(second).toContain(firstLister)
    // The three newest peers are shown (the caller's own row only when fewer pass); the deleted session, older than
    // every other, is not counted: Alpha two, Charlie, both listers.
    expect(second).not.toContain(one)
    expect(second).toContain('3 of 4 considered sessions')
  })

  it('a process that indexes more logs than one transaction of rows writes every row with its title', async () => {
    fx.h = makeHome('corpus-many-rows')
    const answers: string[] = []
    fx.model = await startFakeModel({
      title: r => (r.allUserText.includes('ROLE:A') ? 'Alpha seed' : 'Querier'),
      scenario: router({
        'ROLE:A': steps([], 'ALPHA done'),
        'ROLE:Q': steps([{ name: 'sessions_list', args: { query: 'zebra-unmatched' } }], turn => {
          answers.push(turn.results[0]?.content ?? '')
          return 'Q done'
        }),
      }),
    })
    const patch = writePatch(fx.h)
    const alpha = (await runHeadless(fx.h, fx.model, 'ROLE:A seed', { patch })).sessionId
    // 1,500 copies of Alpha's log under new ids (more than the 1,000 rows of one transaction), each older than the last.
    const [header, ...events] = decodeLog(readFileSync(logPathOf(fx.h.home, fx.h.workspace, alpha))).split('\n').filter(line => line.length > 0)
    const copies: string[] = []
    for (let n = 0; n < 1500; n++) {
      const id = `session-${randomUUID()}`
      const path = logPathOf(fx.h.home, fx.h.workspace, id)
      const copyHeader = JSON.parse(header!.split(alpha).join(id)) as { createdAt: number }
      copyHeader.createdAt -= (n + 1) * 1000
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, encodeLog(JSON.stringify(copyHeader), events.map(line => line.split(alpha).join(id))))
      copies.push(path)
    }
    await runHeadless(fx.h, fx.model, 'ROLE:Q look', { patch })

    // Every title was searched in the one call (nothing left for a later one), and nothing matched.
    expect(answers[0]).not.toMatch(/not searched by title/)
    expect(answers[0]).not.toContain(alpha)
    const db = new DatabaseSync(join(fx.h.home, 'cross-session', 'store.sqlite'), { readOnly: true })
    try {
      const rows = new Map((db.prepare('SELECT path, title FROM corpus_logs').all() as Array<{ path: string, title: string | null }>)
        .map(row => [row.path, row.title]))
      for (const path of [logPathOf(fx.h.home, fx.h.workspace, alpha), ...copies]) expect(rows.get(path), path).toBe('Alpha seed')
    } finally {
      db.close()
    }
  })
})
