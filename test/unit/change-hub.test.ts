/**
 * The page's side of the host's pushes (src/client/change-hub.ts) with a
 * fake key socket and fake timers (run by hand, nothing waits): pushes run
 * the listeners they concern and nothing polls while the socket is open; a
 * lost socket starts the slow poll and is opened again after 1 s, doubling
 * while the host refuses; once it is back the poll stops and every listener
 * runs once.
 */
import { describe, expect, it } from 'vitest'
import { createChangeHub, FALLBACK_MS, FIRST_BACKOFF_MS, type ChangeHubIo } from '../../src/client/change-hub.ts'

function world() {
  let socket: ((event: { push?: Record<string, unknown>, closed?: boolean }) => void) | undefined
  const opens: Array<{ resolve: () => void, reject: () => void }> = []
  const intervals = new Map<number, { ms: number, run: () => void }>()
  const timeouts: Array<{ ms: number, run: () => void }> = []
  let next = 0
  const io: ChangeHubIo = {
    onKeySocket: listener => { socket = listener; return () => { socket = undefined } },
    open: () => new Promise<void>((resolve, reject) => { opens.push({ resolve, reject: () => reject(new Error('refused')) }) }),
    every: (ms, run) => {
      const id = next++
      intervals.set(id, { ms, run })
      return () => { intervals.delete(id) }
    },
    after: (ms, run) => { timeouts.push({ ms, run }) },
  }
  const hub = createChangeHub(io)
  const runs: string[] = []
  const listen = (name: string, logs?: (sessions: readonly string[] | undefined) => boolean) =>
    hub.listen({ run: () => { runs.push(name) }, logs: logs ?? (() => false) })
  /** Let the promise callbacks run. */
  const settle = async () => { for (let i = 0; i < 5; i++) await Promise.resolve() }
  return { hub, runs, listen, opens, intervals, timeouts, settle, push: (event: { push?: Record<string, unknown>, closed?: boolean }) => socket!(event) }
}

describe('the page\'s change hub', () => {
  it('opens the key socket for the first listener; store pushes run every listener, log pushes those they concern; nothing polls', async () => {
    const w = world()
    const stopA = w.listen('rows', sessions => sessions === undefined || sessions.includes('session-a'))
    w.listen('badge')
    expect(w.opens).toHaveLength(1)
    w.opens[0]!.resolve()
    await w.settle()
    expect(w.hub.live).toBe(true)
    expect(w.runs).toEqual([])
    w.push({ push: { changed: 'store', version: 'v1' } })
    expect(w.runs).toEqual(['rows', 'badge'])
    w.runs.length = 0
    w.push({ push: { changed: 'logs', sessions: ['session-b'] } })
    w.push({ push: { changed: 'logs', sessions: ['session-a'] } })
    w.push({ push: { changed: 'logs' } })
    expect(w.runs).toEqual(['rows', 'rows'])
    expect(w.intervals.size).toBe(0)
    w.runs.length = 0
    w.hub.changed()
    expect(w.runs).toEqual(['rows', 'badge'])
    stopA()
    w.runs.length = 0
    w.push({ push: { changed: 'store', version: 'v2' } })
    expect(w.runs).toEqual(['badge'])
  })

  it('a lost socket: the slow poll runs, the socket is opened again (1 s, then doubling while refused), and once back every view refreshes once and the poll stops', async () => {
    const w = world()
    w.listen('rows')
    w.opens[0]!.resolve()
    await w.settle()
    w.push({ closed: true })
    expect(w.hub.live).toBe(false)
    expect([...w.intervals.values()].map(each => each.ms)).toEqual([FALLBACK_MS])
    ;[...w.intervals.values()][0]!.run()
    expect(w.runs).toEqual(['rows'])
    expect(w.timeouts.map(each => each.ms)).toEqual([FIRST_BACKOFF_MS])
    w.timeouts.shift()!.run()
    expect(w.opens).toHaveLength(2)
    w.opens[1]!.reject()
    await w.settle()
    expect(w.timeouts.map(each => each.ms)).toEqual([2 * FIRST_BACKOFF_MS])
    w.timeouts.shift()!.run()
    w.opens[2]!.reject()
    await w.settle()
    expect(w.timeouts.map(each => each.ms)).toEqual([4 * FIRST_BACKOFF_MS])
    expect(w.intervals.size).toBe(1)
    w.timeouts.shift()!.run()
    w.runs.length = 0
    w.opens[3]!.resolve()
    await w.settle()
    expect(w.hub.live).toBe(true)
    expect(w.runs).toEqual(['rows'])
    expect(w.intervals.size).toBe(0)
  })

  it('a host that refuses the first open: polls until it opens; no poll once the last listener left', async () => {
    const w = world()
    const stop = w.listen('rows')
    w.opens[0]!.reject()
    await w.settle()
    expect(w.intervals.size).toBe(1)
    stop()
    expect(w.intervals.size).toBe(0)
  })
})
