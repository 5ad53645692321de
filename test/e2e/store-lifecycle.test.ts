/**
 * End to end, the life of the home store file (docs/architecture.md §8,
 * "When the store fails"): real `dsh` processes on one `DSH_HOME`.
 *
 * - `store.sqlite` (alone, or with its `-wal` and `-shm`) deleted under a
 *   running `dsh web` host that holds a live session, then a send to that session from a new headless process: the
 *   host notices, makes the file again and holds its session there, so the
 *   sender sees it live in the host and delivers through the store: once,
 *   no second copy woken (the log stays contiguous and a fresh process
 *   reads it).
 * - A store written by the previous release of this package, and one by
 *   the release before it (an older schema, migrated in place)
 *   (`support/previous-store.ts`), opened by this one: every session's own
 *   `inbound` choice (refuse, hold), the held message and the pending one
 *   are kept and acted on.
 *
 * Each test boots its own processes on a fresh home, bounds every wait, and
 * kills only the processes it started.
 * @module test/e2e/store-lifecycle
 */
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { resultOf, startFakeModel, textOf, type FakeModel } from './support/fake-model.ts'
import { historyEvents, homeFixture, makeHome, readSession, runHeadless, SKIP_E2E, startWeb, transcript, waitFor, writePatch, type DshHome, type WebHarness } from './support/harness.ts'
import { expectContiguous, idAt, peerMessages } from './support/logs.ts'
import { OLDER_SCHEMA, OLDER_VERSION, PREVIOUS_SCHEMA, PREVIOUS_VERSION, writePreviousStore } from './support/previous-store.ts'
import { firstUserText, router, steps, type Turn } from './support/scenario.ts'
import { holderOf, messagesFor, storeFile } from './support/store.ts'
import { pageCall } from './support/page-key.ts'

/** One `sessions_send` of `body` to the session `target()` names. */
function sendTo(target: () => string, body: string) {
  return () => ({ name: 'sessions_send', args: { session_id: target(), message: `${body} from a peer` } })
}

/** A session that answers a turn carrying peer messages by naming their bodies. */
function answering(name: string) {
  return (turn: Turn) => {
    const { messages } = turn.request
    const since = messages.map(message => message.role).lastIndexOf('assistant')
    const bodies = messages.slice(since + 1).filter(message => message.role === 'user').flatMap(message => textOf(message).match(/\b[A-Z][A-Z0-9-]*-BODY\b/g) ?? [])
    return { text: bodies.length === 0 ? `${name} resting` : `${name}-ANSWER ${bodies.join(' ')}` }
  }
}

/** Whether the web host's live history of `sessionId` holds an assistant answer containing `text`. */
async function answeredThere(web: WebHarness, sessionId: string, text: string): Promise<boolean> {
  return transcript({ events: await historyEvents(web, sessionId) }).some(line => line.role === 'assistant' && line.text.includes(text))
}

/** One call on the package's web channel (src/home/channel.ts), as the page makes it (test/e2e/support/page-key.ts). */
async function channel(web: WebHarness, endpoint: string, payload: Record<string, unknown>): Promise<any> {
  return await pageCall(web.port, endpoint, payload)
}

/** Whether a model request of the session whose first message holds `role` carried `text`. */
function modelSaw(model: FakeModel, role: string, text: string): boolean {
  return model.requests.some(request => firstUserText(request).includes(role) && request.messages.some(message => textOf(message).includes(text)))
}

/** The schema version in the store's `meta`. */
function storeVersion(h: DshHome): string | undefined {
  const db = new DatabaseSync(storeFile(h), { readOnly: true })
  try {
    return (db.prepare('SELECT value FROM meta WHERE key = \'version\'').get() as { value: string } | undefined)?.value
  } finally {
    db.close()
  }
}

/** A frame as the previous release built it (docs/tools.md#the-frame; src/framing.ts `buildFrame` of 3d73f13, unchanged since). */
function previousFrame(from: string, title: string, body: string, token: string): string {
  return ['Cross-session message from another session of this harness.', `from-session: ${from} ("${title}")`, 'delivery: queue | hop 1', `--- message begins ${token} ---`, body, `--- message ends ${token} ---`].join('\n')
}

