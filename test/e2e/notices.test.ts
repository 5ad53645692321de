/**
 * End to end, in the real rc.8 harness: notices (docs/tools.md "Notices",
 * docs/architecture.md §8 "Notices") and the `sessions_read` cursors
 * (docs/tools.md "Cursors").
 *
 * - a web-host sender with `notify: true` to a cold target: exactly one
 *   notice in the sender's log, and the target's model is asked only its own
 *   answer;
 * - a headless sender, the target live in a `dsh web` process: the sender
 *   has gone cold when the target answers, and the web host wakes it for the
 *   notice; under the sender's `allowResume: false` the notice waits in the
 *   store until the sender's next turn;
 * - the cursors at both ends and in the middle of a long surface;
 * - a SIGKILLed holder: the next holder looks; with none, a web host reads
 *   the log on disk.
 *
 * Every assertion reads what the harness really did: the tool results and
 * requests the scripted model received, the persisted logs, the store rows.
 * @module test/e2e/notices
 */
import { describe, expect, it } from 'vitest'
import { resultOf, startFakeModel, type FakeModel, type ModelRequest } from './support/fake-model.ts'
import { homeFixture, makeHome, readSession, runHeadless, SKIP_E2E, sleep, startWeb, transcript, waitFor, writePatch, type PersistedSession } from './support/harness.ts'
import { expectContiguous, idAt, peerMessages } from './support/logs.ts'
import { firstUserText, router, steps, type ActorScript } from './support/scenario.ts'
import { readStore, writeStore } from './support/store.ts'

const NOTICE = 'Cross-session notice from the dsh-cross-session package'
const ANSWER = `T-ANSWER ${'the long answer '.repeat(40)}T-END`

/** The notices a persisted log holds (user messages with this package's relay source and a notice outcome). */
function noticesIn(session: PersistedSession): Array<{ seq: number, text: string, source: any }> {
  return transcript(session).filter(m => m.role === 'user' && m.source?.plugin === 'dsh-cross-session' && m.source?.notice !== undefined)
}

/** Requests the target's model got (routed by its first prompt), title requests aside. */
function requestsOf(model: FakeModel, marker: string): ModelRequest[] {
  return model.requests.filter(r => !r.isTitle && firstUserText(r).includes(marker))
}

/** The sender: sends with `notify: true`, then answers a notice with `S-GOT-NOTICE`. */
function sender(target: () => string): ActorScript {
  const send = steps([() => ({ name: 'sessions_send', args: { session_id: target(), message: 'NOTIFY-BODY please check the release', notify: true } })], 'S sent')
  return turn => turn.trigger.startsWith(NOTICE) ? { text: 'S-GOT-NOTICE' } : turn.trigger.includes('ask your peer') ? send(turn) : { text: 'S-BACK' }
}

const targetScript: ActorScript = turn => ({ text: turn.trigger.startsWith('Cross-session message') ? ANSWER : 'T-READY' })

