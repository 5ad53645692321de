/**
 * A runtime's tick says a store fault once (`home/tick-faults.ts`): a full
 * disk met by every tick is one line in the log, a different fault another,
 * and the store coming back one more; a lock or an unusable store (said by
 * the supervisor) none. Through the real `HomeRuntime` on a real store whose
 * `waiting()` meets the fault.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openHomeStore, type HomeStore } from '../../src/testing.js'
import { handTickedRuntime } from '../support/hand-ticked-runtime.js'
import { StoreUnavailableError } from '../../src/home/store-fault.js'
import { TickFaults } from '../../src/home/tick-faults.js'

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

const full = () => Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13, errstr: 'database or disk is full' })
const locked = () => Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5, errstr: 'database is locked' })
const ioError = () => Object.assign(new Error('disk I/O error'), { code: 'ERR_SQLITE_ERROR', errcode: 10, errstr: 'disk I/O error' })

describe('TickFaults', () => {
  it('logs a fault when its text is new, and once when a run succeeds after it', () => {
    const logged: string[] = []
    const faults = new TickFaults(line => logged.push(line))
    let fault: (() => Error) | undefined
    const step = () => {
      if (fault !== undefined) throw fault()
    }
    faults.run(step)
    expect(logged).toEqual([])
    fault = full
    for (let tick = 0; tick < 5; tick++) faults.run(step)
    expect(logged).toEqual(['the cross-session store could not be read: Error: database or disk is full (said once; every tick tries again)'])
    fault = ioError
    faults.run(step)
    faults.run(step)
    expect(logged).toHaveLength(2)
    expect(logged[1]).toContain('disk I/O error')
    // A lock, or a store the supervisor already said is unusable: nothing more, and no "again" either.
    fault = locked
    faults.run(step)
    fault = () => new StoreUnavailableError('database or disk is full')
    faults.run(step)
    expect(logged).toHaveLength(2)
    fault = undefined
    faults.run(step)
    faults.run(step)
    expect(logged).toEqual([logged[0], logged[1], 'the cross-session store can be read again'])
    // The same fault after it cleared is news again.
    fault = full
    faults.run(step)
    expect(logged).toHaveLength(4)
  })
})

describe('a runtime whose ticks meet a full disk', () => {
  it('says it once over many ticks, and once more when the store can be read again', () => {
    const home = mkdtempSync(join(tmpdir(), 'xs-tick-faults-'))
    cleanups.push(() => rmSync(home, { recursive: true, force: true }))
    const opened = openHomeStore(home, { pid: process.pid, start: 1 }, () => true)
    let isFull = false
    const store = new Proxy(opened, {
      get(target, key, receiver) {
        if (key === 'waiting') return () => {
          if (isFull) throw full()
          return target.waiting()
        }
        const value = Reflect.get(target, key, receiver) as unknown
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
      },
    }) as HomeStore
    cleanups.push(() => opened.close()) // after the runtime's stop (cleanups run last first)
    const { runtime, logged } = handTickedRuntime(home, store, { longLived: false, cleanups, watched: opened })
    runtime.start()
    isFull = true
    for (let tick = 0; tick < 10; tick++) runtime.tick()
    isFull = false
    runtime.tick()
    runtime.tick()
    expect(logged.filter(line => line.includes('cross-session store'))).toEqual([
      'the cross-session store could not be read: Error: database or disk is full (said once; every tick tries again)',
      'the cross-session store can be read again',
    ])
  })
})
