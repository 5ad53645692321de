/**
 * End to end, faults around the home store (docs/architecture.md §8): real
 * `dsh` processes on one `DSH_HOME`, some of them SIGKILLed at the worst
 * moment, and what every sender was told checked against what the target's
 * persisted log holds afterwards.
 *
 * - A short-lived (headless) sender that wakes a cold session waits for
 *   that session's answer (`answerWaitMs`, docs/tools.md) so its own exit
 *   does not cut the answer off; when its wait runs out first, the next
 *   wake offers the cut-off message again by name. With a `dsh web` host of
 *   the package on the home it hands the wake to that host instead, and
 *   takes it back (and waits for the answer) when that host lets it wait.
 * - Five processes message one cold session while the process that woke it
 *   is SIGKILLed mid-answer: every accepted message is in the log once.
 * - A holder SIGKILLed after it claimed a `steer` or a `queue` (the message
 *   is in the dead holder's inbox, not in the conversation): the next wake
 *   delivers it exactly once.
 *
 * Each test boots its own processes on a fresh home, bounds every wait, and
 * kills only the processes it started.
 * @module test/e2e/store-faults
 */
import type { ChildProcess } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { resultOf, startFakeModel, textOf, type FakeModel } from './support/fake-model.ts'
import {
  homeFixture, historyEvents, makeHome, readSession, readSessions, runDsh, runHeadless, SKIP_E2E, sleep, startWeb, transcript, waitFor, writePatch, type DshHome, type PersistedSession, type RunResult, type SessionEvent,
} from './support/harness.ts'
import { expectContiguous, idAt, peerMessages, turnEnds } from './support/logs.ts'
import { firstUserText, router, steps, type ActorScript, type StepSpec, type Turn } from './support/scenario.ts'
import { holderOf, messagesFor } from './support/store.ts'

/** How long the target's model takes to answer a peer message, ms: longer than a headless run needs to exit. */
const ANSWER_DELAY_MS = 2000
/** The senders' bound where a test lets it run out (`recordWaitMs`, docs/tools.md). */
const RECORD_WAIT_MS = 1500

/** Body markers (`S1-BODY`, …) in a text. */
function bodiesIn(text: string): string[] {
  return text.match(/\b[A-Z][A-Z0-9]*-BODY\b/g) ?? []
}

/** One `sessions_send` of `body` to the session `target()` names. */
function sendTo(target: () => string, body: string, mode: 'queue' | 'steer' = 'queue') {
  return () => ({ name: 'sessions_send', args: { session_id: target(), message: `${body} from a peer`, mode } })
}

/** Whether `events` hold `body` as a user message followed by an assistant answer naming it and a completed turn end. */
function answered(events: readonly SessionEvent[], body: string): { asked: number, answer: number, ended: number } | undefined {
  const lines = transcript({ events: [...events] })
  const asked = lines.find(line => line.role === 'user' && line.text.includes(body))
  const answer = asked === undefined ? undefined : lines.find(line => line.role === 'assistant' && line.seq > asked.seq && line.text.includes(body))
  const ended = answer === undefined ? undefined : turnEnds(events).find(end => end.seq > answer.seq)
  return asked === undefined || answer === undefined || ended?.reason !== 'completed' ? undefined : { asked: asked.seq, answer: answer.seq, ended: ended.seq }
}