describe.skipIf(SKIP_E2E)('notices and cursors', () => {
  const fx = homeFixture()

  /** The notice in `sender`'s log says what the target's log holds. */
  function expectNotice(senderLog: PersistedSession, targetId: string): void {
    const target = readSession(fx.h!, targetId)
    expectContiguous(senderLog)
    expectContiguous(target)
    const delivered = peerMessages(target, 'NOTIFY-BODY')
    expect(delivered).toHaveLength(1)
    const notices = noticesIn(senderLog)
    expect(notices).toHaveLength(1)
    const text = notices[0]!.text
    expect(text.split('\n')[0]).toBe(`${NOTICE} (not a message from your user).`)
    expect(text).toContain(`from-session: ${targetId}`)
    const turnEnd = target.events.find(e => e.type === 'turn/end' && e.seq > delivered[0]!.seq)!
    expect(text).toContain(`turn: completed | it took your message at seq ${delivered[0]!.seq} and ended at seq ${turnEnd.seq} | hop 2`)
    expect(text).toContain(`${ANSWER.slice(0, 300)}…[truncated ${ANSWER.length - 300} chars]`)
    expect(text).toContain(`Read the rest: sessions_read {"session_id":"${targetId}","after_seq":${delivered[0]!.seq}}`)
    expect(notices[0]!.source).toEqual({ kind: 'plugin', plugin: 'dsh-cross-session', form: 'relay', senderSessionId: targetId, hop: 2, notice: 'completed' })
    // The sender's model read it, and answered it in the turn it started.
    const after = transcript(senderLog).filter(m => m.seq > notices[0]!.seq && m.role === 'assistant').map(m => m.text)
    expect(after).toContain('S-GOT-NOTICE')
  }

  it('a web-host sender with notify to a cold target: exactly one notice; the target\'s model is asked only its own answer', async () => {
    fx.h = makeHome('nt-web')
    let targetId = ''
    fx.model = await startFakeModel({ scenario: router({ 'ROLE:T': targetScript, 'ROLE:S': sender(() => targetId) }) })
    const patch = writePatch(fx.h)
    targetId = (await runHeadless(fx.h, fx.model, 'ROLE:T be cold', { patch })).sessionId
    const before = requestsOf(fx.model, 'ROLE:T').length
    fx.web = await startWeb(fx.h, fx.model, { patch })
    const senderId = (await fx.web.create()).sessionId
    await fx.web.prompt(senderId, 'ROLE:S ask your peer')
    await fx.web.waitIdle(senderId, { turns: 2 })
    const send = resultOf(fx.model, 'sessions_send')
    expect(send).toMatch(new RegExp(`^accepted for ${targetId} .*\\(woke a cold session\\) \\| recorded at seq \\d+`))
    expect(send).toContain('Notice: when the turn that takes this message ends, one notice comes to this session (expires in 12 h)')
    // Quiet for a while: nothing more arrives.
    await sleep(2500)
    await fx.web.stop()
    expectNotice(readSession(fx.h, senderId), targetId)
    // The target's model: one request after the wake (its answer), and it never saw a notice.
    const asked = requestsOf(fx.model, 'ROLE:T').slice(before)
    expect(asked).toHaveLength(1)
    expect(asked[0]!.lastUserText).toContain('NOTIFY-BODY')
    expect(asked.some(r => r.allUserText.includes(NOTICE))).toBe(false)
    const store = readStore(fx.h)
    expect(store.watches.map(w => [w.sender, w.target, w.state, w.outcome])).toEqual([[senderId, targetId, 'noticed', 'completed']])
    expect(store.messages.filter(m => m.notice !== null).map(m => [m.sender, m.target, m.state, m.hop])).toEqual([[targetId, senderId, 'recorded', 2]])
  })

  /** T live in a web host; a headless S sends with notify under `senderConfig`, and its run ends before T answers. */
  async function headlessSender(label: string, senderConfig: Record<string, unknown>) {
    fx.h = makeHome(label)
    let targetId = ''
    let release!: () => void
    const gate = new Promise<void>(resolve => { release = resolve })
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': async turn => {
          // Hold the answer until the sender's run has ended: the sender is cold when the turn ends.
          if (turn.trigger.startsWith('Cross-session message')) await gate
          return targetScript(turn)
        },
        'ROLE:S': sender(() => targetId),
      }),
    })
    fx.web = await startWeb(fx.h, fx.model, { patch: writePatch(fx.h) })
    targetId = (await fx.web.create()).sessionId
    await fx.web.prompt(targetId, 'ROLE:T stay around')
    await fx.web.waitIdle(targetId)
    const run = await runHeadless(fx.h, fx.model, 'ROLE:S ask your peer', { patch: writePatch(fx.h, { plugin: senderConfig }, 's.patch.yml') })
    const send = resultOf(fx.model, 'sessions_send')
    expect(send).toMatch(new RegExp(`^accepted for ${targetId} .*live in another dsh process \\(pid ${fx.web.child.pid}\\); delivered through the mailbox`))
    expect(send).toContain('Notice: when the turn that takes this message ends')
    expect(readStore(fx.h).holders.find(row => row.session_id === run.sessionId)).toMatchObject({ pid: null, let_go: 'exited' })
    release()
    await fx.web.waitIdle(targetId, { turns: 2 })
    return { senderId: run.sessionId, targetId, web: fx.web }
  }

  it('a headless sender whose user turned noticeWakesEndedRun on, the target in another process: the sender went cold, and the web host wakes it for the notice', async () => {
    const { senderId, targetId } = await headlessSender('nt-headless', { noticeWakesEndedRun: true })
    await waitFor(() => requestsOf(fx.model!, 'ROLE:S').some(r => r.lastUserText.startsWith(NOTICE)) || undefined, 'the notice to reach the sender\'s model')
    await fx.web!.waitIdle(senderId, { turns: 2 })
    await sleep(1500)
    await fx.web!.stop()
    expectNotice(readSession(fx.h!, senderId), targetId)
    const notice = readStore(fx.h!).messages.find(m => m.notice !== null)
    expect(notice).toMatchObject({ sender: targetId, target: senderId, state: 'recorded', may_wake: 1 })
  })

  it.each([
    ['allowResume: false', { allowResume: false }],
    ['noticeWakesEndedRun off (the default)', {}],
  ])('under the sender\'s %s the notice does not wake its ended run; it waits for the sender\'s next turn', async (_name, config) => {
    const { senderId, targetId } = await headlessSender('nt-no-wake', config)
    await waitFor(() => readStore(fx.h!).messages.find(m => m.notice !== null), 'the notice to be posted')
    // Two adoption ticks of the web host (2 s each): still waiting, not woken.
    await sleep(5000)
    expect(readStore(fx.h!).messages.filter(m => m.notice !== null).map(m => [m.target, m.state, m.may_wake])).toEqual([[senderId, 'pending', 0]])
    expect(readStore(fx.h!).holders.find(row => row.session_id === senderId)?.pid ?? null).toBeNull()
    expect(requestsOf(fx.model!, 'ROLE:S').some(r => r.allUserText.includes(NOTICE))).toBe(false)
    // The sender's next turn (its user opens it in the web UI): the notice is delivered with it.
    await fx.web!.prompt(senderId, 'ROLE:S back again')
    await waitFor(() => requestsOf(fx.model!, 'ROLE:S').some(r => r.allUserText.includes(NOTICE)) || undefined, 'the notice to reach the sender\'s model')
    await fx.web!.waitIdle(senderId, { turns: 2 })
    await sleep(1000)
    await fx.web!.stop()
    const senderLog = readSession(fx.h!, senderId)
    expectContiguous(senderLog)
    expect(noticesIn(senderLog)).toHaveLength(1)
    expect(noticesIn(senderLog)[0]!.text).toContain(`from-session: ${targetId}`)
    expect(readStore(fx.h!).messages.find(m => m.notice !== null)?.state).toBe('recorded')
  })

  it('sessions_read cursors at both ends and in the middle of a long surface', async () => {
    fx.h = makeHome('nt-cursor')
    let targetId = ''
    const next = (text: string, side: 'after_seq' | 'before_seq'): number => Number(new RegExp(`${side === 'after_seq' ? 'newer' : 'older'}: \\d+ \\(${side} (\\d+)\\)`).exec(text)![1])
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': turn => ({ text: `answer to ${turn.trigger.slice(0, 20)}` }),
        'ROLE:R': steps([
          () => ({ name: 'sessions_read', args: { session_id: targetId, max_messages: 100 } }),
          () => ({ name: 'sessions_read', args: { session_id: targetId, after_seq: 0, max_messages: 4 } }),
          turn => ({ name: 'sessions_read', args: { session_id: targetId, after_seq: next(turn.results[0]!.content, 'after_seq'), max_messages: 4 } }),
          turn => ({ name: 'sessions_read', args: { session_id: targetId, after_seq: next(turn.results[0]!.content, 'after_seq'), max_messages: 100 } }),
          () => ({ name: 'sessions_read', args: { session_id: targetId, after_seq: 1_000_000 } }),
          () => ({ name: 'sessions_read', args: { session_id: targetId, before_seq: 0 } }),
          () => ({ name: 'sessions_read', args: { session_id: targetId, before_seq: 1_000_000, max_messages: 2 } }),
        ], 'R done'),
      }),
    })
    const patch = writePatch(fx.h)
    fx.web = await startWeb(fx.h, fx.model, { patch })
    targetId = (await fx.web.create()).sessionId
    for (let turn = 1; turn <= 6; turn++) {
      await fx.web.prompt(targetId, `ROLE:T message ${turn}`)
      await fx.web.waitIdle(targetId, { turns: turn })
    }
    await fx.web.stop()
    await runHeadless(fx.h, fx.model, 'ROLE:R page through the peer', { patch })
    const reads = fx.model.toolResults('sessions_read').map(r => r.content)
    expect(reads).toHaveLength(7)
    const seqs = (text: string): number[] => [...text.matchAll(/^--- \w+ \(seq (\d+),/gm)].map(m => Number(m[1]))
    const all = seqs(reads[0]!).reverse()
    // Twelve messages: six prompts and six answers, in log order.
    expect(all).toHaveLength(12)
    const log = transcript(readSession(fx.h, targetId)).filter(m => m.text.includes('message ') || m.text.startsWith('answer to'))
    expect(all).toEqual(log.map(m => m.seq))
    // Forward from the start, four at a time, then the rest: every message once, in order.
    const forward = [reads[1]!, reads[2]!, reads[3]!].flatMap(text => seqs(text).reverse())
    expect(forward).toEqual(all)
    expect(reads[1]!.split('\n')[3]).toBe(`after_seq 0 | newer: 8 (after_seq ${all[3]}) | older: 0`)
    expect(reads[2]!.split('\n')[3]).toBe(`after_seq ${all[3]} | newer: 4 (after_seq ${all[7]}) | older: 4 (before_seq ${all[4]})`)
    expect(reads[3]!.split('\n')[3]).toBe(`after_seq ${all[7]} | newer: 0 | older: 8 (before_seq ${all[8]})`)
    // Past either end: a header, no messages, no error.
    expect(reads[4]!.split('\n').slice(3)).toEqual(['after_seq 1000000 | newer: 0 | older: 12 (before_seq 1000001)', '(no readable messages in this range)'])
    expect(reads[5]!.split('\n').slice(3)).toEqual(['before_seq 0 | newer: 12 (after_seq 0) | older: 0', '(no readable messages in this range)'])
    // Paging back from the end: the newest two.
    expect(seqs(reads[6]!)).toEqual([all[11], all[10]])
    expect(reads[6]!.split('\n')[3]).toBe(`before_seq 1000000 | newer: 0 | older: 10 (before_seq ${all[10]})`)
  })
})

