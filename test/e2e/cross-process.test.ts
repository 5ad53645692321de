/**
 * End to end, several real `dsh` processes on one `DSH_HOME`
 * (docs/architecture.md §8): a `dsh web` host holding live sessions beside
 * headless `dsh` runs, coordinated through the home store
 * (`$DSH_HOME/cross-session/store.sqlite`).
 *
 * Every assertion reads what the harness really did: the tool results the
 * fake model received, the requests it was sent, the logs the harness
 * persisted under `$DSH_HOME/sessions`, and, where a test says what the
 * processes left behind, the store's rows (read-only, `support/store.ts`).
 * @module test/e2e/cross-process
 */
import { describe, expect, it } from 'vitest'
import { resultOf, startFakeModel, textOf } from './support/fake-model.ts'
import { homeFixture, makeHome, readSession, runDsh, runHeadless, SKIP_E2E, startWeb, transcript, waitFor, writePatch, type PersistedSession } from './support/harness.ts'
import { expectContiguous, idAt, onceEachInOrder, peerMessages } from './support/logs.ts'
import { heldTurnScenario, router, steps } from './support/scenario.ts'
import { holderOf, messagesFor, readStore, writeStore } from './support/store.ts'

/** The sender's bound in the tests that make it run out (`recordWaitMs`, docs/tools.md). */
const RECORD_WAIT_MS = 1500

/**
 * The message id the sender mints for one `sessions_send` call: its session
 * id, the model's call id, an argument digest (docs/tools.md "Retries").
 * The expectation for a stored message's id: derived from the sender's call,
 * not from the log the holder wrote with that same id.
 */
function mintedFor(senderId: string, callId: string): RegExp {
  const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`^cross-session:${literal(senderId)}:${literal(callId)}:[A-Za-z0-9_-]{16}$`)
}

