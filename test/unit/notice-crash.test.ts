/**
 * Crash schedules of the notice transition (docs/architecture.md §8,
 * "Notices"): seeded schedules of simulated `dsh` processes on one real
 * SQLite store. A sender asks for notices (`watch`); whichever process holds
 * the target admits the watched messages into its log, runs turns that end
 * completed, failed or interrupted, flushes its log to disk, and looks at
 * the watches (`fireEndedWatches`, as `home/holding.ts` does once the log is
 * on disk and whenever it takes a session); whichever process holds the
 * sender claims the notices and records them in the sender's log. A SIGKILL
 * is possible at every step: the victim's in-memory log tail is lost, its
 * claims return to `pending`.
 *
 * After every step: ONE NOTICE (a watch is `noticed` exactly when its one
 * notice row exists), FROM THE DISK (a posted notice names a turn end that
 * the target's log on disk holds after the message, with its outcome).
 * Before recovery, with nobody holding the target, a long-lived host's look
 * at the log on disk alone (`home/orphan-watches.ts`) settles every watch
 * whose turn ended there; that look may also come at any step. After
 * recovery (a fresh process holds both sessions and runs every turn):
 * every watch left `watching` is gone, and the sender's log holds each
 * notice exactly once. A variant that looks at the log before it is on disk
 * must be caught. `NOTICE_CRASH_SEED=<n>` replays one seed with its steps.
 *
 * @module test/unit/notice-crash
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fireEndedWatches, noticeIdOf, noticeOutcome, openHomeStore, type HomeStore, type HostAgent, type ProcessTag } from '../../src/testing.js'
import { mulberry32 } from '../support/prng.js'

const SEEDS = Number(process.env.NOTICE_CRASH_SEEDS ?? 600)
const STEPS = 30
const T = 'session-target'
const S = 'session-sender'
const REASONS = ['completed', 'error', 'aborted'] as const

const homes: string[] = []
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true })
})

type Event = { seq: number, type: string, data: Record<string, unknown> }
interface Proc { tag: ProcessTag, store: HomeStore }
type Variant = 'real' | 'look-before-flush'

/** One schedule; throws naming the broken invariant. */
function runSchedule(seed: number, variant: Variant, trace: string[]): { noticed: number, kills: number } {
  const home = mkdtempSync(join(existsShm() ? '/dev/shm' : tmpdir(), 'xs-notice-crash-'))
  homes.push(home)
  const random = mulberry32(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const dead = new Set<number>()
  const alive = (tag: ProcessTag) => !dead.has(tag.pid)
  const procs: Proc[] = []
  let nextPid = 300
  const start = (): Proc => {
    const tag = { pid: nextPid++, start: 1 }
    const proc = { tag, store: openHomeStore(home, tag, alive) }
    proc.store.join(false)
    procs.push(proc)
    return proc
  }
  const living = () => procs.filter(proc => alive(proc.tag))
  // The target's log: on disk, and the holder's unflushed tail.
  const disk: Event[] = []
  let tail: Event[] = []
  let seq = 0
  const append = (type: string, data: Record<string, unknown>) => tail.push({ seq: seq++, type, data })
  const log = () => [...disk, ...tail]
  const senderLog: string[] = []
  const asked: string[] = []
  let holderT: Proc | undefined
  let holderS: Proc | undefined
  let kills = 0
  const agent = (events: Event[]): HostAgent => ({ id: T, session: { events } }) as unknown as HostAgent
  const look = (proc: Proc, events: Event[]) => fireEndedWatches(proc.store, agent(events))

  const holdT = (proc: Proc) => {
    if (!proc.store.markLive(T).ok) return
    holderT = proc
    // Taking a session: look at every watch against the log on disk (a turn may have ended under a dead holder).
    look(proc, disk)
  }
  const admitAll = () => {
    // The holder admits every watched message its log lacks (a lost tail returns them, as a claim returns to pending).
    for (const id of asked) if (!log().some(e => e.type === 'user/message' && e.data.id === id)) append('user/message', { id, role: 'user', content: [{ type: 'text', text: id }] })
  }
  const runTurn = (reason: string) => {
    append('turn/start', {})
    append('assistant/message', { message: { role: 'assistant', content: [{ type: 'text', text: `answer ${seq}` }] } })
    append('turn/end', { reason: { kind: reason } })
  }
  const deliverS = (proc: Proc) => {
    if (!proc.store.markLive(S).ok) return
    holderS = proc
    for (const message of proc.store.claim(S)) {
      if (!senderLog.includes(message.messageId)) senderLog.push(message.messageId)
      proc.store.record(message.messageId, senderLog.indexOf(message.messageId), false)
    }
  }
  const kill = (proc: Proc) => {
    dead.add(proc.tag.pid)
    kills++
    if (holderT === proc) {
      holderT = undefined
      tail = []
      seq = disk.length
    }
    if (holderS === proc) holderS = undefined
  }

  const check = (where: string) => {
    const store = living()[0]?.store ?? start().store
    for (const id of asked) {
      const watch = store.watchOf(id)
      const notice = store.message(noticeIdOf(id))
      if ((watch?.state === 'noticed') !== (notice !== undefined)) throw new Error(`ONE NOTICE (${where}): watch ${id} is ${watch?.state} and its notice row ${notice === undefined ? 'is absent' : 'exists'}`)
      if (watch?.state !== 'noticed') continue
      const at = disk.findIndex(e => e.type === 'user/message' && e.data.id === id)
      const end = disk.find(e => e.type === 'turn/end' && e.seq > (disk[at]?.seq ?? Infinity))
      if (at < 0 || end === undefined || end.seq !== watch.turnEndSeq) throw new Error(`FROM THE DISK (${where}): watch ${id} noticed turn end ${watch.turnEndSeq}; the log on disk ${end === undefined ? 'holds no turn end after the message' : `has it at ${end.seq}`}`)
      if (noticeOutcome(String((end.data.reason as { kind: string }).kind)) !== watch.outcome) throw new Error(`FROM THE DISK (${where}): outcome ${watch.outcome} for ${String((end.data.reason as { kind: string }).kind)}`)
    }
  }

  try {
    start()
    for (let step = 0; step < STEPS; step++) {
      const procsNow = living()
      const proc = procsNow.length === 0 ? start() : pick(procsNow)
      const action = pick(['ask', 'ask', 'hold', 'turn', 'turn', 'flush', 'look', 'orphan-look', 'deliver', 'kill', 'start'] as const)
      trace.push(`${step}: ${action} by ${proc.tag.pid}`)
      if (action === 'ask') {
        const id = `cross-session:${S}:c${step}`
        proc.store.watch({ messageId: id, sender: S, target: T, hop: 1, mayWake: true, maxHops: 8, perMinute: 100, expiresAt: Date.now() + 60_000 })
        asked.push(id)
        if (holderT !== undefined) admitAll()
      } else if (action === 'hold' && holderT === undefined) {
        holdT(proc)
        if (holderT !== undefined) admitAll()
      } else if (action === 'turn' && holderT !== undefined) {
        admitAll()
        runTurn(pick(REASONS))
        if (variant === 'look-before-flush') look(holderT, log())
      } else if (action === 'flush' && holderT !== undefined) {
        disk.push(...tail)
        tail = []
        // Once the log is on disk, the holder looks (home/holding.ts persistFound).
        look(holderT, disk)
      } else if (action === 'look' && holderT !== undefined) {
        look(holderT, disk)
      } else if (action === 'orphan-look' && proc.store.view(T).holder === undefined) {
        // A long-lived host looks at a watched session nobody living holds, from its log on disk (home/orphan-watches.ts).
        look(proc, disk)
      } else if (action === 'deliver') {
        deliverS(holderS !== undefined && alive(holderS.tag) ? holderS : proc)
      } else if (action === 'kill') {
        kill(proc)
      } else if (action === 'start') {
        start()
      }
      check(`step ${step}`)
    }
    // Recovery: everyone else dies; one fresh process holds both sessions, runs every turn, flushes, looks, delivers.
    for (const other of living()) kill(other)
    const last = start()
    trace.push(`recovery by ${last.tag.pid}`)
    // Nobody holds the target: a long-lived host's look from the disk alone notices every turn that ended there.
    look(last, disk)
    check('orphan look')
    const endedOnDisk = asked.filter(id => {
      const at = disk.findIndex(e => e.type === 'user/message' && e.data.id === id)
      return at >= 0 && disk.slice(at).some(e => e.type === 'turn/end')
    })
    const unseen = endedOnDisk.filter(id => last.store.watchOf(id)?.state === 'watching')
    if (unseen.length > 0) throw new Error(`ORPHAN LOOK: ${unseen.join(', ')} ended on disk and are still watching`)
    holdT(last)
    admitAll()
    runTurn('completed')
    disk.push(...tail)
    tail = []
    look(last, disk)
    deliverS(last)
    check('recovery')
    const watching = asked.filter(id => last.store.watchOf(id)?.state === 'watching')
    if (watching.length > 0) throw new Error(`LIVENESS: ${watching.join(', ')} still watching after every turn ended`)
    const notices = asked.map(noticeIdOf).filter(id => last.store.message(id) !== undefined)
    const once = notices.every(id => senderLog.filter(entry => entry === id).length === 1)
    if (!once || senderLog.length !== notices.length) throw new Error(`DELIVERY: the sender's log holds ${senderLog.join(', ')}; the notices are ${notices.join(', ')}`)
    return { noticed: notices.length, kills }
  } finally {
    for (const proc of procs) proc.store.close()
  }
}

function existsShm(): boolean {
  try {
    rmSync(mkdtempSync('/dev/shm/xs-probe-'), { recursive: true })
    return true
  } catch {
    return false
  }
}

const replaySeed = process.env.NOTICE_CRASH_SEED === undefined ? undefined : Number(process.env.NOTICE_CRASH_SEED)

describe('notice crash schedules', () => {
  it.skipIf(replaySeed !== undefined)(`${SEEDS} seeded schedules keep one notice per message, posted from the log on disk, each delivered once`, () => {
    let noticed = 0
    let kills = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const trace: string[] = []
      try {
        const result = runSchedule(seed, 'real', trace)
        noticed += result.noticed
        kills += result.kills
      } catch (error: unknown) {
        expect.fail(`seed ${seed}: ${(error as Error).message}\n${trace.join('\n')}`)
      }
    }
    // Not vacuous: notices were posted and processes were killed.
    expect(noticed).toBeGreaterThan(SEEDS)
    expect(kills).toBeGreaterThan(SEEDS)
  }, 120_000)

  it.skipIf(replaySeed !== undefined)('a holder that looks before its log is on disk is caught', () => {
    let caught: string | undefined
    for (let seed = 1; seed <= 300 && caught === undefined; seed++) {
      try {
        runSchedule(seed, 'look-before-flush', [])
      } catch (error: unknown) {
        caught = (error as Error).message
      }
    }
    expect(caught).toMatch(/FROM THE DISK/)
  }, 60_000)

  it.runIf(replaySeed !== undefined)('replays NOTICE_CRASH_SEED, printing its steps', () => {
    const trace: string[] = []
    try {
      runSchedule(replaySeed!, 'real', trace)
    } finally {
      console.info(trace.join('\n'))
    }
  })
})
