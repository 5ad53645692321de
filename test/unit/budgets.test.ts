/**
 * The deterministic budgets of docs/performance.md (backend call counts, titles folded,
 * schema bytes, limiter bounds), asserted through the counting fakes. Timings
 * are not asserted here: `npm run bench` measures them.
 *
 * @module test/unit/budgets
 */

import { describe, expect, it } from 'vitest'
import { callIdentity, MAX_TRACKED_ENTRIES, SendLimits, sessionsList, sessionsRead, sessionsSend } from '../../src/testing.js'
import { corpusWorld, surfaceEvents } from '../../bench/corpus.js'
import { realVerdicts, SEND_ACCEPTED_MAX_CALLS, SEND_REFUSED_MAX_CALLS } from '../../bench/budgets.js'
import { shownRows, type CaseRow } from '../../bench/measure.js'

function delta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [method, count] of Object.entries(after)) if (count - (before[method] ?? 0) > 0) out[method] = count - (before[method] ?? 0)
  return out
}

describe('sessions_list call budget', () => {
  const cw = corpusWorld(2_000)
  const counts = () => ({ ...cw.world.corpus.calls, ...cw.world.controller.calls })

  for (const args of [{}, { query: 'reconcile' }, { limit: 200, scope: 'all' }, { live_only: true }, { query: 'no-such-thing-anywhere' }]) {
    it(`makes exactly one listSessions and at most one readTitles (${JSON.stringify(args)})`, async () => {
      const before = counts()
      await sessionsList(args, cw.world.call(cw.caller), cw.world.deps)
      const made = delta(before, counts())
      expect(made.listSessions).toBe(1)
      expect(made.readTitles ?? 0).toBeLessThanOrEqual(1)
      expect(Object.keys(made).sort()).toEqual(Object.keys(made).filter(method => method === 'listSessions' || method === 'readTitles').sort())
    })
  }

  it('folds no more titles than rows shown when there is no query', async () => {
    for (const args of [{}, { limit: 3 }, { limit: 200, scope: 'all' }, { live_only: true }]) {
      const folded = cw.world.corpus.titlesFolded
      const output = await sessionsList(args, cw.world.call(cw.caller), cw.world.deps)
      const shown = shownRows(output)
      expect(shown).toBeDefined()
      expect(cw.world.corpus.titlesFolded - folded).toBeLessThanOrEqual(shown!)
    }
  })
})

describe('sessions_read call budget', () => {
  it('makes one readSurface, no listSessions, and never touches the controller', async () => {
    const cw = corpusWorld(1_000)
    const target = cw.coldPeers[0]!
    target.events = surfaceEvents(2_000)
    const before = { ...cw.world.corpus.calls }
    const output = await sessionsRead({ session_id: target.header.id }, cw.world.call(cw.caller), cw.world.deps)
    const made = delta(before, cw.world.corpus.calls)
    expect(made.readSurface).toBe(1)
    expect(made.listSessions ?? 0).toBe(0)
    expect(made.lookup ?? 0).toBe(0)
    expect(cw.world.controller.log).toEqual([])
    expect(output.length).toBeLessThanOrEqual(cw.world.deps.settings.maxReadMessages * (cw.world.deps.settings.maxMessageChars + 200))
  })
})

describe('sessions_send call budget', () => {
  const cw = corpusWorld(5_000)
  const counts = () => ({ ...cw.world.corpus.calls, ...cw.world.controller.calls })
  const total = (calls: Record<string, number>) => Object.values(calls).reduce((sum, n) => sum + n, 0)

  it(`an accepted send makes at most ${SEND_ACCEPTED_MAX_CALLS} port calls and no listSessions`, async () => {
    for (const target of [cw.coldPeers[0]!, cw.livePeer]) {
      const before = counts()
      const output = await sessionsSend({ session_id: target.header.id, message: `hello ${target.header.id}` }, cw.world.call(cw.caller), cw.world.deps)
      expect(output).toMatch(/^accepted for /)
      const made = delta(before, counts())
      expect(made.listSessions ?? 0).toBe(0)
      expect(made.lookup).toBe(1)
      expect(total(made)).toBeLessThanOrEqual(SEND_ACCEPTED_MAX_CALLS)
    }
  })

  it(`a send refused after its lookup makes at most ${SEND_REFUSED_MAX_CALLS} port call`, async () => {
    const noWake = { ...cw.world.deps, settings: { ...cw.world.deps.settings, allowResume: false } }
    const cases: Array<[unknown, typeof noWake]> = [
      [{ session_id: 'session-missing', message: 'hi' }, cw.world.deps],
      [{ session_id: cw.subagent.header.id, message: 'hi' }, cw.world.deps],
      [{ session_id: cw.coldPeers[3]!.header.id, message: 'hi' }, noWake],
    ]
    for (const [args, deps] of cases) {
      const before = counts()
      const output = await sessionsSend(args, cw.world.call(cw.caller), deps)
      expect(output).toMatch(/^refused: /)
      const made = delta(before, counts())
      expect(made.listSessions ?? 0).toBe(0)
      expect(total(made)).toBeLessThanOrEqual(SEND_REFUSED_MAX_CALLS)
    }
  })
})

