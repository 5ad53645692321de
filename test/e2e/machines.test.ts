/**
 * End to end, two machines on one PostgreSQL server (docs/architecture.md
 * §8 "Several machines"): two `DSH_HOME`s stand for machine A (a laptop)
 * and machine B (a server), each with the `store` setting naming one
 * database of the throwaway server the tests start
 * (`test/support/pg-global.ts`), and its own `machine` name. Real `dsh`
 * processes on each: a `dsh web` host on B holding a live session, headless
 * runs on A.
 *
 * Every assertion reads what the harness really did: the tool results the
 * scripted model received, and the rows of the shared database.
 * @module test/e2e/machines
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { resultOf, startFakeModel } from './support/fake-model.ts'
import { homeFixture, makeHome, readLog, runHeadless, SKIP_E2E, startWeb, waitFor, writePatch, type DshHome } from './support/harness.ts'
import { router, steps } from './support/scenario.ts'
import { pgUrl, testDatabase } from '../support/pg-target.ts'

const url = SKIP_E2E ? undefined : pgUrl()

describe.skipIf(SKIP_E2E || url === undefined)('two machines on one PostgreSQL server', () => {
  const fx = homeFixture()
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  /** A database of this test's own, and an admin pool on it. */
  async function database(): Promise<{ url: string, admin: pg.Pool }> {
    const made = await testDatabase(url!, 'xs_machines')
    cleanups.push(made.drop)
    return made
  }

  /** Whether machine `name` has published `sessionId` (its row in the directory). */
  async function published(admin: pg.Pool, sessionId: string): Promise<boolean> {
    const rows = await admin.query('SELECT 1 FROM dsh_cross_session.directory WHERE session_id = $1', [sessionId]).catch(() => ({ rows: [] }))
    return rows.rows.length === 1
  }

  it('A lists B\'s sessions with their machine, and reads a B session (window and after_seq) through B\'s host', async () => {
    const db = await database()
    let betaId = ''
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:BETA': turn => ({ text: turn.trigger.includes('second') ? 'BETA-SECOND-ANSWER' : 'BETA-FIRST-ANSWER' }),
        'ROLE:ALPHA': steps([
          { name: 'sessions_list', args: {} },
          () => ({ name: 'sessions_read', args: { session_id: betaId } }),
          () => ({ name: 'sessions_read', args: { session_id: betaId, after_seq: 1 } }),
        ], 'ALPHA done'),
      }),
    })
    const b: DshHome = makeHome('machine-b')
    fx.h = b
    // B as a user sets it up (README "Several machines"): the section in settings.yaml, read after the first activation
    // at boot, so the activation starts again on the store it names.
    writeFileSync(join(b.home, 'settings.yaml'), `cross-session:\n  store: ${db.url}\n  machine: server-b\n`)
    const patchB = writePatch(b)
    fx.web = await startWeb(b, fx.model, { patch: patchB })
    betaId = (await fx.web.create()).sessionId
    await fx.web.prompt(betaId, 'ROLE:BETA first words')
    await fx.web.waitIdle(betaId)
    await fx.web.prompt(betaId, 'ROLE:BETA second words')
    await fx.web.waitIdle(betaId, { turns: 2 })
    await waitFor(async () => await published(db.admin, betaId), 'B publishes its session')
    const password = new URL(db.url).password
    const logB = readLog(b).map(line => line.text)
    expect(logB.some(line => line.startsWith('the cross-session store is the PostgreSQL server at postgres://') && line.includes(':***@'))).toBe(true)
    expect(password.length).toBeGreaterThan(0)
    expect(logB.some(line => line.includes(password))).toBe(false)

    const a = makeHome('machine-a')
    cleanups.push(async () => a.cleanup())
    const patchA = writePatch(a, { plugin: { store: db.url, machine: 'laptop-a' } })
    const alpha = await runHeadless(a, fx.model, 'ROLE:ALPHA look at the other machine', { patch: patchA })
    expect(alpha.code).toBe(0)

    const list = resultOf(fx.model, 'sessions_list')
    const row = list.split('\n').find(line => line.includes(betaId))
    expect(row).toBeDefined()
    expect(row).toMatch(/\[live, top-level\]/)
    expect(row).toContain('| machine=server-b')
    expect(row).not.toContain('not reachable')
    // A's own session is listed without a machine: it is this machine's.
    expect(list.split('\n').find(line => line.includes(alpha.sessionId))).not.toContain('machine=')

    const read = resultOf(fx.model, 'sessions_read')
    expect(read.split('\n')[0]).toMatch(new RegExp(`^session ${betaId} \\[live, top-level\\].*\\| machine=server-b`))
    expect(read).toContain('BETA-FIRST-ANSWER')
    expect(read).toContain('BETA-SECOND-ANSWER')
    const after = resultOf(fx.model, 'sessions_read', 1)
    expect(after).toContain('BETA-SECOND-ANSWER')
    expect(after).not.toMatch(/seq 1,/)

    // B's host stopped: A still lists B's session, now as not reachable, and a read of it is refused readably.
    await fx.web.stop()
    const again = await runHeadless(a, fx.model, 'ROLE:ALPHA look at the other machine', { patch: patchA })
    expect(again.code).toBe(0)
    const listed = resultOf(fx.model, 'sessions_list', 1).split('\n').find(line => line.includes(betaId))
    expect(listed).toContain('| machine=server-b (not reachable now)')
    const refused = resultOf(fx.model, 'sessions_read', 2)
    expect(refused).toMatch(/^refused: rejected \| /)
    expect(refused).toContain('machine/unreachable: no dsh process of the session\'s machine is running now')
  })

  it('A sends to a cold B session with notify: B\'s host wakes it, it answers once, A\'s sender gets one notice', async () => {
    const db = await database()
    let betaId = ''
    const NOTICE = 'Cross-session notice from the dsh-cross-session package'
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:BETA': turn => ({ text: turn.trigger.startsWith('Cross-session message') ? 'BETA-GOT-IT' : 'BETA-READY' }),
        'ROLE:SENDER': turn => turn.trigger.startsWith(NOTICE) ? { text: 'SENDER-GOT-NOTICE' }
          : turn.trigger.includes('ask the server') ? steps([() => ({ name: 'sessions_send',
            args: { session_id: betaId, message: 'XM-BODY from the laptop', notify: true } })], 'SENDER sent')(turn)
            : { text: 'SENDER-BACK' },
      }),
    })
    const b = makeHome('machine-b')
    cleanups.push(async () => b.cleanup())
    const patchB = writePatch(b, { plugin: { store: db.url, machine: 'server-b' } })
    // A cold session on B: made by a headless run that ended; B's long-lived host is up.
    betaId = (await runHeadless(b, fx.model, 'ROLE:BETA be cold', { patch: patchB })).sessionId
    const webB = await startWeb(b, fx.model, { patch: patchB })
    cleanups.push(async () => await webB.stop())
    await waitFor(async () => await published(db.admin, betaId), 'B publishes its cold session')

    const a = makeHome('machine-a')
    fx.h = a
    const patchA = writePatch(a, { plugin: { store: db.url, machine: 'laptop-a' } })
    fx.web = await startWeb(a, fx.model, { patch: patchA })
    const senderId = (await fx.web.create()).sessionId
    await fx.web.prompt(senderId, 'ROLE:SENDER ask the server')
    await fx.web.waitIdle(senderId, { turns: 2, timeoutMs: 90_000 })
    const send = resultOf(fx.model, 'sessions_send')
    expect(send).toMatch(new RegExp(`^accepted for ${betaId} .*\\| cold on machine server-b; posted to the shared store for a dsh host there to wake it \\| recorded at seq \\d+`))
    // B's session took the message once, and answered it.
    const betaAsked = fx.model.requests.filter(r => !r.isTitle && r.allUserText.includes('ROLE:BETA') && r.allUserText.includes('XM-BODY'))
    expect(betaAsked.length).toBeGreaterThanOrEqual(1)
    const messages = await db.admin.query('SELECT target, state, for_machine IS NOT NULL AS routed, notice FROM dsh_cross_session.messages ORDER BY n')
    expect(messages.rows.filter(row => row.target === betaId).map(row => row.state)).toEqual(['recorded'])
    // One notice came back across machines to the sender, and its model saw it.
    await waitFor(() => fx.model!.requests.some(r => !r.isTitle && r.lastUserText.startsWith(NOTICE) && r.allUserText.includes('ROLE:SENDER'))
      || undefined, 'the notice to reach the sender on A')
    const notices = (await db.admin.query('SELECT target, state FROM dsh_cross_session.messages WHERE notice IS NOT NULL')).rows
    expect(notices).toEqual([{ target: senderId, state: 'recorded' }])
  })
})
