/**
 * End to end, faults of two machines on one PostgreSQL server
 * (docs/architecture.md §8 "Several machines"): machine B's `dsh web`
 * holds a live session, machine A sends to it from headless runs, and
 *
 * - B's host is SIGKILLed while one message from A is in B's session's
 *   running turn and another is claimed by B but not yet in its log; a new
 *   `dsh web` on B (the same machine, so it judges the dead one by pid +
 *   start time, not by its lease) delivers the claimed one: each message
 *   ends in B's log exactly once, and `recorded` in the shared store; the
 *   one whose turn the kill cut off is offered again by name, not delivered
 *   again (docs/architecture.md "Woken sessions finish what they were
 *   woken for");
 * - the PostgreSQL server itself (one of this test's own, crashed with
 *   `pg_ctl stop -m immediate` and started again on the same port) goes
 *   away while a message is claimed by B and not yet recorded: while it is
 *   down A's send is refused readably, A still lists and reads its own
 *   sessions, and both machines' logs say what is down; once it is back
 *   the claimed message is recorded once, and a new send goes through once.
 *
 * Every assertion reads what really happened: the tool results A's model
 * received, what B's model was sent, B's persisted log, and the rows of the
 * shared database (schema `dsh_cross_session`).
 * @module test/e2e/machines-faults
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { resultOf, startFakeModel, textOf, type FakeModel } from './support/fake-model.ts'
import { homeFixture, makeHome, readLog, readSession, transcript, runHeadless, SKIP_E2E, startWeb, waitFor, writePatch, type DshHome } from './support/harness.ts'
import { expectContiguous, onceEachInOrder, peerMessages } from './support/logs.ts'
import { firstUserText, router, steps } from './support/scenario.ts'
import { pgBin, startCluster } from '../support/pg-cluster.ts'
import { pgUrl, testDatabase } from '../support/pg-target.ts'

const url = SKIP_E2E ? undefined : pgUrl()

/** A's bound on a send (`recordWaitMs`, docs/tools.md): short, so a run whose message B only claimed ends soon. */
const RECORD_WAIT_MS = 1500

/** How the notice starts that offers again the peer messages a killed process's turn never answered (`home/reoffer.ts`). */
const CUT_OFF = '[dsh-cross-session notice] The dsh process running this session ended while it was answering'

/** B's model requests that hold `marker` in a message. */
function betaSaw(model: FakeModel, marker: string): number {
  return model.requests.filter(r => !r.isTitle && firstUserText(r).includes('ROLE:BETA') && r.messages.some(m => textOf(m).includes(marker))).length
}

/** Whether B's model has answered `text`. */
function answered(model: FakeModel, text: string): true | undefined {
  return model.requests.some(r => r.reply !== undefined && 'text' in r.reply && r.reply.text === text) || undefined
}

/** The `messages` rows of `target`, in posting order, with the body marker each carries. */
async function rowsOf(admin: pg.Pool, target: string): Promise<Array<{ marker: string, state: string, seq: number | null, claimer_pid: number | null }>> {
  const rows = await admin.query('SELECT text, state, seq, claimer_pid FROM dsh_cross_session.messages WHERE target = $1 AND notice IS NULL ORDER BY n', [target])
  return rows.rows.map(row => ({ marker: /\b(M\d)-BODY\b/.exec(row.text)?.[1] ?? '?', state: row.state, seq: row.seq, claimer_pid: row.claimer_pid }))
}