describe.skipIf(SKIP_E2E)('several dsh processes on one home', () => {
  const fx = homeFixture()

  it('a headless sender sees a web session as live and delivers into it without waking it', async () => {
    fx.h = makeHome('xp-web')
    let alphaId = ''
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:A': turn => ({ text: turn.trigger.startsWith('Cross-session message') ? 'ALPHA-SAW-PEER' : 'ALPHA-READY' }),
        'ROLE:B': steps([
          { name: 'sessions_list', args: {} },
          () => ({ name: 'sessions_send', args: { session_id: alphaId, message: 'XP-BODY hello from another process' } }),
        ], 'B done'),
        'ROLE:C': steps([() => ({ name: 'sessions_read', args: { session_id: alphaId } })], 'C done'),
      }),
    })
    const patch = writePatch(fx.h)
    fx.web = await startWeb(fx.h, fx.model, { patch })
    alphaId = (await fx.web.create()).sessionId
    await fx.web.prompt(alphaId, 'ROLE:A stay around')
    await fx.web.waitIdle(alphaId)

    const bravo = await runHeadless(fx.h, fx.model, 'ROLE:B message your peer', { patch })
    // What the headless process left in the store when it exited: it let its own session go and
    // left the process table; the web host still holds A live and is the only process on the home.
    const store = readStore(fx.h)
    expect(store.holders.filter(row => row.pid !== null).map(row => [row.session_id, row.pid, row.state])).toEqual([[alphaId, fx.web.child.pid, 'live']])
    expect(store.holders.find(row => row.session_id === bravo.sessionId)).toMatchObject({ pid: null, state: 'free', let_go: 'exited' })
    expect(store.processes.map(row => [row.pid, row.long_lived])).toEqual([[fx.web.child.pid, 1]])
    const list = resultOf(fx.model, 'sessions_list')
    const row = list.split('\n').find(line => line.includes(alphaId))
    expect(row).toMatch(/\[live, top-level\]/)
    expect(row).toContain(`live in another dsh process (pid ${fx.web.child.pid})`)

    const send = resultOf(fx.model, 'sessions_send')
    expect(send).toMatch(new RegExp(`^accepted for ${alphaId} \\| mode=queue .*\\| live in another dsh process \\(pid ${fx.web.child.pid}\\); delivered through the mailbox \\| recorded at seq \\d+`))
    expect(send).not.toMatch(/woke/)

    // The web host's live session took it: its next model request holds the framed message.
    await fx.web.waitIdle(alphaId, { turns: 2 })
    const alphaRequests = fx.model.requests.filter(r => !r.isTitle && r.allUserText.includes('ROLE:A'))
    const framed = alphaRequests.at(-1)!.messages.map(textOf).find(text => text.startsWith('Cross-session message'))
    expect(framed).toContain(`from-session: ${bravo.sessionId}`)
    expect(framed).toContain('XP-BODY hello from another process')

    // One contiguous history, holding the message once, its seq as the send said.
    await fx.web.stop()
    const persisted = readSession(fx.h, alphaId)
    expectContiguous(persisted)
    const delivered = peerMessages(persisted, 'XP-BODY')
    expect(delivered).toHaveLength(1)
    expect(send).toContain(`recorded at seq ${delivered[0]!.seq}`)
    // The holder delivered it with the sender's recorded provenance (docs/tools.md "The frame"), as a local send would.
    expect(delivered[0]!.source).toEqual({ kind: 'plugin', plugin: 'dsh-cross-session', form: 'relay', senderSessionId: bravo.sessionId, hop: 1 })

    // A fresh process reads it (cold now that the web host stopped).
    await runHeadless(fx.h, fx.model, 'ROLE:C read the peer', { patch })
    const read = resultOf(fx.model, 'sessions_read')
    expect(read).toContain(`session ${alphaId} [cold, top-level]`)
    expect(read).toContain('XP-BODY hello from another process')
    expect(read).toContain('ALPHA-SAW-PEER')
    // The store agrees with the log: the one message it carried is recorded where the log holds it.
    expect(messagesFor(fx.h, alphaId).map(m => [m.sender, m.state, m.seq])).toEqual([[bravo.sessionId, 'recorded', delivered[0]!.seq]])
  })

  /**
   * A (in the web host) holds its first model answer until released, so it
   * is mid-turn when a headless B sends in `mode`; it is released only after
   * B's run ended, so B's bound (`RECORD_WAIT_MS`) runs out while A's turn
   * is still open.
   */
  async function sendWhileRunning(mode: 'steer' | 'queue') {
    fx.h = makeHome(`xp-${mode}`)
    let alphaId = ''
    const { scenario, held, release } = heldTurnScenario(mode, () => alphaId)
    fx.model = await startFakeModel({ scenario })
    const patch = writePatch(fx.h, { plugin: { recordWaitMs: RECORD_WAIT_MS } })
    fx.web = await startWeb(fx.h, fx.model, { patch })
    const webPid = fx.web.child.pid!
    alphaId = (await fx.web.create()).sessionId
    await fx.web.prompt(alphaId, 'ROLE:A a long job')
    await waitFor(held, 'A to be mid-turn')
    const bravo = await runHeadless(fx.h, fx.model, 'ROLE:B interrupt your peer', { patch })
    const send = resultOf(fx.model, 'sessions_send')
    const minted = mintedFor(bravo.sessionId, fx.model.toolResults('sessions_send')[0]!.callId)
    // Still mid-turn: the web host claimed the message and it is not in A's conversation yet.
    expect(messagesFor(fx.h, alphaId).map(m => [m.state, m.claimer_pid])).toEqual([['claimed', webPid]])
    release()
    await waitFor(() => fx.model!.requests.some(r => r.reply !== undefined && 'text' in r.reply && r.reply.text === 'ALPHA-SAW-PEER') || undefined, 'A to answer the peer message')
    await fx.web.waitIdle(alphaId)
    await fx.web.stop()
    const persisted = readSession(fx.h, alphaId)
    expectContiguous(persisted)
    return { send, persisted, alphaId, webPid, minted, stored: messagesFor(fx.h, alphaId) }
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
    const { send, persisted, alphaId, webPid, minted, stored } = await sendWhileRunning('steer')
    expect(send).toMatch(new RegExp(`^accepted for ${alphaId} \\| mode=steer .*\\| live in another dsh process \\(pid ${webPid}\\); delivered through the mailbox \\| claimed by that process, not yet recorded after ${RECORD_WAIT_MS} ms\n`))
    expect(send).not.toMatch(/woke/)
    const delivered = peerMessages(persisted, 'STEER-BODY')
    expect(delivered).toHaveLength(1)
    expect(turnsOf(persisted, 'STEER-BODY')).toEqual([1])
    expect(persisted.events.filter(e => e.type === 'turn/start')).toHaveLength(1)
    // The holder settled the message from the log once the turn took it: recorded at that very seq,
    // under the id the sender minted for its call, which is the id the log holds there.
    expect(stored.map(m => [m.state, m.seq, m.message_id])).toEqual([['recorded', delivered[0]!.seq, expect.stringMatching(minted)]])
    expect(idAt(persisted, delivered[0]!.seq)).toMatch(minted)
  })

  it('queue from another process into a busy session: claimed, not yet recorded, until the running turn ends; then it lands once, as the next turn', async () => {
    const { send, persisted, alphaId, webPid, minted, stored } = await sendWhileRunning('queue')
    // An inbox insertion does not count as recorded for a remote target: only its own user/message in the log does.
    expect(send).toMatch(new RegExp(`^accepted for ${alphaId} \\| mode=queue .*\\| live in another dsh process \\(pid ${webPid}\\); delivered through the mailbox \\| claimed by that process, not yet recorded after ${RECORD_WAIT_MS} ms\n`))
    expect(send).toContain('becomes its next turn')
    const delivered = peerMessages(persisted, 'QUEUE-BODY')
    expect(delivered).toHaveLength(1)
    const firstEnd = persisted.events.find(e => e.type === 'turn/end')!
    expect(delivered[0]!.seq).toBeGreaterThan(firstEnd.seq)
    expect(turnsOf(persisted, 'QUEUE-BODY')).toEqual([2])
    expect(stored.map(m => [m.state, m.seq, m.message_id])).toEqual([['recorded', delivered[0]!.seq, expect.stringMatching(minted)]])
    expect(idAt(persisted, delivered[0]!.seq)).toMatch(minted)
  })

  it('two headless senders racing to wake one cold session: one wake, each message recorded once', async () => {
    fx.h = makeHome('xp-race')
    let alphaId = ''
    // Hold both senders' first answers until both asked, so their sends race.
    let arrived = 0
    let bothHere!: () => void
    const barrier = new Promise<void>(r => { bothHere = r })
    const racer = (label: string) => steps([async () => {
      if (++arrived === 2) bothHere()
      await barrier
      return { name: 'sessions_send', args: { session_id: alphaId, message: `${label}-BODY racing` } }
    }], `${label} done`)
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:A': turn => ({ text: turn.trigger.startsWith('Cross-session message') ? 'ALPHA-SAW-PEER' : 'ALPHA-READY' }),
        'ROLE:R1': racer('R1'),
        'ROLE:R2': racer('R2'),
      }),
    })
    const patch = writePatch(fx.h)
    alphaId = (await runHeadless(fx.h, fx.model, 'ROLE:A be cold', { patch })).sessionId
    // Both at once (runHeadless finds "its" session by diffing the corpus, so the raw runner is used).
    // The second process starts once the first is past boot: rc.8's prepareProfile rewrites
    // profiles/<name>/cordis.yml with a plain writeFileSync on every boot (dsh lib/profile-boot-*.js),
    // so two boots in the same instant can read it half-written. The sends still race: the barrier
    // above holds the first sender's send until the second asks too.
    const run = (task: string) => runDsh(['--profile', 'headless', '--patch', patch, task], { h: fx.h!, model: fx.model!, timeoutMs: 90_000 })
    const first = run('ROLE:R1 message alpha')
    await waitFor(() => arrived >= 1 || undefined, 'the first sender to reach its model')
    const runs = await Promise.all([first, run('ROLE:R2 message alpha')])
    for (const run of runs) expect(run.code, run.stderr).toBe(0)
    const sends = fx.model.toolResults('sessions_send').map(r => r.content)
    expect(sends).toHaveLength(2)
    const woke = sends.filter(text => text.includes('(woke a cold session)'))
    expect(woke).toHaveLength(1)
    // The winner is a headless run: its send returned once the turn it woke had answered its message.
    expect(woke[0]).toMatch(/\(woke a cold session\) \| recorded at seq \d+ \| its turn ended \(completed\) at seq \d+\n/)
    // The other went through the winner's mailbox; or, when the winner's run ended before its holder took it (a loaded
    // machine), the other's process woke the session again after the winner let it go and delivered it itself: one
    // wake at a time either way, and each message once in the log (below).
    const other = sends.find(text => !text.includes('(woke a cold session)'))!
    expect(other).toMatch(new RegExp('live in another dsh process \\(pid \\d+\\); delivered through the mailbox \\| (recorded at seq \\d+|claimed by that process, '
      + 'not yet recorded after \\d+ ms)|held by the dsh process pid \\d+, which let it go; woken in this process and delivered through the mailbox \\| '
      + 'recorded at seq \\d+'))
    const persisted = readSession(fx.h, alphaId)
    expectContiguous(persisted)
    expect(peerMessages(persisted, 'R1-BODY')).toHaveLength(1)
    expect(peerMessages(persisted, 'R2-BODY')).toHaveLength(1)
  })

  it('a message pending for a SIGKILLed holder is delivered once on the next wake, before newer ones; a holder row naming a dead or reused pid is ignored', async () => {
    fx.h = makeHome('xp-kill')
    let alphaId = ''
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:A': turn => ({ text: turn.trigger.startsWith('Cross-session message') ? 'ALPHA-SAW-PEER' : 'ALPHA-READY' }),
        'ROLE:B': steps([() => ({ name: 'sessions_send', args: { session_id: alphaId, message: 'PENDING-BODY sent while the owner froze' } })], 'B done'),
        'ROLE:C': steps([
          { name: 'sessions_list', args: {} },
          () => ({ name: 'sessions_send', args: { session_id: alphaId, message: 'NEWER-BODY sent after the owner died' } }),
        ], 'C done'),
      }),
    })
    const patch = writePatch(fx.h, { plugin: { recordWaitMs: RECORD_WAIT_MS } })
    fx.web = await startWeb(fx.h, fx.model, { patch })
    alphaId = (await fx.web.create()).sessionId
    await fx.web.prompt(alphaId, 'ROLE:A stay around')
    await fx.web.waitIdle(alphaId)
    const ownerPid = fx.web.child.pid!
    // Freeze the owner: it is alive (its holder row counts) but cannot claim.
    process.kill(ownerPid, 'SIGSTOP')
    let bravoId = ''
    try {
      bravoId = (await runHeadless(fx.h, fx.model, 'ROLE:B message the frozen peer', { patch })).sessionId
    } finally {
      process.kill(ownerPid, 'SIGKILL')
      process.kill(ownerPid, 'SIGCONT')
    }
    await waitFor(() => fx.web!.child.exitCode !== null || fx.web!.child.signalCode !== null, 'the owner to die')
    const pending = resultOf(fx.model, 'sessions_send')
    expect(pending).toMatch(new RegExp(`live in another dsh process \\(pid ${ownerPid}\\); delivered through the mailbox \\| still pending in the mailbox after ${RECORD_WAIT_MS} ms`))
    // The dead owner's row still names it (it died holding A); the message was never claimed.
    expect(holderOf(fx.h, alphaId)).toMatchObject({ pid: ownerPid, state: 'live' })
    expect(messagesFor(fx.h, alphaId).map(m => [m.state, m.claimer_pid])).toEqual([['pending', null]])
    // Make the row name a living pid (this test runner) with another start time: a reused pid.
    expect(writeStore(fx.h, 'UPDATE holders SET pid = ?, start = 1 WHERE session_id = ?', process.pid, alphaId)).toBe(1)

    // C (default bounds) wakes A; its own message goes in behind the pending one, and C waits for A's answer.
    await runHeadless(fx.h, fx.model, 'ROLE:C message the peer again', { patch: writePatch(fx.h, {}, 'c.patch.yml') })
    const list = resultOf(fx.model, 'sessions_list')
    expect(list.split('\n').find(line => line.includes(alphaId))).toMatch(/\[cold, top-level\]/)
    const woke = resultOf(fx.model, 'sessions_send', 1)
    const said = new RegExp(`^accepted for ${alphaId} .*\\(woke a cold session\\) \\| recorded at seq (\\d+) \\| its turn ended \\(completed\\) at seq (\\d+)\n`).exec(woke)
    expect(said, woke).not.toBeNull()
    const persisted = readSession(fx.h, alphaId)
    expectContiguous(persisted)
    const [older, newer] = onceEachInOrder(persisted, 'PENDING-BODY', 'NEWER-BODY') as [number, number]
    expect(newer).toBe(Number(said![1]))
    // The turn C waited for is in the log: A answered, then that turn ended completed.
    const ended = Number(said![2])
    expect(persisted.events.find(e => e.seq === ended)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'completed' } } })
    expect(transcript(persisted).some(m => m.role === 'assistant' && m.text === 'ALPHA-SAW-PEER' && m.seq > newer && m.seq < ended)).toBe(true)
    // Each message has its row, recorded where the log holds it, in posting order: the pending one under the id B
    // minted for its call; C's own, admitted in C's process after it woke A, under its id (a local admission is
    // posted to the store too, so it survives that process's death: docs/architecture.md §8).
    const mintedByB = mintedFor(bravoId, fx.model.toolResults('sessions_send')[0]!.callId)
    expect(messagesFor(fx.h, alphaId).map(m => [m.state, m.seq, m.message_id])).toEqual([
      ['recorded', older, expect.stringMatching(mintedByB)],
      ['recorded', newer, idAt(persisted, newer)],
    ])
    expect(idAt(persisted, older)).toMatch(mintedByB)
    fx.web = undefined
  })

  it('a session mid-turn in a process without this package is not woken (recent open turn)', async () => {
    fx.h = makeHome('xp-open-turn')
    let release!: () => void
    const gate = new Promise<void>(r => { release = r })
    let alphaHeld = false
    let alphaId = ''
    fx.model = await startFakeModel({
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
    fx.web = await startWeb(fx.h, fx.model, { patch: writePatch(fx.h, { plugin: false }, 'bare.patch.yml') })
    alphaId = (await fx.web.create()).sessionId
    await fx.web.prompt(alphaId, 'ROLE:A a long job')
    await waitFor(() => alphaHeld, 'A to be mid-turn')
    await waitFor(() => readSession(fx.h!, alphaId).events.some(e => e.type === 'turn/start') || undefined, 'A\'s open turn to be persisted')
    await runHeadless(fx.h, fx.model, 'ROLE:B message the busy peer', { patch: writePatch(fx.h) })
    const send = resultOf(fx.model, 'sessions_send')
    expect(send).toMatch(/^refused: rejected/)
    expect(send).toContain('its log ends in a turn that is still open')
    expect(send).toContain('install dsh-cross-session in every dsh profile')
    release()
    await fx.web.waitIdle(alphaId)
    await fx.web.stop()
    const persisted = readSession(fx.h, alphaId)
    expectContiguous(persisted)
    expect(JSON.stringify(persisted.events)).not.toContain('OPEN-TURN-BODY')
  })
})
