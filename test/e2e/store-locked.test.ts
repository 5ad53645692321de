/**
 * End to end, a home store that cannot be used (docs/architecture.md §8,
 * "When the store fails"): another program holds the store's write lock
 * for longer than any wait while a headless `dsh` starts and sends to a
 * session live in a `dsh web` host and to a session whose user refuses
 * peers. The sender fails closed: both sends are refused readably, nothing
 * is woken (no fork: the target's log stays contiguous and loads), and once
 * the lock is gone the refusing session is still refused for its own choice.
 * And the store file deleted under a running web host: the host moves to
 * the new file and holds its live session there again, and a send from a
 * new process is delivered once into it, without a fork.
 *
 * The test boots its own processes on a fresh home, bounds every wait, and
 * kills only the processes it started.
 * @module test/e2e/store-locked
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { rmSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { resultOf, startFakeModel, textOf } from './support/fake-model.ts'
import { historyEvents, homeFixture, makeHome, readSession, runHeadless, SKIP_E2E, startWeb, transcript, waitFor, writePatch } from './support/harness.ts'
import { expectContiguous, peerMessages } from './support/logs.ts'
import { router, steps, type Turn } from './support/scenario.ts'
import { holderOf, storeFile, writeStore } from './support/store.ts'

/** One `sessions_send` of `body` to the session `target()` names. */
function sendTo(target: () => string, body: string) {
  return () => ({ name: 'sessions_send', args: { session_id: target(), message: `${body} from a peer` } })
}

/** T answers a turn that carries peer messages by naming them. */
function answering(turn: Turn) {
  const bodies = turn.request.messages.filter(message => message.role === 'user').flatMap(message => textOf(message).match(/\b[A-Z][A-Z0-9]*-BODY\b/g) ?? [])
  return { text: bodies.length === 0 ? 'T resting' : `T-ANSWER ${bodies.join(' ')}` }
}

/** A step that needs the write lock, refused after its retries (the step may be named first). */
const UNAVAILABLE_STEP = /^refused: rejected \| (?:[a-z][a-z ]* failed: )?the cross-session store is unavailable \(database is locked\)/