describe.skipIf(SKIP_E2E || url === undefined)('two machines on one PostgreSQL server: faults', () => {
  const fx = homeFixture()
  const cleanups: Array<() => Promise<void> | void> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  /**
   * The scripted model: B's session answers its first prompt at once and each message from A by its marker, except
   * that its answer to `M1` waits until the returned `release` (so B's session is mid-turn with M1 while later
   * messages queue behind it); S1, S2, S3 each send `M1`, `M2`, `M3` in `queue`; `DOWN` sends while the server is away,
   * after listing the sessions and reading S1's.
   */
  async function model(target: () => string, ownSession: () => string): Promise<{ model: FakeModel, release: () => void }> {
    let release!: () => void
    const gate = new Promise<void>(resolve => { release = resolve })
    cleanups.push(() => release())
    const send = (marker: string) => steps([() => ({ name: 'sessions_send', args: { session_id: target(), message: `${marker}-BODY from the laptop` } })], `${marker} sent`)
    const made = fx.model = await startFakeModel({
      scenario: router({
        'ROLE:BETA': async turn => {
          if (turn.trigger.startsWith(CUT_OFF)) return { text: 'BETA-ANSWERS-CUT-OFF' }
          const marker = /\b(M\d)-BODY\b/.exec(turn.trigger)?.[1]
          if (marker === undefined) return { text: 'BETA-READY' }
          if (marker === 'M1') await gate
          return { text: `BETA-SAW-${marker}` }
        },
        'ROLE:S1': send('M1'),
        'ROLE:S2': send('M2'),
        'ROLE:S3': send('M3'),
        'ROLE:DOWN': steps([
          { name: 'sessions_list', args: {} },
          () => ({ name: 'sessions_read', args: { session_id: ownSession() } }),
          () => ({ name: 'sessions_send', args: { session_id: target(), message: 'M9-BODY sent while the server is away' } }),
        ], 'DOWN done'),
      }),
    })
    return { model: made, release }
  }

  /** B: a `dsh web` on machine `server-b` of `store`, one live session that answered once and is published. */
  async function machineB(store: string, admin: pg.Pool, fake: FakeModel): Promise<{ b: DshHome, patchB: string, betaId: string }> {
    const b = fx.h = makeHome('mfault-b')
    const patchB = writePatch(b, { plugin: { store, machine: 'server-b' }, logLevel: 2 })
    fx.web = await startWeb(b, fake, { patch: patchB })
    const betaId = (await fx.web.create()).sessionId
    await fx.web.prompt(betaId, 'ROLE:BETA keep the server')
    await fx.web.waitIdle(betaId)
    await waitFor(async () => (await admin.query('SELECT 1 FROM dsh_cross_session.directory WHERE session_id = $1', [betaId])).rows.length === 1, 'B publishes its session')
    return { b, patchB, betaId }
  }

  /** A: a home on machine `laptop-a` of `store`. */
  function machineA(store: string): { a: DshHome, patchA: string } {
    const a = makeHome('mfault-a')
    cleanups.push(() => a.cleanup())
    return { a, patchA: writePatch(a, { plugin: { store, machine: 'laptop-a', recordWaitMs: RECORD_WAIT_MS }, logLevel: 2 }) }
  }

  it('B\'s host SIGKILLed with one message mid-turn and one claimed behind it: a new dsh web on B delivers each exactly once', async () => {
    const db = await testDatabase(url!, 'xs_mfault')
    cleanups.push(db.drop)
    let betaId = ''
    const { model: fake } = await model(() => betaId, () => '')
    const started = await machineB(db.url, db.admin, fake)
    betaId = started.betaId
    const { a, patchA } = machineA(db.url)
    const firstPid = fx.web!.child.pid!

    // M1 reaches B's idle session and starts its turn; B's model holds its answer, so the turn is still running.
    await runHeadless(a, fake, 'ROLE:S1 tell the server', { patch: patchA })
    expect(resultOf(fake, 'sessions_send', 0)).toMatch(new RegExp(`^accepted for ${betaId} \\| mode=queue \\| chars=\\d+ \\| hop 1 \\| live on machine server-b; delivered through the shared store \\| recorded at seq \\d+\\n`))
    await waitFor(() => betaSaw(fake, 'M1-BODY') > 0 || undefined, 'B\'s model to be asked about M1')
    // M2 queues behind that turn: B claims it, and it is not in B's log yet.
    await runHeadless(a, fake, 'ROLE:S2 tell the server again', { patch: patchA })
    expect(resultOf(fake, 'sessions_send', 1)).toMatch(new RegExp(`^accepted for ${betaId} \\| mode=queue \\| chars=\\d+ \\| hop 1 \\| live on machine server-b; delivered through the shared store \\| claimed there, not yet recorded after ${RECORD_WAIT_MS} ms\\n`))
    expect(await rowsOf(db.admin, betaId)).toEqual([
      { marker: 'M1', state: 'recorded', seq: expect.any(Number), claimer_pid: firstPid },
      { marker: 'M2', state: 'claimed', seq: null, claimer_pid: firstPid },
    ])

    // B's host dies at once, its lease row left behind (up to 15 s); a new one starts on the same home.
    fx.web!.child.kill('SIGKILL')
    await waitFor(() => fx.web!.child.signalCode !== null || undefined, 'B\'s host to die')
    fx.web = await startWeb(started.b, fake, { patch: started.patchB })
    // The new host judges the dead claimer by its pid + start time, takes M2 back, wakes the session and delivers it.
    await waitFor(() => answered(fake, 'BETA-SAW-M2'), 'B\'s session, woken by the new host, to answer M2', 60_000)
    await waitFor(async () => (await rowsOf(db.admin, betaId)).every(row => row.state === 'recorded'), 'every message recorded in the shared store')
    // M1 was recorded but its turn never ended: it is offered again by name once what waited is in (not delivered again).
    await waitFor(() => answered(fake, 'BETA-ANSWERS-CUT-OFF'), 'B\'s session to answer the notice offering M1 again')
    await fx.web.waitIdle(betaId)
    await fx.web.stop()

    // Exactly once each in B's log, one contiguous history; the store's seqs are the log's.
    const log = readSession(started.b, betaId)
    expectContiguous(log)
    const [m1, m2] = onceEachInOrder(log, 'M1-BODY', 'M2-BODY') as [number, number]
    expect((await rowsOf(db.admin, betaId)).map(row => [row.marker, row.state, row.seq])).toEqual([['M1', 'recorded', m1], ['M2', 'recorded', m2]])
    // The turn cut off by the kill never answered M1; the woken session answered M2 once.
    expect(answered(fake, 'BETA-SAW-M1')).toBeUndefined()
    expect(fake.requests.filter(r => r.reply !== undefined && 'text' in r.reply && r.reply.text === 'BETA-SAW-M2')).toHaveLength(1)
    const offered = transcript(log).filter(line => line.role === 'user' && line.text.startsWith(CUT_OFF))
    expect(offered).toHaveLength(1)
    expect(offered[0]!.text).toContain(`(seq ${m1})`)
    expect(offered[0]!.seq).toBeGreaterThan(m2)
  })

  it('the PostgreSQL server restarted mid-send: refused readably while down, A\'s own sessions still listed and read, nothing lost or doubled once back', async () => {
    const bin = pgBin()
    if ('missing' in bin) throw new Error(bin.missing)
    const cluster = await startCluster(bin.dir)
    cleanups.push(() => cluster.stop())
    // An admin pool on a server the test crashes: an idle client's broken connection must not end the test process.
    const admin = new pg.Pool({ connectionString: cluster.url, max: 1 })
    admin.on('error', () => undefined)
    cleanups.push(async () => await admin.end())
    let betaId = ''
    let s1Id = ''
    const { model: fake, release } = await model(() => betaId, () => s1Id)
    const started = await machineB(cluster.url, admin, fake)
    betaId = started.betaId
    const webPid = fx.web!.child.pid!
    const { a, patchA } = machineA(cluster.url)

    // Before the stop: M1 reaches B's idle session and starts a turn whose answer B's model holds back.
    s1Id = (await runHeadless(a, fake, 'ROLE:S1 tell the server', { patch: patchA })).sessionId
    await waitFor(() => betaSaw(fake, 'M1-BODY') > 0 || undefined, 'B\'s model to be asked about M1')
    // M2 queues behind that turn: claimed by B, not yet in its log, when the server goes away.
    const s2Id = (await runHeadless(a, fake, 'ROLE:S2 tell the server again', { patch: patchA })).sessionId
    expect(resultOf(fake, 'sessions_send', 1)).toMatch(new RegExp(`^accepted for ${betaId} \\| .*\\| live on machine server-b; delivered through the shared store \\| claimed there, not yet recorded after ${RECORD_WAIT_MS} ms\\n`))
    expect((await rowsOf(admin, betaId)).map(row => [row.marker, row.state, row.claimer_pid])).toEqual([['M1', 'recorded', webPid], ['M2', 'claimed', webPid]])

    cluster.crash()
    // B's turn ends while the server is away: M2 becomes its next turn, in B's log, with nowhere to record it yet.
    release()
    await waitFor(() => answered(fake, 'BETA-SAW-M2'), 'B\'s session to take M2 while the server is away')

    // While it is down, a run on A (its store cannot be opened at start): its own sessions are listed and read as
    // before, other machines' are not listed, and the send to B's session is refused saying why (docs/tools.md
    // "Sessions of other machines"; docs/architecture.md §8 "When the store fails").
    const down = await runHeadless(a, fake, 'ROLE:DOWN look around while the server is away', { patch: patchA, timeoutMs: 90_000 })
    const list = resultOf(fake, 'sessions_list')
    const listed = list.split('\n').flatMap(line => /^- (session-\S+) /.exec(line)?.[1] ?? [])
    expect(listed.sort()).toEqual([s1Id, s2Id, down.sessionId].sort())
    expect(list.split('\n').find(line => line.includes(s1Id))).toMatch(/^- session-\S+ \[cold, top-level\] \| cwd=/)
    expect(list).toContain('3 of 3 considered sessions')
    const read = resultOf(fake, 'sessions_read')
    expect(read.split('\n')[0]).toMatch(new RegExp(`^session ${s1Id} \\[cold, top-level\\]`))
    expect(read).toContain('ROLE:S1 tell the server')
    expect(read).toContain('M1 sent')
    const refused = resultOf(fake, 'sessions_send', 2)
    expect(refused).toMatch(/^refused: rejected \| the cross-session store is unavailable \(the PostgreSQL server cannot be reached \(ECONNREFUSED\)\)\n/)
    expect(refused).toContain('Nothing was delivered. No session was woken. Try again shortly')
    const saidA = readLog(a).map(line => line.text)
    expect(saidA).toContainEqual(expect.stringMatching(/^the cross-session store is unavailable \(the PostgreSQL server cannot be reached \(ECONNREFUSED\)\): sends to other sessions are refused/))
    expect(saidA).toContainEqual(expect.stringMatching(/^other machines' sessions are not listed while the shared store cannot be reached/))

    cluster.start()
    // Back: B records M2 where its log holds it (its retries back off, docs/architecture.md §8), and a new send goes through.
    await waitFor(async () => (await rowsOf(admin, betaId).catch(() => [])).map(row => row.state).join() === 'recorded,recorded', 'M1 and M2 recorded once the server is back', 60_000)
    await runHeadless(a, fake, 'ROLE:S3 tell the server once more', { patch: patchA })
    expect(resultOf(fake, 'sessions_send', 3)).toMatch(new RegExp(`^accepted for ${betaId} \\| mode=queue \\| chars=\\d+ \\| hop 1 \\| live on machine server-b; delivered through the shared store \\| recorded at seq \\d+\\n`))
    await waitFor(() => answered(fake, 'BETA-SAW-M3'), 'B\'s session to answer M3')
    await fx.web!.stop()

    const log = readSession(started.b, betaId)
    expectContiguous(log)
    const seqs = ['M1', 'M2', 'M3'].map(marker => peerMessages(log, `${marker}-BODY`).map(m => m.seq))
    for (const found of seqs) expect(found).toHaveLength(1)
    expect(peerMessages(log, 'M9-BODY')).toEqual([])
    expect((await rowsOf(admin, betaId)).map(row => [row.marker, row.state, row.seq])).toEqual([['M1', 'recorded', seqs[0]![0]], ['M2', 'recorded', seqs[1]![0]], ['M3', 'recorded', seqs[2]![0]]])
    expect(fake.requests.filter(r => r.reply !== undefined && 'text' in r.reply && r.reply.text === 'BETA-SAW-M2')).toHaveLength(1)
    // B's host said that the store could not be read (once per reason: the connection's end and the refused reconnects
    // may read differently, docs/architecture.md §8 "When the store fails"), and then that it could again.
    const saidB = readLog(started.b).map(line => line.text)
    const lost = saidB.flatMap((text, at) => /^the cross-session store could not be read: .*\(said once; every tick tries again\)$/.test(text) ? [at] : [])
    expect(lost.length, saidB.join('\n')).toBeGreaterThanOrEqual(1)
    expect(saidB.some(text => /^the cross-session store could not be read: .*the PostgreSQL server cannot be reached/.test(text))).toBe(true)
    expect(saidB.lastIndexOf('the cross-session store can be read again')).toBeGreaterThan(lost.at(-1)!)
  })
})
