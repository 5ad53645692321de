/**
 * The rc.8 simulation of the crash schedules (test/support/rc8-sim.ts)
 * against the published rc.8 code it was built from, installed under
 * e2e/node_modules, the way test/unit/fake-host.test.ts checks the fake
 * host: seeded random runs of a `SimAgent` (followups, steers, turn steps,
 * cancels, failed turns, and SIGKILLs that cut the log back to what was on
 * disk, then a resume) write logs that
 * - load in `@deepseek-ai/dsh-session@0.1.0-rc.8` `Session.create`, after
 *   the simulation's two known simplifications are undone: it numbers seqs
 *   from 1 (the schedules read `recorded at seq N` as `events[N - 1]`), and
 *   it writes no surface marker (rc.8's `Session.append` adds `surfaceOp:
 *   'append'` to a surface-eligible event);
 * - replay in `@deepseek-ai/dsh-agent@0.1.0-rc.8` `Inbox` to the same
 *   pending lists as the simulated inbox;
 * - close a cut-off turn on resume as `interruptedTurnClosers` does.
 *
 * Without the e2e install (`node scripts/setup.mjs`) the comparison skips
 * with one line, except under CI, where it fails.
 *
 * @module test/unit/rc8-sim
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { HostUserMessage } from '../../src/testing.js'
import { mulberry32 } from '../support/prng.js'
import { rc8Session, type LogEvent, type SessionLog, type SimAgent } from '../support/rc8-sim.js'

const LIB = join(import.meta.dirname, '..', '..', 'e2e', 'node_modules', '@deepseek-ai')
const installed = existsSync(join(LIB, 'dsh-session', 'lib', 'index.js'))
const ci = !['', '0', 'false'].includes((process.env.CI ?? '').trim().toLowerCase())
if (!installed && !ci) console.warn(`rc8-sim conformance skipped: rc.8 is not installed under ${LIB} (run node scripts/setup.mjs)`)

const load = async (name: string): Promise<any> => await import(pathToFileURL(join(LIB, name, 'lib', 'index.js')).href)
const HEADER = { version: 0, id: 's', createdAt: 1, cwd: '/work/project' }
const message = (id: string): HostUserMessage => ({ id, role: 'user', content: [{ type: 'text', text: id }], source: { kind: 'plugin' } })

describe.skipIf(!installed && !ci)('the rc.8 simulation of the crash schedules against rc.8\'s published code', () => {
  let rc8: { session: any, agent: any }
  beforeAll(async () => {
    if (!installed) throw new Error(`rc.8 is not installed under ${LIB}: run node scripts/setup.mjs (CI: the simulation cannot be checked against it)`)
    rc8 = { session: await load('dsh-session'), agent: await load('dsh-agent') }
  })

  /** The simulation's log as rc.8 writes it: seqs from 0, surface-eligible events marked as appended. */
  function asRc8(events: readonly LogEvent[]): unknown[] {
    return events.map((event, index) => ({ ...structuredClone(event), seq: index, ...(rc8.session.isSurfaceEligibleType(event.type) ? { surfaceOp: 'append' } : {}) }))
  }

  const pending = (agent: SimAgent): string[][] => [agent.inbox.nextTurn.map(each => each.id), agent.inbox.nextStep.map(each => each.id)]

  /** One seeded run; `check` is called after every step with the log and the agent live on it. */
  function run(seed: number, check: (log: SessionLog, agent: SimAgent, cut: { prefix: LogEvent[], closers: LogEvent[] } | undefined, step: number) => void): void {
    const random = mulberry32(seed)
    const session = rc8Session('s')
    const { log } = session
    let agent = session.resume()
    let sent = 0
    for (let step = 0; step < 60; step++) {
      const roll = random()
      let cut: { prefix: LogEvent[], closers: LogEvent[] } | undefined
      if (roll < 0.25) agent.followup(message(`m${sent++}`))
      else if (roll < 0.35) agent.steer(message(`m${sent++}`))
      else if (roll < 0.75) agent.step()
      else if (roll < 0.78) agent.cancel()
      else if (roll < 0.81) agent.fail()
      else if (roll < 0.86) agent.wake()
      else if (roll < 0.92) log.persist(log.persisted + Math.floor(random() * (log.unpersisted + 1)))
      else {
        // A SIGKILL: what was not on disk is gone; the next holder resumes from the rest.
        log.lose()
        const prefix = [...log.events]
        agent = session.resume()
        cut = { prefix, closers: log.events.slice(prefix.length) }
      }
      check(log, agent, cut, step)
    }
  }

  it('writes logs rc.8 loads (Session.create), whatever the run and wherever it was cut', () => {
    for (let seed = 1; seed <= 200; seed++) {
      // After each resume and at the end (loading is slow enough that every step would take seconds).
      run(seed, (log, _agent, cut, step) => {
        if (cut === undefined && step !== 59) return
        expect(() => rc8.session.Session.create('s', asRc8(log.events), HEADER), `seed ${seed}`).not.toThrow()
      })
    }
  }, 60_000)

  it('leaves the inbox rc.8 replays from its log (Inbox)', () => {
    let nonEmpty = 0
    for (let seed = 1; seed <= 200; seed++) {
      run(seed, (log, agent) => {
        if (agent.inbox.hasPending) nonEmpty++
        const inbox = new rc8.agent.Inbox({ events: asRc8(log.events), header: HEADER }, { inserted() {}, discarded() {}, claimed() {} })
        expect([inbox.nextTurn.map((each: HostUserMessage) => each.id), inbox.nextStep.map((each: HostUserMessage) => each.id)], `seed ${seed}`).toEqual(pending(agent))
      })
    }
    // Not vacuous: most steps had input pending.
    expect(nonEmpty).toBeGreaterThan(1000)
  }, 60_000)

  it('closes a turn cut off by a SIGKILL on resume as rc.8 does (interruptedTurnClosers)', () => {
    let cuts = 0
    for (let seed = 1; seed <= 200; seed++) {
      run(seed, (_log, _agent, cut) => {
        if (cut === undefined) return
        cuts += cut.closers.length > 0 ? 1 : 0
        const expected = rc8.session.interruptedTurnClosers(asRc8(cut.prefix)).map((event: LogEvent) => ({ type: event.type, data: event.data }))
        expect(cut.closers.map(event => ({ type: event.type, data: event.data })), `seed ${seed}`).toEqual(expected)
      })
    }
    // Not vacuous: turns were cut off mid-way and closed.
    expect(cuts).toBeGreaterThan(20)
  }, 60_000)
})
