/**
 * A query on a home still being indexed answers in bounded time
 * (docs/performance.md "A query on a home still being indexed"): the indexed
 * port's `readTitles` stops folding once its budget has passed, newest
 * sessions first, always with one fold of progress, and `sessions_list`
 * says how many candidates it has not searched by title yet.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Root } from '../support/jsonl-root.js'
import { listingPort } from '../support/indexed-port.js'
import { QUERY_TITLE_BUDGET_MS, renderResult, sessionsList, type CorpusIndex, type ListedValue } from '../../src/testing.js'

let home: string
let root: Root
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cross-session-bounded-'))
  root = new Root(home)
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

const ids = (count: number): string[] => Array.from({ length: count }, (_, index) => `session-${String(index).padStart(3, '0')}`)

describe('readTitles with a time budget (the corpus index)', () => {
  it('a budget already spent folds one title per call, newest first, and always gives the titles already folded', async () => {
    for (const [index, id] of ids(6).entries()) root.write(id, 1000 + index, `title ${index}`)
    const indexes: CorpusIndex[] = []
    const { port } = listingPort(root, index => indexes.push(index))
    const signal = new AbortController().signal
    await port.listSessions(signal)
    const first = await port.readTitles(ids(6), signal, { budgetMs: 0 })
    // The newest session (created last) is folded first.
    expect([...first]).toEqual([['session-005', 'title 5']])
    const second = await port.readTitles(ids(6), signal, { budgetMs: 0 })
    expect(new Map(second)).toEqual(new Map([['session-005', 'title 5'], ['session-004', 'title 4']]))
    expect(indexes[0]!.counters.titleFolds).toBe(2)
    // Without a budget, every title (the two folded ones are not folded again).
    const all = await port.readTitles(ids(6), signal)
    expect(all.size).toBe(6)
    expect(all.get('session-000')).toBe('title 0')
    expect(indexes[0]!.counters.titleFolds).toBe(6)
  })

  it('a log gone or unknown is answered (undefined) even past the budget, never left out', async () => {
    root.write('session-000', 1000, 'only one')
    const { port } = listingPort(root)
    const signal = new AbortController().signal
    await port.listSessions(signal)
    const titles = await port.readTitles(['session-000', 'session-nope'], signal, { budgetMs: 0 })
    expect(titles.has('session-nope')).toBe(true)
    expect(titles.get('session-nope')).toBeUndefined()
    expect(titles.get('session-000')).toBe('only one')
  })
})

describe('sessions_list {query} on a home still being indexed', () => {
  it('lists what it searched, says how many it has not, and each call searches more until the answer is whole', async () => {
    for (const [index, id] of ids(5).entries()) root.write(id, 1000 + index, index % 2 === 0 ? `alpha ${index}` : `beta ${index}`)
    const { w, me, port } = listingPort(root)
    const budgets: Array<number | undefined> = []
    // The tool's own budget is asked for; the port is then given none left (one fold per call).
    const sessions = {
      ...port,
      readTitles: (asked: readonly string[], signal: AbortSignal, options?: { budgetMs?: number }) => {
        budgets.push(options?.budgetMs)
        return port.readTitles(asked, signal, { budgetMs: 0 })
      },
    }
    const deps = { ...w.deps, sessions }
    const texts: string[] = []
    for (let call = 0; call < 6; call++) texts.push(await sessionsList({ query: 'alpha' }, w.call(me), deps))
    // What is left of it after the listing (a few ms here).
    expect(budgets.every(budget => budget !== undefined && budget <= QUERY_TITLE_BUDGET_MS && budget > QUERY_TITLE_BUDGET_MS - 1000)).toBe(true)
    // Call 1 folded session-004 ("alpha 4"); the four other logs are not searched yet.
    expect(texts[0]).toContain('- session-004 [cold, top-level]')
    expect(texts[0]).toContain('1 of 1 considered sessions')
    expect(texts[0]).toContain('4 more sessions were not searched by title: this home\'s title index is still being built. Ask again with the same query')
    // Call 2 folded session-003 ("beta 3"): nothing new matched, three left.
    expect(texts[1]).toContain('3 more sessions were not searched by title')
    expect(texts[2]).toContain('2 of 2 considered sessions')
    expect(texts[3]).toContain('1 more session was not searched by title')
    // Whole: the same answer as a query without any bound, and no line about the index.
    expect(texts[4]).toContain('3 of 3 considered sessions')
    expect(texts[4]).not.toContain('not searched')
    expect(texts[5]).toBe(texts[4])
    expect(texts[4]).toBe(await sessionsList({ query: 'alpha' }, w.call(me), { ...w.deps, sessions: port }))
  })

  it('counts the listing against the budget: a slow listing leaves the folds less time, not the call more', async () => {
    for (const [index, id] of ids(3).entries()) root.write(id, 1000 + index, `alpha ${index}`)
    const { w, me, port } = listingPort(root)
    const budgets: Array<number | undefined> = []
    const sessions = {
      ...port,
      listSessions: async (signal: AbortSignal) => {
        await new Promise(resolve => setTimeout(resolve, 60))
        return await port.listSessions(signal)
      },
      readTitles: (asked: readonly string[], signal: AbortSignal, options?: { budgetMs?: number }) => {
        budgets.push(options?.budgetMs)
        return port.readTitles(asked, signal, options)
      },
    }
    const text = await sessionsList({ query: 'alpha' }, w.call(me), { ...w.deps, sessions })
    expect(budgets).toHaveLength(1)
    expect(budgets[0]).toBeLessThanOrEqual(QUERY_TITLE_BUDGET_MS - 60)
    expect(budgets[0]).toBeGreaterThanOrEqual(0)
    expect(text).toContain('3 of 3 considered sessions')
  })

  it('says when nothing searched so far matched, without telling the model the query is wrong', () => {
    const value: ListedValue = { kind: 'listed', rows: [], matched: 0, query: 'alpha', malformed: 0, unsearched: 12 }
    const text = renderResult(value)
    expect(text).toContain('12 more sessions were not searched by title')
    expect(text).toContain('No session searched so far matched query "alpha".')
    expect(text).not.toContain('try a shorter query')
  })
})
