/**
 * A notice to a sender in a short-lived process (a headless run) that has
 * exited (docs/tools.md#notices): the guard's watch (src/home/guard.ts
 * `watchAnswer`) lets it wake the sender in a long-lived host only when the
 * sender's `noticeWakesEndedRun` is on; otherwise it is not adoptable and
 * waits for the sender's next turn. From a long-lived host the sender's
 * `allowResume` alone decides, as before.
 * @module test/unit/notice-ended-run
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_SETTINGS, guardController, HomeRuntime, openHomeStore, storePaths, StoreWatch, type ControllerPort } from '../../src/testing.js'

const cleanups: Array<() => void> = []
afterEach(() => { for (const cleanup of cleanups.splice(0).reverse()) cleanup() })

/** The guard of one process on a fresh home, short-lived (a headless run) or long-lived (`dsh web`). */
function guardOf(longLived: boolean) {
  const home = mkdtempSync(join(tmpdir(), 'xs-ended-run-'))
  const store = openHomeStore(home, { pid: 901, start: 1 }, () => true)
  const watch = new StoreWatch(store, storePaths(home).dir)
  cleanups.push(() => { watch.stop(); store.close(); rmSync(home, { recursive: true, force: true }) })
  const runtime = new HomeRuntime(store, watch, { agents: { get: () => undefined, list: () => [], resume: () => Promise.reject(new Error('none')) }, log: () => undefined, longLived: () => longLived })
  const inner = { resolve: async () => ({ ok: false }), admit: async () => ({ ok: false }), releaseWoken: async () => 'not-held', waitRecorded: async () => undefined } as unknown as ControllerPort
  return { store, guard: guardController(inner, runtime, { isLocal: () => false, agentOf: () => undefined, listEvents: async () => [] }) }
}

const watch = { requestId: 'cross-session:S:c:d', senderSessionId: 'S', targetId: 'T', hop: 1, mayWake: true, maxHops: 4, perMinute: 6, ttlMs: 60_000 }

describe('a notice to a sender whose headless run has exited', () => {
  it('the setting is off by default', () => {
    expect(DEFAULT_SETTINGS.noticeWakesEndedRun).toBe(false)
  })

  it('from a headless run: the notice may not wake the sender unless its user turned noticeWakesEndedRun on', () => {
    const { store, guard } = guardOf(false)
    guard.watchAnswer!(watch)
    expect(store.watchOf(watch.requestId)?.mayWake).toBe(false)
    guard.watchAnswer!({ ...watch, requestId: 'cross-session:S:c2:d', wakeEndedRun: true })
    expect(store.watchOf('cross-session:S:c2:d')?.mayWake).toBe(true)
    // allowResume off stays off.
    guard.watchAnswer!({ ...watch, requestId: 'cross-session:S:c3:d', mayWake: false, wakeEndedRun: true })
    expect(store.watchOf('cross-session:S:c3:d')?.mayWake).toBe(false)
  })

  it('from a long-lived host: allowResume alone decides', () => {
    const { store, guard } = guardOf(true)
    guard.watchAnswer!(watch)
    expect(store.watchOf(watch.requestId)?.mayWake).toBe(true)
  })

  it('a notice that may not wake is not adoptable: it waits for the sender\'s next turn', () => {
    const { store, guard } = guardOf(false)
    guard.watchAnswer!(watch)
    store.markLive('T')
    store.post({ messageId: watch.requestId, target: 'T', sender: 'S', hop: 1, mode: 'queue', text: 'x', mayWake: true })
    store.claim('T')
    store.record(watch.requestId, 5, false)
    expect(store.fireWatch(watch.requestId, { turnEndSeq: 9, outcome: 'completed', answeredBySend: false, text: 'the notice' })?.state).toBe('noticed')
    expect(store.waiting().has('S')).toBe(true)
    expect(store.adoptable()).not.toContain('S')
  })
})