describe.skipIf(SKIP_E2E)('faults around the home store', () => {
  const fx = homeFixture()
  /** Headless children still running (killed by pid in `afterEach`). */
  const children = new Set<ChildProcess>()
  afterEach(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    children.clear()
  })

  /** Start one headless run without waiting for it; its child is known to `afterEach`. */
  function startHeadless(patch: string, task: string): { done: Promise<RunResult>, child: () => ChildProcess | undefined } {
    let started: ChildProcess | undefined
    const done = runDsh(['--profile', 'headless', '--patch', patch, task], { h: fx.h!, model: fx.model!, timeoutMs: 150_000, onSpawn: child => { started = child; children.add(child) } })
    return { done, child: () => started }
  }

  /** Whether the model got a request from the session whose first message holds `role`. */
  function reached(role: string): boolean {
    return fx.model!.requests.some(request => !request.isTitle && firstUserText(request).includes(role))
  }

  /**
   * T's script: a turn with peer messages (those since its last answer) is
   * answered after {@link ANSWER_DELAY_MS}, naming their bodies; anything
   * else gets a short answer.
   */
  function answering(turn: Turn) {
    const { messages } = turn.request
    const since = messages.map(message => message.role).lastIndexOf('assistant')
    const bodies = messages.slice(since + 1).filter(message => message.role === 'user').flatMap(message => bodiesIn(textOf(message)))
    return bodies.length === 0 ? { text: 'T resting' } : { text: `T-ANSWER ${bodies.join(' ')}`, delayMs: ANSWER_DELAY_MS }
  }

  /**
   * The start the store-fault tests below share: a home `label`; a model on
   * which T answers (`answering`), S1 messages T `S1-BODY` and, when
   * `s2Steps` is given, S2 takes those steps and then messages T `S2-BODY`;
   * and T run once headless, so that it is a cold session. Returns the home,
   * the model, the patch and T's session id.
   */
  async function coldTarget(label: string, s2Steps?: StepSpec[]): Promise<{ h: DshHome, model: FakeModel, patch: string, targetId: string }> {
    const h = fx.h = makeHome(label)
    let targetId = ''
    const s2: Record<string, ActorScript> = s2Steps === undefined ? {} : { 'ROLE:S2': steps([...s2Steps, sendTo(() => targetId, 'S2-BODY')], 'S2 done') }
    const model = fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': answering,
        'ROLE:S1': steps([sendTo(() => targetId, 'S1-BODY')], 'S1 done'),
        ...s2,
      }),
    })
    const patch = writePatch(h)
    targetId = (await runHeadless(h, model, 'ROLE:T rest', { patch })).sessionId
    return { h, model, patch, targetId }
  }

  it('a headless sender that ends its turn at once after waking a cold session waits for that session\'s answer; a later sender is accepted', async () => {
    const { h, model, patch, targetId } = await coldTarget('sf-answer', [])
    await runHeadless(h, model, 'ROLE:S1 message T, then stop', { patch })

    // S1's model got the result only after T's turn ended; S1 then stopped at once.
    const first = resultOf(model, 'sessions_send', 0)
    const said = new RegExp(`^accepted for ${targetId} \\| mode=queue \\| chars=\\d+ \\| hop 1 \\(woke a cold session\\) \\| recorded at seq (\\d+) \\| its turn ended \\(completed\\) at seq (\\d+)\\n`).exec(first)
    expect(said, first).not.toBeNull()
    const log = readSession(h, targetId)
    expectContiguous(log)
    const reply = answered(log.events, 'S1-BODY')
    expect(reply, JSON.stringify(transcript(log))).toBeDefined()
    // The seqs it reported are the message's own user/message and the end of the turn that answered it.
    expect(reply!.asked).toBe(Number(said![1]))
    expect(reply!.ended).toBe(Number(said![2]))
    // Nothing cut that turn off: the log's last turn is the one that ended there.
    expect(log.events.filter(e => e.type === 'turn/start').at(-1)!.seq).toBeLessThan(reply!.ended)

    // A later sender finds a closed log and is accepted (not refused for an open turn).
    await runHeadless(h, model, 'ROLE:S2 message T, then stop', { patch })
    const second = resultOf(model, 'sessions_send', 1)
    expect(second).toMatch(new RegExp(`^accepted for ${targetId} \\| mode=queue .*\\(woke a cold session\\) \\| recorded at seq \\d+ \\| its turn ended \\(completed\\) at seq \\d+\\n`))
    const after = readSession(h, targetId)
    expectContiguous(after)
    expect(peerMessages(after, 'S1-BODY')).toHaveLength(1)
    expect(peerMessages(after, 'S2-BODY')).toHaveLength(1)
    expect(answered(after.events, 'S2-BODY')).toBeDefined()
  })

  it('a turn cut off because the sender\'s answer wait ran out is offered again, by name, on the next wake', async () => {
    const { h, model, patch, targetId } = await coldTarget('sf-cut-off', [])
    // S1 waits for T's answer less long than T takes: its exit cuts T's turn off.
    const s1 = await runHeadless(h, model, 'ROLE:S1 message T, then stop', { patch: writePatch(h, { plugin: { answerWaitMs: 300 } }, 'short-wait.patch.yml') })
    const first = resultOf(model, 'sessions_send', 0)
    const said = new RegExp(`\\(woke a cold session\\) \\| recorded at seq (\\d+) \\| still answering after \\d+ ms\\n`).exec(first)
    expect(said, first).not.toBeNull()
    expect(first).toContain('when that session is next woken it is asked again to answer it')
    const seq = Number(said![1])
    expect(answered(readSession(h, targetId).events, 'S1-BODY')).toBeUndefined()

    // The next wake: T gets one notice naming S1's message, and answers.
    await runHeadless(h, model, 'ROLE:S2 message T, then stop', { patch })
    expect(resultOf(model, 'sessions_send', 1)).toMatch(/\(woke a cold session\) \| recorded at seq \d+ \| its turn ended \(completed\) at seq \d+\n/)
    const log = readSession(h, targetId)
    expectContiguous(log)
    const notices = transcript(log).filter(line => line.role === 'user' && line.source?.form === 'notice')
    expect(notices.filter(line => line.text.includes(`from session ${s1.sessionId} (seq ${seq})`)), JSON.stringify(transcript(log))).toHaveLength(1)
    expect(peerMessages(log, 'S1-BODY')).toHaveLength(1)
    expect(answered(log.events, 'S1-BODY')).toBeDefined()
  })

  it('with a dsh web host of the package on the home, a headless sender hands the cold session to it, which wakes it and answers there', async () => {
    const { h, model, patch, targetId } = await coldTarget('sf-handoff', [{ name: 'sessions_list', args: {} }])
    fx.web = await startWeb(h, model, { patch })
    const webPid = fx.web.child.pid!
    // Cold: the headless run that created T let it go.
    expect(holderOf(h, targetId)).toMatchObject({ pid: null, let_go: 'exited' })

    await runHeadless(h, model, 'ROLE:S1 message T, then stop', { patch })
    const first = resultOf(model, 'sessions_send', 0)
    const said = new RegExp(`^accepted for ${targetId} \\| mode=queue \\| chars=\\d+ \\| hop 1 \\| handed to the long-lived dsh process pid ${webPid} on this home, which wakes it; delivered through the mailbox \\| recorded at seq (\\d+)\\n`).exec(first)
    expect(said, first).not.toBeNull()
    // The session is live in the web host now, and answers there although S1's process is gone.
    expect(holderOf(h, targetId)).toMatchObject({ pid: webPid, state: 'live' })
    const reply = await waitFor(async () => answered(await historyEvents(fx.web!, targetId), 'S1-BODY'), 'T to answer S1 in the web host')
    expect(reply.asked).toBe(Number(said![1]))

    // The next sender sees it live in that process and delivers through the store.
    await runHeadless(h, model, 'ROLE:S2 message T, then stop', { patch })
    const row = resultOf(model, 'sessions_list').split('\n').find(line => line.includes(targetId))
    expect(row).toMatch(new RegExp(`\\[live, top-level\\].*live in another dsh process \\(pid ${webPid}\\)`))
    const second = resultOf(model, 'sessions_send', 1)
    expect(second).toMatch(new RegExp(`^accepted for ${targetId} \\| mode=queue .*\\| live in another dsh process \\(pid ${webPid}\\); delivered through the mailbox \\| recorded at seq \\d+\\n`))
    await waitFor(async () => answered(await historyEvents(fx.web!, targetId), 'S2-BODY'), 'T to answer S2 in the web host')
    await fx.web.stop()

    const log = readSession(h, targetId)
    expectContiguous(log)
    const delivered = ['S1-BODY', 'S2-BODY'].map(body => peerMessages(log, body))
    expect(delivered.map(found => found.length)).toEqual([1, 1])
    expect(answered(log.events, 'S1-BODY')).toBeDefined()
    expect(answered(log.events, 'S2-BODY')).toBeDefined()
    // Both went through the store and are recorded where the log holds them.
    expect(messagesFor(h, targetId).map(m => [m.state, m.seq, m.message_id])).toEqual(delivered.map(([found]) => ['recorded', found!.seq, idAt(log, found!.seq)]))
  })

  it('a hand-over the web host does not take up (it is frozen) is taken back by the headless sender, which wakes the session and waits for its answer', async () => {
    const { h, model, patch, targetId } = await coldTarget('sf-frozen-host')
    fx.web = await startWeb(h, model, { patch })
    const webPid = fx.web.child.pid!
    // Frozen: alive (so S1 hands the message to it) but it never adopts T.
    process.kill(webPid, 'SIGSTOP')
    try {
      await runHeadless(h, model, 'ROLE:S1 message T, then stop', { patch: writePatch(h, { plugin: { recordWaitMs: 8000 } }, 'long-wait.patch.yml') })
    } finally {
      process.kill(webPid, 'SIGCONT')
    }
    const sent = resultOf(model, 'sessions_send', 0)
    // The result says what happened: the host did not take it up, so this process woke it, and waited for its answer.
    expect(sent).toMatch(new RegExp(`^accepted for ${targetId} \\| mode=queue .*\\| handed to the dsh process pid ${webPid}, which did not take it up; woken in this process and delivered through the mailbox \\| recorded at seq \\d+ \\| its turn ended \\(completed\\) at seq \\d+\\n`))
    // S1 woke T itself once the host let it wait, and its exit did not cut T's answer off.
    const log = readSession(h, targetId)
    expectContiguous(log)
    expect(peerMessages(log, 'S1-BODY')).toHaveLength(1)
    expect(answered(log.events, 'S1-BODY'), JSON.stringify(transcript(log))).toBeDefined()
    expect(messagesFor(h, targetId).map(m => m.state)).toEqual(['recorded'])
  })

  it('five processes message one cold session while the process that woke it is SIGKILLed mid-answer: every accepted message is in its log once', async () => {
    fx.h = makeHome('sf-five')
    let targetId = ''
    let killed!: () => void
    const gate = new Promise<void>(resolve => { killed = resolve })
    let heldK = false
    fx.model = await startFakeModel({
      maxRequests: 200,
      scenario: router({
        // T holds its answer to K's message until K is killed; every later answer is slow.
        'ROLE:T': async turn => {
          if (!heldK && bodiesIn(turn.trigger).includes('K-BODY')) {
            heldK = true
            await gate
            return { text: 'T-ANSWER K-BODY (never seen: its process is gone)' }
          }
          return answering(turn)
        },
        'ROLE:K': steps([sendTo(() => targetId, 'K-BODY')], 'K done'),
        ...Object.fromEntries(['S1', 'S2', 'S3', 'S4', 'F'].map(role => [`ROLE:${role}`, steps([sendTo(() => targetId, `${role}-BODY`)], `${role} done`)])),
        'ROLE:R': steps([() => ({ name: 'sessions_read', args: { session_id: targetId, max_messages: 100 } })], 'R done'),
      }),
    })
    const patch = writePatch(fx.h)
    targetId = (await runHeadless(fx.h, fx.model, 'ROLE:T rest', { patch })).sessionId

    // K wakes T; T is answering (its model holds the answer).
    const k = startHeadless(patch, 'ROLE:K wake T')
    await waitFor(() => heldK, 'T to be answering K', 60_000)
    await waitFor(() => peerMessages(readSession(fx.h!, targetId), 'K-BODY').length === 1, 'K\'s message to be in T\'s persisted log', 30_000)
    // S1 delivers through K (K holds T): wait until K claimed it.
    const s1 = startHeadless(patch, 'ROLE:S1 message T')
    const kPid = k.child()!.pid!
    await waitFor(() => messagesFor(fx.h!, targetId).some(m => m.state === 'claimed' && m.claimer_pid === kPid), 'K to claim S1\'s message', 60_000)
    // S2 starts once S1 is past boot (rc.8 rewrites the profile's cordis.yml on every boot, dsh lib/profile-boot-*.js); K dies as S2 sends.
    const s2 = startHeadless(patch, 'ROLE:S2 message T')
    await waitFor(() => reached('ROLE:S2'), 'S2 to reach its model', 60_000)
    k.child()!.kill('SIGKILL')
    killed()
    const s3 = startHeadless(patch, 'ROLE:S3 message T')
    await waitFor(() => reached('ROLE:S3'), 'S3 to reach its model', 60_000)
    const s4 = startHeadless(patch, 'ROLE:S4 message T')
    const runs = await Promise.all([k.done, s1.done, s2.done, s3.done, s4.done])
    expect(runs[0]!.signal).toBe('SIGKILL')
    for (const run of runs.slice(1)) expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)

    // Open T again: a web host on the home, and one more sender (handed to it, or delivered to it).
    fx.web = await startWeb(fx.h, fx.model, { patch })
    await runHeadless(fx.h, fx.model, 'ROLE:F message T', { patch })
    // Quiescent: nothing waiting in the store, T idle in the web host, and its log no longer growing.
    let length = -1
    await waitFor(async () => {
      const waiting = messagesFor(fx.h!, targetId).filter(m => m.state === 'pending' || m.state === 'claimed')
      const { items } = await fx.web!.rpc<{ items: Array<{ sessionId: string, running: boolean }> }>('session.list', {})
      const events = await historyEvents(fx.web!, targetId).catch(() => [])
      const still = waiting.length === 0 && items.some(item => item.sessionId === targetId && !item.running) && events.length === length
      length = events.length
      if (!still) await sleep(1000)
      return still
    }, () => `T to be quiescent; store: ${JSON.stringify(messagesFor(fx.h!, targetId).map(m => [m.sender, m.state, m.claimer_pid, m.seq]))}`, 90_000)
    await fx.web.stop()

    const sends = fx.model.toolResults('sessions_send')
    const accepted = sends.filter(result => result.content.startsWith('accepted'))
    const log = readSession(fx.h, targetId)
    expectContiguous(log)
    const report = JSON.stringify({ sends: sends.map(r => r.content.split('\n')[0]), transcript: transcript(log).map(l => [l.seq, l.role, l.text.slice(0, 200)]) }, null, 1)
    // Every accepted message is in T's log exactly once; K's (which got no result: K died) at most once.
    for (const result of accepted) {
      const [body] = bodiesIn(String((result.args as { message?: unknown }).message))
      expect(peerMessages(log, body!), `${body}: ${report}`).toHaveLength(1)
    }
    // K's own message went into T's log in K's process (K woke T), not through the store, and K died before T
    // answered it: it is there once, and the next wake offered it again by name (docs/tools.md "A turn cut off by
    // an exit is answered later").
    const kSession = readSessions(fx.h).find(session => transcript(session)[0]?.text.startsWith('ROLE:K'))!.header.id
    const kMessage = peerMessages(log, 'K-BODY')
    expect(kMessage, report).toHaveLength(1)
    expect(transcript(log).filter(line => line.source?.form === 'notice' && line.text.includes(`from session ${kSession} (seq ${kMessage[0]!.seq})`)).length, report).toBeGreaterThanOrEqual(1)
    // The store carried nothing it did not deliver: every message it holds is recorded where the log holds its id.
    for (const message of messagesFor(fx.h, targetId)) {
      expect(message.state, report).toBe('recorded')
      expect(idAt(log, message.seq!), report).toBe(message.message_id)
    }

    // A fresh process loads the log.
    await runHeadless(fx.h, fx.model, 'ROLE:R read T', { patch })
    const read = resultOf(fx.model, 'sessions_read')
    expect(read).toContain(`session ${targetId} [cold, top-level]`)
    for (const result of accepted) expect(read).toContain(bodiesIn(String((result.args as { message?: unknown }).message))[0])
  })

  /**
   * A web host W holds T mid-turn (its model holds the answer); a headless S
   * sends in `mode`; once W claimed it and its insertion is in T's persisted
   * log, and S's bound ran out, W is SIGKILLed.
   */
  async function claimedThenKilled(mode: 'steer' | 'queue') {
    fx.h = makeHome(`sf-claim-${mode}`)
    let targetId = ''
    let release!: () => void
    const gate = new Promise<void>(resolve => { release = resolve })
    let held = false
    const body = `${mode.toUpperCase()}-BODY`
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': async turn => {
          if (!held && turn.trigger.includes('ROLE:T')) {
            held = true
            await gate
            return { text: 'T-FIRST-ANSWER (never seen: its process is gone)' }
          }
          return answering(turn)
        },
        'ROLE:S': steps([sendTo(() => targetId, body, mode)], 'S done'),
        'ROLE:H': steps([sendTo(() => targetId, 'H-BODY')], 'H done'),
      }),
    })
    const patch = writePatch(fx.h, { plugin: { recordWaitMs: RECORD_WAIT_MS } })
    fx.web = await startWeb(fx.h, fx.model, { patch })
    const webPid = fx.web.child.pid!
    targetId = (await fx.web.create()).sessionId
    await fx.web.prompt(targetId, 'ROLE:T a long job')
    await waitFor(() => held, 'T to be mid-turn')

    const s = startHeadless(patch, 'ROLE:S message the busy T')
    const claimed = await waitFor(() => messagesFor(fx.h!, targetId).find(m => m.state === 'claimed' && m.claimer_pid === webPid), 'W to claim the message', 60_000)
    // W admitted it: the insertion is in T's persisted log (in the inbox, not in the conversation).
    await waitFor(() => readSession(fx.h!, targetId).events.some(e => e.type === 'agent/inbox/spliced' && JSON.stringify(e.data).includes(claimed.message_id)), 'the insertion to be persisted', 30_000)
    const run = await s.done
    expect(run.code, run.stderr).toBe(0)
    const sent = resultOf(fx.model, 'sessions_send', 0)
    expect(sent).toMatch(new RegExp(`^accepted for ${targetId} \\| mode=${mode} .*\\| live in another dsh process \\(pid ${webPid}\\); delivered through the mailbox \\| claimed by that process, not yet recorded after ${RECORD_WAIT_MS} ms\\n`))
    expect(peerMessages(readSession(fx.h, targetId), body)).toHaveLength(0)

    fx.web.child.kill('SIGKILL')
    await waitFor(() => fx.web!.child.exitCode !== null || fx.web!.child.signalCode !== null, 'W to die')
    release()
    fx.web = undefined
    return { targetId, patch, body, messageId: claimed.message_id }
  }

  /** The message is once in T's log as its own user/message, and the store says it is recorded there. */
  function expectOnce(targetId: string, body: string, messageId: string): PersistedSession {
    const log = readSession(fx.h!, targetId)
    expectContiguous(log)
    const delivered = peerMessages(log, body)
    expect(delivered, JSON.stringify(transcript(log))).toHaveLength(1)
    expect(idAt(log, delivered[0]!.seq)).toBe(messageId)
    expect(log.events.filter(e => e.type === 'user/message' && e.data?.id === messageId)).toHaveLength(1)
    const stored = messagesFor(fx.h!, targetId).find(m => m.message_id === messageId)
    expect(stored).toMatchObject({ state: 'recorded', seq: delivered[0]!.seq })
    return log
  }

  it('a steer claimed by a holder SIGKILLed before recording it is delivered once by the web host that adopts the session next', async () => {
    const { targetId, patch, body, messageId } = await claimedThenKilled('steer')
    fx.web = await startWeb(fx.h!, fx.model!, { patch })
    await waitFor(async () => answered(await historyEvents(fx.web!, targetId), body), 'the new web host to adopt T and answer the steer', 60_000)
    await waitFor(() => messagesFor(fx.h!, targetId).every(m => m.state === 'recorded') || undefined, 'the store to record it')
    await fx.web.stop()
    const log = expectOnce(targetId, body, messageId)
    expect(answered(log.events, body)).toBeDefined()
  })

  it('a queue claimed by a holder SIGKILLed before recording it is delivered once, before newer messages, by the next headless sender that wakes the session', async () => {
    const { targetId, patch, body, messageId } = await claimedThenKilled('queue')
    await runHeadless(fx.h!, fx.model!, 'ROLE:H wake T', { patch })
    const woke = resultOf(fx.model!, 'sessions_send', 1)
    expect(woke).toMatch(new RegExp(`^accepted for ${targetId} \\| mode=queue .*\\(woke a cold session\\) \\| recorded at seq \\d+ \\| its turn ended \\(completed\\) at seq \\d+\\n`))
    const log = expectOnce(targetId, body, messageId)
    const newer = peerMessages(log, 'H-BODY')
    expect(newer).toHaveLength(1)
    expect(peerMessages(log, body)[0]!.seq).toBeLessThan(newer[0]!.seq)
    expect(answered(log.events, 'H-BODY')).toBeDefined()
  })
})
