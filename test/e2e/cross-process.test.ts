/**
 * End to end, several real `dsh` processes on one `DSH_HOME` (issue 8): a
 * `dsh web` host holding live sessions beside headless `dsh` runs.
 *
 * Every assertion reads what the harness really did: the tool results the
 * fake model received, the requests it was sent, and the logs the harness
 * persisted under `$DSH_HOME/sessions`.
 * @module test/e2e/cross-process
 */
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { resultOf, startFakeModel, textOf, type FakeModel } from './support/fake-model.ts'
import { assertPrerequisites, makeHome, readSession, runDsh, runHeadless, SKIP_E2E, startWeb, tearDown, transcript, waitFor, writePatch, type DshHome, type PersistedSession, type WebHarness } from './support/harness.ts'
import { heldTurnScenario, router, steps } from './support/scenario.ts'

/** The seqs of a log are exactly 0…n-1 (one contiguous history, no fork). */
function expectContiguous(session: PersistedSession): void {
  expect(session.events.map(event => event.seq)).toEqual(session.events.map((_, index) => index))
}

/** Framed peer messages (by body marker) in a persisted log. */
function peerMessages(session: PersistedSession, marker: string): Array<{ seq: number, text: string, source: any }> {
  return transcript(session).filter(m => m.role === 'user' && m.text.startsWith('Cross-session message') && m.text.includes(marker))
}