describe.skipIf(SKIP_E2E)('a store locked by another program, or whose file goes', () => {
  const fx = homeFixture()
  let locker: ChildProcess | undefined
  afterEach(() => {
    if (locker?.exitCode === null && locker.signalCode === null) locker.kill('SIGKILL')
    locker = undefined
  })

  it('while a headless process starts and sends to a session live in a web host: refused readably, no fork, a refuse target stays refused', async () => {
    const h = fx.h = makeHome('store-locked')
    let targetId = ''
    let quietId = ''
    const model = fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': answering,
        'ROLE:Q': () => ({ text: 'Q resting' }),
        'ROLE:S1': steps([sendTo(() => targetId, 'S1-BODY')], 'S1 done'),
        'ROLE:S2': steps([sendTo(() => targetId, 'S2-BODY'), sendTo(() => quietId, 'S2-QUIET-BODY')], 'S2 done'),
        'ROLE:S3': steps([sendTo(() => quietId, 'S3-QUIET-BODY')], 'S3 done'),
      }),
    })
    const patch = writePatch(h)
    targetId = (await runHeadless(h, model, 'ROLE:T rest', { patch })).sessionId
    quietId = (await runHeadless(h, model, 'ROLE:Q rest', { patch })).sessionId
    // Q's user refuses peers (its own choice, in the store).
    writeStore(h, 'INSERT INTO inbound (session_id, mode, updated_at) VALUES (?, \'refuse\', ?)', quietId, Date.now())
    fx.web = await startWeb(h, model, { patch })
    const webPid = fx.web.child.pid!
    // T goes live in the web host (a headless sender hands it over).
    await runHeadless(h, model, 'ROLE:S1 message T, then stop', { patch })
    await waitFor(async () => transcript({ events: await historyEvents(fx.web!, targetId) }).some(line => line.role === 'assistant' && line.text.includes('T-ANSWER S1-BODY')) || undefined, 'T to answer S1 in the web host')
    expect(holderOf(h, targetId)).toMatchObject({ pid: webPid, state: 'live' })

    // Another program takes the write lock and keeps it (a user's sqlite3, a backup tool).
    locker = spawn(process.execPath, ['--no-warnings', '-e', `
      const db = new (require('node:sqlite').DatabaseSync)(${JSON.stringify(storeFile(h))})
      db.exec('PRAGMA busy_timeout = 10000')
      db.exec('BEGIN IMMEDIATE')
      process.stdout.write('locked\\n')
      setInterval(() => {}, 1000)
    `], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise<void>(resolve => locker!.stdout!.once('data', () => resolve()))
    await runHeadless(h, model, 'ROLE:S2 message T and Q, then stop', { patch, timeoutMs: 120_000 })
    locker.kill('SIGKILL')
    await new Promise(resolve => locker!.once('exit', resolve))

    // Both sends refused: T's post needs the write lock (refused, with the reason, after the send's retries);
    // Q's own choice is read without a lock (WAL readers never wait), so Q is refused for it.
    expect(resultOf(model, 'sessions_send', 1)).toMatch(UNAVAILABLE_STEP)
    expect(resultOf(model, 'sessions_send', 2)).toMatch(/^refused: rejected \| session-\S+ does not take messages from peer sessions/)
    // Once the lock is gone, Q is refused for its own choice: never bypassed.
    await runHeadless(h, model, 'ROLE:S3 message Q, then stop', { patch })
    expect(resultOf(model, 'sessions_send', 3)).toMatch(/^refused: rejected \| session-\S+ does not take messages from peer sessions/)
    // T stayed live in the web host only: nothing woke a second copy.
    expect(holderOf(h, targetId)).toMatchObject({ pid: webPid, state: 'live' })
    await fx.web.stop()

    const log = readSession(h, targetId)
    expectContiguous(log)
    expect(peerMessages(log, 'S1-BODY')).toHaveLength(1)
    expect(peerMessages(log, 'S2-BODY')).toHaveLength(0)
    const quiet = readSession(h, quietId)
    expectContiguous(quiet)
    expect(transcript(quiet).filter(line => line.role === 'user').map(line => line.text).join('\n')).not.toMatch(/QUIET-BODY/)
  })

  it('the store file deleted under a running web host: the host moves to the new file, and a send from a new process is delivered once, without a fork', async () => {
    const h = fx.h = makeHome('store-deleted')
    let targetId = ''
    const model = fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': answering,
        'ROLE:S1': steps([sendTo(() => targetId, 'S1-BODY')], 'S1 done'),
        'ROLE:S2': steps([sendTo(() => targetId, 'S2-BODY')], 'S2 done'),
      }),
    })
    const patch = writePatch(h)
    targetId = (await runHeadless(h, model, 'ROLE:T rest', { patch })).sessionId
    fx.web = await startWeb(h, model, { patch })
    const webPid = fx.web.child.pid!
    await runHeadless(h, model, 'ROLE:S1 message T, then stop', { patch })
    await waitFor(async () => transcript({ events: await historyEvents(fx.web!, targetId) }).some(line => line.role === 'assistant' && line.text.includes('T-ANSWER S1-BODY')) || undefined, 'T to answer S1 in the web host')
    expect(holderOf(h, targetId)).toMatchObject({ pid: webPid, state: 'live' })

    // The file goes (a user's cleanup); the web host notices on its watch's next tick and holds T in the new file.
    // The host is paused for the three deletions, so that it cannot make the new file between them and lose its -wal.
    process.kill(webPid, 'SIGSTOP')
    try {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${storeFile(h)}${suffix}`, { force: true })
    } finally {
      process.kill(webPid, 'SIGCONT')
    }
    // (While the host makes the new file, it may have no tables yet.)
    const heldByWeb = (): true | undefined => {
      try {
        return holderOf(h, targetId)?.pid === webPid || undefined
      } catch {
        return undefined
      }
    }
    await waitFor(heldByWeb, 'the web host to hold T in the new store file')

    await runHeadless(h, model, 'ROLE:S2 message T, then stop', { patch })
    expect(resultOf(model, 'sessions_send', 1)).toMatch(new RegExp(`^accepted for ${targetId} \\| mode=queue .*\\| live in another dsh process \\(pid ${webPid}\\); delivered through the mailbox \\| recorded at seq \\d+\\n`))
    await waitFor(async () => transcript({ events: await historyEvents(fx.web!, targetId) }).some(line => line.role === 'assistant' && line.text.startsWith('T-ANSWER') && line.text.includes('S2-BODY')) || undefined, 'T to answer S2 in the web host')
    await fx.web.stop()
    const log = readSession(h, targetId)
    expectContiguous(log)
    expect(peerMessages(log, 'S1-BODY')).toHaveLength(1)
    expect(peerMessages(log, 'S2-BODY')).toHaveLength(1)
  })
})