describe.skipIf(SKIP_E2E)('a notice across a SIGKILL', () => {
  const fx = homeFixture()

  it('the target\'s holder is SIGKILLed mid-turn: the next holder reads the interrupted turn from the log and the notice says so, once', async () => {
    fx.h = makeHome('nt-kill')
    let targetId = ''
    let stuck = false
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': async turn => {
          if (!turn.trigger.startsWith('Cross-session message')) return { text: 'T-READY' }
          stuck = true
          return await new Promise(() => undefined) // never answers: its holder is killed mid-turn
        },
        'ROLE:S': sender(() => targetId),
      }),
    })
    const patch = writePatch(fx.h)
    fx.web = await startWeb(fx.h, fx.model, { patch })
    const first = fx.web
    targetId = (await fx.web.create()).sessionId
    await fx.web.prompt(targetId, 'ROLE:T stay around')
    await fx.web.waitIdle(targetId)
    // Its user opted in to having the ended run woken for a notice (noticeWakesEndedRun; off by default).
    const run = await runHeadless(fx.h, fx.model, 'ROLE:S ask your peer', { patch: writePatch(fx.h, { plugin: { noticeWakesEndedRun: true } }, 's.patch.yml') })
    await waitFor(() => stuck || undefined, 'the target to be mid-turn on the message')
    await waitFor(() => readStore(fx.h!).messages.find(m => m.target === targetId && m.state === 'recorded'), 'the message to be recorded')
    expect(readStore(fx.h).watches.map(w => w.state)).toEqual(['watching'])
    first.child.kill('SIGKILL')
    await waitFor(() => first.child.exitCode !== null || first.child.signalCode !== null, 'the holder to die')
    // A new web host; the target's user opens it again: its holder looks at the watch against the log on disk.
    fx.web = await startWeb(fx.h, fx.model, { patch })
    await fx.web.prompt(targetId, 'ROLE:T back again')
    await waitFor(() => readStore(fx.h!).watches.find(w => w.state !== 'watching'), 'the watch to be settled')
    expect(readStore(fx.h).watches.map(w => [w.state, w.outcome])).toEqual([['noticed', 'interrupted']])
    // The sender is cold and allowed waking: the host wakes it for the notice.
    await waitFor(() => requestsOf(fx.model!, 'ROLE:S').some(r => r.lastUserText.startsWith(NOTICE)) || undefined, 'the notice to reach the sender')
    await fx.web.waitIdle(run.sessionId, { turns: 2 })
    await sleep(1500)
    await fx.web.stop()
    const senderLog = readSession(fx.h, run.sessionId)
    expectContiguous(senderLog)
    const notices = noticesIn(senderLog)
    expect(notices).toHaveLength(1)
    expect(notices[0]!.text).toMatch(/^turn: interrupted \| it took your message at seq \d+ and ended at seq \d+ \| hop 2$/m)
    expect(notices[0]!.text).toContain('(it wrote no answer text)')
  })

  it('a watched turn that ended on disk with no holder left to look (it was SIGKILLed first): a web host reads the log on disk and posts the notice, waking nothing but the sender', async () => {
    fx.h = makeHome('nt-orphan')
    let targetId = ''
    const plain = steps([() => ({ name: 'sessions_send', args: { session_id: targetId, message: 'PLAIN-BODY please check the release' } })], 'S sent')
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': targetScript,
        'ROLE:S': turn => turn.trigger.startsWith(NOTICE) ? { text: 'S-GOT-NOTICE' } : turn.trigger.includes('ask your peer') ? plain(turn) : { text: 'S-BACK' },
      }),
    })
    const patch = writePatch(fx.h)
    targetId = (await runHeadless(fx.h, fx.model, 'ROLE:T be cold', { patch })).sessionId
    // No long-lived host: the headless sender wakes the target itself and waits until that turn has ended.
    const run = await runHeadless(fx.h, fx.model, 'ROLE:S ask your peer', { patch })
    expect(resultOf(fx.model, 'sessions_send')).toMatch(/\| its turn ended \(completed\) at seq \d+/)
    const target = readSession(fx.h, targetId)
    const [delivered] = peerMessages(target, 'PLAIN-BODY')
    // What a holder SIGKILLed between that turn end and its look at the watches leaves behind: the watch, watching.
    const now = Date.now()
    writeStore(fx.h, `INSERT INTO watches (message_id, sender, target, hop, may_wake, max_hops, per_minute, state, created_at, expires_at, updated_at)
      VALUES (?, ?, ?, 1, 1, 4, 6, 'watching', ?, ?, ?)`, String(idAt(target, delivered!.seq)), run.sessionId, targetId, now, now + 3_600_000, now)
    const askedBefore = requestsOf(fx.model, 'ROLE:T').length
    fx.web = await startWeb(fx.h, fx.model, { patch })
    await waitFor(() => readStore(fx.h!).watches.find(w => w.state !== 'watching'), 'the watch to be settled from the log on disk')
    expect(readStore(fx.h).watches.map(w => [w.state, w.outcome])).toEqual([['noticed', 'completed']])
    await waitFor(() => requestsOf(fx.model!, 'ROLE:S').some(r => r.lastUserText.startsWith(NOTICE)) || undefined, 'the notice to reach the sender')
    await fx.web.waitIdle(run.sessionId, { turns: 2 })
    await sleep(1500)
    await fx.web.stop()
    // The target was only read: its model was asked nothing and its log is as it was.
    expect(requestsOf(fx.model, 'ROLE:T')).toHaveLength(askedBefore)
    expect(readSession(fx.h, targetId).events).toHaveLength(target.events.length)
    const notices = noticesIn(readSession(fx.h, run.sessionId))
    expect(notices).toHaveLength(1)
    expect(notices[0]!.text).toMatch(new RegExp(`^turn: completed \\| it took your message at seq ${delivered!.seq} and ended at seq \\d+ \\| hop 2$`, 'm'))
  })
})