describe.skipIf(SKIP_E2E)('several dsh processes on one home', () => {
  beforeAll(assertPrerequisites)
  let h: DshHome | undefined
  let model: FakeModel | undefined
  let web: WebHarness | undefined
  afterEach(async () => {
    await tearDown({ web, model, h })
    web = model = h = undefined
  })

  it('a headless sender sees a web session as live and delivers into it without waking it', async () => {
    h = makeHome('xp-web')
    let alphaId = ''
    model = await startFakeModel({
      scenario: router({
        'ROLE:A': turn => ({ text: turn.trigger.startsWith('Cross-session message') ? 'ALPHA-SAW-PEER' : 'ALPHA-READY' }),
        'ROLE:B': steps([
          { name: 'sessions_list', args: {} },
          () => ({ name: 'sessions_send', args: { session_id: alphaId, message: 'XP-BODY hello from another process' } }),
        ], 'B done'),
        'ROLE:C': steps([() => ({ name: 'sessions_read', args: { session_id: alphaId } })], 'C done'),
      }),
    })
    const patch = writePatch(h)
    web = await startWeb(h, model, { patch })
    alphaId = (await web.create()).sessionId
    await web.prompt(alphaId, 'ROLE:A stay around')
    await web.waitIdle(alphaId)

    const bravo = await runHeadless(h, model, 'ROLE:B message your peer', { patch })
    // The headless process withdrew its own session's presence when it exited; the web host's stays.
    expect(readdirSync(join(h.home, 'cross-session', 'presence'))).toEqual([expect.stringMatching(new RegExp(`^${alphaId}@${web.child.pid}\\.\\d+$`))])
    const list = resultOf(model, 'sessions_list')
    const row = list.split('\n').find(line => line.includes(alphaId))
    expect(row).toMatch(/\[live, top-level\]/)
    expect(row).toMatch(/live in another dsh process \(pid \d+\)/)
    expect(row).toContain(`pid ${web.child.pid}`)

    const send = resultOf(model, 'sessions_send')
    expect(send).toMatch(new RegExp(`^accepted for ${alphaId} \\| mode=queue .*\\| live in another dsh process \\(pid ${web.child.pid}\\); delivered through the mailbox \\| recorded at seq \\d+`))
    expect(send).not.toMatch(/woke/)

    // The web host's live session took it: its next model request holds the framed message.
    await web.waitIdle(alphaId, { turns: 2 })
    const alphaRequests = model.requests.filter(r => !r.isTitle && r.allUserText.includes('ROLE:A'))
    const framed = alphaRequests.at(-1)!.messages.map(textOf).find(text => text.startsWith('Cross-session message'))
    expect(framed).toContain(`from-session: ${bravo.sessionId}`)
    expect(framed).toContain('XP-BODY hello from another process')

    // One contiguous history, holding the message once, its seq as the send said.
    await web.stop()
    const persisted = readSession(h, alphaId)
    expectContiguous(persisted)
    const delivered = peerMessages(persisted, 'XP-BODY')
    expect(delivered).toHaveLength(1)
    expect(send).toContain(`recorded at seq ${delivered[0]!.seq}`)
    // The owner delivered it with the sender's recorded provenance (issue 11 §5), as a local send would.
    expect(delivered[0]!.source).toEqual({ kind: 'plugin', plugin: 'dsh-cross-session', form: 'relay', senderSessionId: bravo.sessionId, hop: 1 })

    // A fresh process reads it (cold now that the web host stopped).
    await runHeadless(h, model, 'ROLE:C read the peer', { patch })
    const read = resultOf(model, 'sessions_read')
    expect(read).toContain(`session ${alphaId} [cold, top-level]`)
    expect(read).toContain('XP-BODY hello from another process')
    expect(read).toContain('ALPHA-SAW-PEER')
    // Nothing left in the mailbox.
    const mailbox = join(h.home, 'cross-session', 'mailbox')
    expect(readdirSync(mailbox).filter(name => !name.startsWith('.'))).toEqual([])
  })

  /**
   * A (in the web host) holds its first model answer until released, so it
   * is mid-turn when a headless B sends in `mode`.
   */
  async function sendWhileRunning(mode: 'steer' | 'queue') {
    h = makeHome(`xp-${mode}`)
    let alphaId = ''
    const { scenario, held, release } = heldTurnScenario(mode, () => alphaId)
    model = await startFakeModel({ scenario })
    const patch = writePatch(h, { plugin: { recordWaitMs: 1500 } })
    web = await startWeb(h, model, { patch })
    alphaId = (await web.create()).sessionId
    await web.prompt(alphaId, 'ROLE:A a long job')
    await waitFor(held, 'A to be mid-turn')
    await runHeadless(h, model, 'ROLE:B interrupt your peer', { patch })
    const send = resultOf(model, 'sessions_send')
    release()
    await waitFor(() => model!.requests.some(r => r.reply !== undefined && 'text' in r.reply && r.reply.text === 'ALPHA-SAW-PEER') || undefined, 'A to answer the peer message')
    await web.waitIdle(alphaId)
    await web.stop()
    const persisted = readSession(h, alphaId)
    expectContiguous(persisted)
    return { send, persisted, alphaId }
  }

  /** Turn number each framed message landed in. */
  function turnsOf(session: PersistedSession, marker: string): number[] {
    let turn = 0
    const turns: number[] = []
    for (const event of session.events) {
      if (event.type === 'turn/start') turn = event.data.turn
      if (event.type === 'user/message' && JSON.stringify(event.data).includes(marker)) turns.push(turn)
    }
    return turns
  }

  it('steer from another process reaches the turn the target is running', async () => {
    const { send, persisted, alphaId } = await sendWhileRunning('steer')
    expect(send).toMatch(new RegExp(`^accepted for ${alphaId} \\| mode=steer .*delivered through the mailbox \\| (claimed by that process, not yet recorded|recorded at seq)`))
    expect(send).not.toMatch(/woke/)
    expect(peerMessages(persisted, 'STEER-BODY')).toHaveLength(1)
    expect(turnsOf(persisted, 'STEER-BODY')).toEqual([1])
    expect(persisted.events.filter(e => e.type === 'turn/start')).toHaveLength(1)
  })

  it('queue from another process becomes the target\'s next turn', async () => {
    const { send, persisted, alphaId } = await sendWhileRunning('queue')
    expect(send).toMatch(new RegExp(`^accepted for ${alphaId} \\| mode=queue .*delivered through the mailbox \\| in its inbox at seq \\d+`))
    expect(send).toContain('becomes its next turn after the current one ends')
    expect(peerMessages(persisted, 'QUEUE-BODY')).toHaveLength(1)
    expect(turnsOf(persisted, 'QUEUE-BODY')).toEqual([2])
  })

  it('two headless senders racing to wake one cold session: one wake, each message recorded once', async () => {
    h = makeHome('xp-race')
    let alphaId = ''
    // Hold both senders' first answers until both asked, so their sends race.
    let arrived = 0
    let bothHere!: () => void
    const barrier = new Promise<void>(r => { bothHere = r })
    const racer = (label: string) => steps([async () => {
      if (++arrived === 2) bothHere()
      await barrier
      return { name: 'sessions_send', args: { session_id: alphaId, message: `${label}-BODY racing` } }
    }], () => ({ text: `${label} done`, delayMs: 4000 }))
    model = await startFakeModel({
      scenario: router({
        'ROLE:A': turn => ({ text: turn.trigger.startsWith('Cross-session message') ? 'ALPHA-SAW-PEER' : 'ALPHA-READY' }),
        'ROLE:R1': racer('R1'),
        'ROLE:R2': racer('R2'),
      }),
    })
    const patch = writePatch(h)
    alphaId = (await runHeadless(h, model, 'ROLE:A be cold', { patch })).sessionId
    // Both at once (runHeadless finds "its" session by diffing the corpus, so the raw runner is used).
    // The second process starts once the first is past boot: rc.8's prepareProfile rewrites
    // profiles/<name>/cordis.yml with a plain writeFileSync on every boot (dsh lib/profile-boot-*.js),
    // so two boots in the same instant can read it half-written. The sends still race: the barrier
    // above holds the first sender's send until the second asks too.
    const run = (task: string) => runDsh(['--profile', 'headless', '--patch', patch, task], { h: h!, model: model!, timeoutMs: 90_000 })
    const first = run('ROLE:R1 message alpha')
    await waitFor(() => arrived >= 1 || undefined, 'the first sender to reach its model')
    const runs = await Promise.all([first, run('ROLE:R2 message alpha')])
    for (const run of runs) expect(run.code, run.stderr).toBe(0)
    const sends = model.toolResults('sessions_send').map(r => r.content)
    expect(sends).toHaveLength(2)
    expect(sends.filter(text => text.includes('(woke a cold session)'))).toHaveLength(1)
    const other = sends.find(text => !text.includes('(woke a cold session)'))!
    expect(other).toMatch(/live in another dsh process \(pid \d+\); delivered through the mailbox \| (recorded at seq|in its inbox at seq|claimed by that process)/)
    const persisted = readSession(h, alphaId)
    expectContiguous(persisted)
    expect(peerMessages(persisted, 'R1-BODY')).toHaveLength(1)
    expect(peerMessages(persisted, 'R2-BODY')).toHaveLength(1)
  })

  it('a message pending for a SIGKILLed owner is delivered once on the next wake, before newer ones; its stale presence is ignored', async () => {
    h = makeHome('xp-kill')
    let alphaId = ''
    model = await startFakeModel({
      scenario: router({
        'ROLE:A': turn => ({ text: turn.trigger.startsWith('Cross-session message') ? 'ALPHA-SAW-PEER' : 'ALPHA-READY' }),
        'ROLE:B': steps([() => ({ name: 'sessions_send', args: { session_id: alphaId, message: 'PENDING-BODY sent while the owner froze' } })], 'B done'),
        'ROLE:C': steps([
          { name: 'sessions_list', args: {} },
          () => ({ name: 'sessions_send', args: { session_id: alphaId, message: 'NEWER-BODY sent after the owner died' } }),
        ], () => ({ text: 'C done', delayMs: 3000 })),
      }),
    })
    const patch = writePatch(h, { plugin: { recordWaitMs: 1500 } })
    web = await startWeb(h, model, { patch })
    alphaId = (await web.create()).sessionId
    await web.prompt(alphaId, 'ROLE:A stay around')
    await web.waitIdle(alphaId)
    const ownerPid = web.child.pid!
    // Freeze the owner: it is alive (presence holds) but cannot claim.
    process.kill(ownerPid, 'SIGSTOP')
    try {
      await runHeadless(h, model, 'ROLE:B message the frozen peer', { patch })
    } finally {
      process.kill(ownerPid, 'SIGKILL')
      process.kill(ownerPid, 'SIGCONT')
    }
    await waitFor(() => web!.child.exitCode !== null || web!.child.signalCode !== null, 'the owner to die')
    const pending = resultOf(model, 'sessions_send')
    expect(pending).toMatch(new RegExp(`live in another dsh process \\(pid ${ownerPid}\\); delivered through the mailbox \\| still pending in the mailbox after 1500 ms`))
    const presence = join(h.home, 'cross-session', 'presence')
    expect(readdirSync(presence)).toContain(`${alphaId}@${ownerPid}.${readdirSync(presence).find(n => n.startsWith(`${alphaId}@${ownerPid}.`))!.split('.').at(-1)}`)
    // A second stale entry: a living pid (this test runner) with a wrong start time, i.e. a reused pid.
    writeFileSync(join(presence, `${alphaId}@${process.pid}.1`), '')

    // C waits the default recordWaitMs: its own message is queued behind the pending one.
    await runHeadless(h, model, 'ROLE:C message the peer again', { patch: writePatch(h, {}, 'c.patch.yml') })
    const list = resultOf(model, 'sessions_list')
    expect(list.split('\n').find(line => line.includes(alphaId))).toMatch(/\[cold, top-level\]/)
    const woke = resultOf(model, 'sessions_send', 1)
    expect(woke).toMatch(new RegExp(`^accepted for ${alphaId} .*\\(woke a cold session\\)`))
    const persisted = readSession(h, alphaId)
    expectContiguous(persisted)
    const older = peerMessages(persisted, 'PENDING-BODY')
    const newer = peerMessages(persisted, 'NEWER-BODY')
    expect(older).toHaveLength(1)
    expect(newer).toHaveLength(1)
    expect(older[0]!.seq).toBeLessThan(newer[0]!.seq)
    expect(readdirSync(join(h.home, 'cross-session', 'mailbox')).filter(name => !name.startsWith('.'))).toEqual([])
    web = undefined
  })

  it('a session mid-turn in a process without this package is not woken (recent open turn)', async () => {
    h = makeHome('xp-open-turn')
    let release!: () => void
    const gate = new Promise<void>(r => { release = r })
    let alphaHeld = false
    let alphaId = ''
    model = await startFakeModel({
      scenario: router({
        'ROLE:A': async () => {
          alphaHeld = true
          await gate
          return { text: 'ALPHA-ANSWER' }
        },
        'ROLE:B': steps([() => ({ name: 'sessions_send', args: { session_id: alphaId, message: 'OPEN-TURN-BODY' } })], 'B done'),
      }),
    })
    // The web host runs without the plugin: it publishes nothing.
    web = await startWeb(h, model, { patch: writePatch(h, { plugin: false }, 'bare.patch.yml') })
    alphaId = (await web.create()).sessionId
    await web.prompt(alphaId, 'ROLE:A a long job')
    await waitFor(() => alphaHeld, 'A to be mid-turn')
    await waitFor(() => readSession(h!, alphaId).events.some(e => e.type === 'turn/start') || undefined, 'A\'s open turn to be persisted')
    await runHeadless(h, model, 'ROLE:B message the busy peer', { patch: writePatch(h) })
    const send = resultOf(model, 'sessions_send')
    expect(send).toMatch(/^refused: rejected/)
    expect(send).toContain('its log ends in a turn that is still open')
    expect(send).toContain('install dsh-cross-session in every dsh profile')
    release()
    await web.waitIdle(alphaId)
    await web.stop()
    const persisted = readSession(h, alphaId)
    expectContiguous(persisted)
    expect(JSON.stringify(persisted.events)).not.toContain('OPEN-TURN-BODY')
  })
})
