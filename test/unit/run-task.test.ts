/**
 * A headless run's own task session takes nothing from the home store while
 * the run lives (src/home/run-task.ts, docs/tools.md "A headless run's own
 * task"): the pure decision, the terminal line, and the gate through the
 * shipped `HomeRuntime` over a real `SqliteHomeStore` (the pids are not real
 * processes; the session is an rc.8-shaped agent, test/support/rc8-sim.ts).
 *
 * @module test/unit/run-task
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { heldForRunTask, HomeRuntime, keptLine, openHomeStore, renderRemoteTail, RunTaskGate, storePaths, StoreWatch, takesStored, type HostAgent } from '../../src/testing.js'
import { rc8Session } from '../support/rc8-sim.js'

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

describe('takesStored', () => {
  it('keeps out only a session of a headless run that this package did not wake', () => {
    expect(takesStored({ headlessRun: true, wokenHere: false })).toBe(false)
    expect(takesStored({ headlessRun: true, wokenHere: true })).toBe(true)
    expect(takesStored({ headlessRun: false, wokenHere: false })).toBe(true)
    expect(takesStored({ headlessRun: false, wokenHere: true })).toBe(true)
  })
})

describe('keptLine', () => {
  it('one marked line for a message and for a notice, naming the sender and the run\'s session', () => {
    expect(keptLine('session-run', { sender: 'session-b' })).toBe('dsh-cross-session: a message from session session-b arrived for '
      + 'session-run during this run; it waits in the cross-session store for that session\'s next turn (this run prints only its own task\'s answer).\n')
    expect(keptLine('session-run', { sender: 'session-c', notice: 'completed' }))
      .toMatch(/^dsh-cross-session: a notice \(session session-c: turn completed\) arrived for session-run during this run; [^\n]*\n$/)
  })
})

describe('the gate through the runtime', () => {
  /** One process on a fresh home whose runtime holds `run` (created here) and `woken` (taken for a wake first). */
  function world(headlessRun: boolean) {
    const home = mkdtempSync(join(tmpdir(), 'xs-run-task-'))
    const store = openHomeStore(home, { pid: 701, start: 1 }, () => true)
    const sender = openHomeStore(home, { pid: 702, start: 1 }, () => true)
    const watch = new StoreWatch(store, storePaths(home).dir)
    cleanups.push(() => {
      watch.stop()
      store.close()
      sender.close()
      rmSync(home, { recursive: true, force: true })
    })
    const told: string[] = []
    const gate = new RunTaskGate(store, () => headlessRun, line => told.push(line))
    const live = new Map<string, HostAgent>()
    const runtime = new HomeRuntime(store, watch, {
      agents: { get: id => live.get(id), list: () => [...live.values()], resume: () => Promise.reject(new Error('no resume here')) },
      log: () => undefined,
      longLived: () => false,
      admits: sessionId => gate.admits(sessionId),
    })
    for (const id of ['run', 'woken']) live.set(id, rc8Session(id).resume())
    expect(store.acquire('woken').ok).toBe(true) // the guard takes a session before it wakes it
    runtime.track(live.get('run')!)
    runtime.track(live.get('woken')!)
    const post = (target: string, id: string) => {
      const posted = sender.post({ messageId: id, target, sender: 'session-b', hop: 1, mode: 'queue', text: `to ${target}`, mayWake: true })
      expect(posted.ok).toBe(true)
    }
    return { store, runtime, told, post }
  }

  it('in a headless run: a message for the run\'s own session stays pending and is told once; one for a session woken here is delivered', async () => {
    const { store, runtime, told, post } = world(true)
    post('run', 'm-run')
    post('woken', 'm-woken')
    await runtime.drain('run')
    await runtime.drain('run')
    await runtime.drain('woken')
    expect(store.message('m-run')?.state).toBe('pending')
    expect(store.message('m-woken')?.state).toBe('claimed')
    expect(told).toEqual([keptLine('run', { sender: 'session-b' })])
    // What the run keeps out, the next holder gets: it is still addressed and waiting.
    expect(store.pendingFor('run').map(m => m.messageId)).toEqual(['m-run'])
  })

  it('in any other process: the same session takes its message, and nothing is told', async () => {
    const { store, runtime, told, post } = world(false)
    post('run', 'm-run')
    await runtime.drain('run')
    expect(store.message('m-run')?.state).toBe('claimed')
    expect(told).toEqual([])
  })
})

describe('what a sender is told', () => {
  it('a holder that did not wake the session and is not a long-lived host holds a run\'s own task', () => {
    const home = mkdtempSync(join(tmpdir(), 'xs-run-task-'))
    const run = openHomeStore(home, { pid: 801, start: 1 }, () => true)
    const web = openHomeStore(home, { pid: 802, start: 1 }, () => true)
    cleanups.push(() => {
      run.close()
      web.close()
      rmSync(home, { recursive: true, force: true })
    })
    run.join(false)
    web.join(true)
    expect(run.isLongLived(web.self)).toBe(true)
    expect(web.isLongLived(run.self)).toBe(false)
    expect(heldForRunTask(web, { tag: run.self, state: 'live', woke: false })).toBe(true)
    expect(heldForRunTask(web, { tag: run.self, state: 'live', woke: true })).toBe(false)
    expect(heldForRunTask(run, { tag: web.self, state: 'live', woke: false })).toBe(false)
    // Another process's session is never kept by this process's gate.
    run.markLive('s')
    expect(new RunTaskGate(web, () => true, () => undefined).keeps('s')).toBe(false)
    expect(new RunTaskGate(run, () => true, () => undefined).keeps('s')).toBe(true)
  })

  it('pending for a run\'s own task: where it waits and when it is delivered, not that it reached the session', () => {
    const tail = renderRemoteTail({ pid: 42, handoff: false, runTask: true, mode: 'steer', recorded: { stage: 'pending' }, recordWaitMs: 5000, waitCancelled: false })
    expect(tail.head).toBe(' | the task session of a headless run (pid 42), which takes no peer message while it runs; '
      + 'delivered through the mailbox | pending in the mailbox until that run has ended')
    expect(tail.body).toBe('That run prints only its own task\'s answer, so the message waits in the cross-session store under DSH_HOME '
      + 'and becomes that session\'s next turn once the run has ended (the next process that holds the session delivers it); '
      + 'this call did not see it reach that session.')
    // Recorded (the run ended within the wait, and the sender woke it): said as any recorded delivery.
    const taken = renderRemoteTail({ pid: 42, handoff: false, runTask: true, mode: 'queue',
      recorded: { seq: 9, stage: 'conversation', takenOver: true }, recordWaitMs: 5000, waitCancelled: false })
    expect(taken.head).toBe(' | held by the dsh process pid 42, which let it go; woken in this process and delivered through the mailbox | recorded at seq 9')
  })
})