describe('bounded state and catalog size', () => {
  it('keeps send-limiter state bounded whatever the number of peers', () => {
    const limits = new SendLimits()
    for (let index = 0; index < 3 * MAX_TRACKED_ENTRIES; index++) {
      limits.recordDelivery('session-a', `session-peer-${index}`, 'body')
      limits.recordCall('session-a', callIdentity(`call-${index}`, { session_id: 'session-b', message: 'body' }), 'accepted')
    }
    const size = limits.size()
    expect(size.pairs).toBeLessThanOrEqual(MAX_TRACKED_ENTRIES)
    expect(size.bodies).toBeLessThanOrEqual(MAX_TRACKED_ENTRIES)
    expect(size.calls).toBeLessThanOrEqual(MAX_TRACKED_ENTRIES)
  })
})

describe('real-harness corpus budgets (bench/budgets.ts realVerdicts)', () => {
  const row = (tool: string, name: string, firstMs: number, medianMs: number, firstCalls: Record<string, number> = {}, extra: Partial<CaseRow> = {}): CaseRow => ({
    suite: 'real', tool, case: name, corpus: 10_000, iterations: 3, firstMs, medianMs, calls: { 'index.scans': 1 }, firstCalls, titlesFolded: 0, peakHeapMB: 1, outputChars: 1, shown: 25, ...extra,
  })
  const verdictsOf = (firstHeaderReads: number, warmQueryMs = 120) => realVerdicts([
    row('sessions_list', 'query, first process on an unindexed home', 9000, 9000, {}, { floor: { what: 'every log read whole', firstMs: 3000 } }),
    row('sessions_list', 'query, first process on an unindexed home, to the whole answer (2 calls)', 11000, 11000, {}, { floor: { what: 'every log read whole', firstMs: 3000 } }),
    row('sessions_read', 'cold, in the priming process', 2500, 2500, {}, { events: 100_024 }),
    row('sessions_list', 'no query', 250, 80, { 'index.headerReads': firstHeaderReads }, { floor: { what: 'rows', firstMs: 150 } }),
    row('sessions_list', 'query (title word)', 180, warmQueryMs, {}, { floor: { what: 'stat of every log', firstMs: 100, medianMs: 100 } }),
    row('sessions_read', 'cold', 200, 90, {}, { events: 100_024 }),
    row('persistence', 'inspect(id), 100024 events', 1600, 90, {}, { events: 100_023 }),
    row('sessions_send', 'resume-disabled (cold)', 2, 1),
    row('corpus index', 'one refresh from empty, retained heap', 300, 300, {}, { retainedMB: 11 }),
  ])
  const verdict = (verdicts: ReturnType<typeof realVerdicts>, start: string) => verdicts.find(item => item.budget.startsWith(start))

  it('passes the 10,000-session targets, and fails a new process that re-reads the headers an earlier one read', () => {
    const good = verdictsOf(1)
    expect(good.filter(item => !item.pass).map(item => item.budget)).toEqual([])
    expect(verdict(verdictsOf(10_000), 'a new process\'s first lists at 10,000')?.pass).toBe(false)
  })

  it('takes a new process\'s first list from the shared rows as the call\'s one listing of the root, and fails a call that lists twice', () => {
    const lists = (calls: Record<string, number>) => realVerdicts([
      row('sessions_list', 'no query', 250, 80, {}, { calls, floor: { what: 'rows', firstMs: 150 } }),
    ])
    const budget = 'real sessions_list: one listing of the root'
    expect(verdict(lists({ 'index.newestLists': 1 }), budget)?.pass).toBe(true)
    expect(verdict(lists({ 'index.scans': 1 }), budget)?.pass).toBe(true)
    expect(verdict(lists({ 'index.scans': 1, 'index.newestLists': 1 }), budget)?.pass).toBe(false)
    expect(verdict(lists({}), budget)?.pass).toBe(false)
  })

  it('bounds the first query on an unindexed home in time, and judges every call to its whole answer against the floor', () => {
    const unindexed = (firstMs: number, wholeMs: number) => realVerdicts([
      row('sessions_list', 'query, first process on an unindexed home', firstMs, firstMs, {}, { floor: { what: 'every log read whole', firstMs: 3000 } }),
      row('sessions_list', 'query, first process on an unindexed home, to the whole answer (3 calls)', wholeMs, wholeMs, {},
        { floor: { what: 'every log read whole', firstMs: 3000 } }),
    ])
    const bound = 'sessions_list {query} at 10,000: first process on an unindexed home, first call ≤ 10000 ms'
    const whole = 'sessions_list {query} at 10,000: first process on an unindexed home, every call to the whole answer (3 calls) ≤ 4×'
    expect(verdict(unindexed(9_900, 11_000), bound)?.pass).toBe(true)
    expect(verdict(unindexed(10_100, 11_000), bound)?.pass).toBe(false)
    expect(verdict(unindexed(9_900, 11_000), whole)?.pass).toBe(true)
    expect(verdict(unindexed(9_900, 12_100), whole)?.pass).toBe(false)
  })

  it('judges a warm query against its floor measured in the same run, and fails one without a floor', () => {
    expect(verdict(verdictsOf(1, 149), 'sessions_list {query} at 10,000: warm median')?.pass).toBe(true)
    expect(verdict(verdictsOf(1, 151), 'sessions_list {query} at 10,000: warm median')?.pass).toBe(false)
    const noFloor = realVerdicts([row('sessions_list', 'no query', 1, 1)])
    expect(verdict(noFloor, 'sessions_list {} at 10,000: a new process\'s first call')?.pass).toBe(false)
  })
})