describe.skipIf(SKIP_E2E)('the life of the store file', () => {
  const fx = homeFixture()

  it.each([
    { deleted: 'store.sqlite', suffixes: [''] },
    { deleted: 'store.sqlite with its -wal and -shm', suffixes: ['', '-wal', '-shm'] },
  ])('$deleted deleted under a running web host, then a send from a new headless process: delivered once through the host, no fork', async ({ suffixes }) => {
    const h = fx.h = makeHome('sl-deleted')
    let targetId = ''
    const model = fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': answering('T'),
        'ROLE:S1': steps([sendTo(() => targetId, 'S1-BODY')], 'S1 done'),
        'ROLE:R': steps([() => ({ name: 'sessions_read', args: { session_id: targetId, max_messages: 50 } })], 'R done'),
      }),
    })
    const patch = writePatch(h)
    fx.web = await startWeb(h, model, { patch })
    const webPid = fx.web.child.pid!
    targetId = (await fx.web.create()).sessionId
    await fx.web.prompt(targetId, 'ROLE:T rest')
    await fx.web.waitIdle(targetId)
    await waitFor(() => holderOf(h, targetId)?.pid === webPid && holderOf(h, targetId)?.state === 'live', 'the web host to hold T live in the store')

    // The user deletes the store file (alone, or with its -wal and -shm, which the host has open) while the host runs.
    // The host is paused for the few deletions: it checks the file before every store call, and a host that saw the
    // file gone between two of them would rightly make a new one, whose -wal the next deletion would then take.
    process.kill(webPid, 'SIGSTOP')
    try {
      for (const suffix of suffixes) rmSync(`${storeFile(h)}${suffix}`, { force: true }) // -wal and -shm come and go with checkpoints
      expect(existsSync(storeFile(h))).toBe(false)
    } finally {
      process.kill(webPid, 'SIGCONT')
    }
    // At once, a new process sends to T.
    await runHeadless(h, model, 'ROLE:S1 message T, then stop', { patch })
    const sent = resultOf(model, 'sessions_send', 0)
    const said = new RegExp(`^accepted for ${targetId} \\| mode=queue .*\\| live in another dsh process \\(pid ${webPid}\\); delivered through the mailbox \\| recorded at seq (\\d+)\\n`).exec(sent)
    expect(said, sent).not.toBeNull()
    await waitFor(() => answeredThere(fx.web!, targetId, 'T-ANSWER S1-BODY'), 'T to answer S1 in the web host')
    // One file again, and in it the host still holds T: the sender woke no second copy.
    expect(existsSync(storeFile(h))).toBe(true)
    expect(holderOf(h, targetId)).toMatchObject({ pid: webPid, state: 'live' })
    await fx.web.stop()

    const log = readSession(h, targetId)
    expectContiguous(log)
    const delivered = peerMessages(log, 'S1-BODY')
    expect(delivered.map(found => found.seq)).toEqual([Number(said![1])])
    expect(messagesFor(h, targetId).map(m => [m.state, m.seq, m.message_id])).toEqual([['recorded', delivered[0]!.seq, idAt(log, delivered[0]!.seq)]])
    // A fresh process loads the log (no `corrupt session log`).
    await runHeadless(h, model, 'ROLE:R read T', { patch })
    const read = resultOf(model, 'sessions_read')
    expect(read).toContain(`session ${targetId} [cold, top-level]`)
    expect(read).toContain('S1-BODY')
    expect(read).toContain('T-ANSWER S1-BODY')
  })

  it.each([
    { release: 'the previous release (schema 5, opened as is)', schema: PREVIOUS_SCHEMA, version: PREVIOUS_VERSION },
    { release: 'the release before it (schema 4, migrated in place)', schema: OLDER_SCHEMA, version: OLDER_VERSION },
  ])('a store written by $release is opened by this one: refuse and hold choices, the held and the pending message kept', async release => {
    const h = fx.h = makeHome('sl-previous')
    const ids = { t: '', q: '', a: '' }
    const model = fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': answering('T'),
        'ROLE:Q': () => ({ text: 'Q resting' }),
        'ROLE:A': answering('A'),
        'ROLE:S': steps([sendTo(() => ids.q, 'S-QUIET-BODY'), sendTo(() => ids.a, 'S-HOLD-BODY')], 'S done'),
      }),
    })
    const patch = writePatch(h)
    // Three sessions, cold: T (a message waits for it), Q (its user refuses peers), A (its user holds them).
    ids.t = (await runHeadless(h, model, 'ROLE:T rest', { patch })).sessionId
    ids.q = (await runHeadless(h, model, 'ROLE:Q rest', { patch })).sessionId
    ids.a = (await runHeadless(h, model, 'ROLE:A rest', { patch })).sessionId

    // The home's store as the previous release left it: Q sent T a message that waits (may wake), and sent A one
    // that A's user has not decided yet; Q refuses peers, A holds them; every session let go at its run's exit.
    const now = Date.now()
    const pendingId = `cross-session:${ids.q}:call_prev_pending:00000000000000a1`
    const heldId = `cross-session:${ids.q}:call_prev_held:00000000000000b2`
    const holders = [ids.t, ids.q, ids.a].map(id => ({ session_id: id, pid: null, start: null, state: 'free', woke: 0, since: now - 60_000, let_go: 'exited', let_go_pid: 1, let_go_at: now - 60_000 }))
    writePreviousStore(h, {
      holders,
      inbound: [{ session_id: ids.q, mode: 'refuse', updated_at: now - 50_000 }, { session_id: ids.a, mode: 'hold', updated_at: now - 50_000 }],
      messages: [{ message_id: pendingId, target: ids.t, sender: ids.q, hop: 1, mode: 'queue', text: previousFrame(ids.q, 'Q', 'PREV-PENDING-BODY from a peer', 'PrevToken0001'), may_wake: 1, state: 'pending', created_at: now - 40_000, updated_at: now - 40_000 }],
      approvals: [{ message_id: heldId, target: ids.a, sender: ids.q, sender_title: 'Q', hop: 1, mode: 'queue', text: previousFrame(ids.q, 'Q', 'PREV-HELD-BODY from a peer', 'PrevToken0002'), body: 'PREV-HELD-BODY from a peer', may_wake: 1, notify: 0, state: 'held', created_at: now - 30_000, expires_at: now + 3_600_000 }],
    }, release)

    // This release on the home: a web host opens the file.
    fx.web = await startWeb(h, model, { patch })
    // The pending message: the host adopts T (waking allowed) and delivers it.
    await waitFor(() => answeredThere(fx.web!, ids.t, 'T-ANSWER PREV-PENDING-BODY'), 'T to answer the previous release\'s pending message', 60_000)
    // The choices and the held message.
    expect(await channel(fx.web, 'inbound.get', { sessionId: ids.q })).toMatchObject({ own: 'refuse' })
    expect(await channel(fx.web, 'inbound.get', { sessionId: ids.a })).toMatchObject({ own: 'hold' })
    expect((await channel(fx.web, 'approvals.list', { sessionId: ids.a })).approvals).toEqual([expect.objectContaining({ messageId: heldId, sender: ids.q, body: 'PREV-HELD-BODY from a peer' })])

    // A headless sender: Q refuses it, A holds it behind the earlier one.
    await runHeadless(h, model, 'ROLE:S message Q and A, then stop', { patch })
    expect(resultOf(model, 'sessions_send', 0)).toMatch(/^refused: rejected \| session-\S+ does not take messages from peer sessions/)
    expect(resultOf(model, 'sessions_send', 1)).toMatch(/held for its user's approval/)
    const held = (await channel(fx.web, 'approvals.list', { sessionId: ids.a })).approvals as Array<{ messageId: string, body: string }>
    expect(held.map(approval => approval.body)).toEqual(['PREV-HELD-BODY from a peer', 'S-HOLD-BODY from a peer'])

    // A's user delivers the previous release's held message: A is woken and gets it.
    expect(await channel(fx.web, 'approvals.decide', { messageId: heldId, decision: 'deliver' })).toEqual({ state: 'delivered' })
    await waitFor(() => answeredThere(fx.web!, ids.a, 'A-ANSWER PREV-HELD-BODY'), 'A to answer the delivered held message', 60_000)
    expect(modelSaw(model, 'ROLE:A', 'S-HOLD-BODY')).toBe(false)
    await fx.web.stop()

    // Nothing was moved aside: the file the earlier release wrote is the store, at least at the previous release's version.
    expect(readdirSync(join(h.home, 'cross-session')).filter(name => name.includes('broken') || name.includes('stale'))).toEqual([])
    expect(Number(storeVersion(h))).toBeGreaterThanOrEqual(Number(PREVIOUS_VERSION))
    const t = readSession(h, ids.t)
    expectContiguous(t)
    const pending = peerMessages(t, 'PREV-PENDING-BODY')
    expect(pending).toHaveLength(1)
    expect(idAt(t, pending[0]!.seq)).toBe(pendingId)
    expect(messagesFor(h, ids.t).find(m => m.message_id === pendingId)).toMatchObject({ state: 'recorded', seq: pending[0]!.seq })
    const a = readSession(h, ids.a)
    expectContiguous(a)
    expect(peerMessages(a, 'PREV-HELD-BODY')).toHaveLength(1)
    expect(peerMessages(a, 'S-HOLD-BODY')).toHaveLength(0)
    const q = readSession(h, ids.q)
    expect(transcript(q).some(line => line.text.includes('S-QUIET-BODY'))).toBe(false)
  })
})
