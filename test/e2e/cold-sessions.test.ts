/**
 * End to end, headless profile: persisted (cold) sessions seen and messaged
 * by a later session, each case in a fresh `DSH_HOME` (docs/tools.md).
 *
 * Every assertion reads what the harness really did: the tool results the
 * model received (recorded by the fake model) and the session logs the
 * harness persisted under `$DSH_HOME/sessions`.
 * @module test/e2e/cold-sessions
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resultOf, startFakeModel } from './support/fake-model.ts'
import { homeFixture, makeHome, readLog, readSession, readSessions, runHeadless, titleOf, transcript, writePatch, SKIP_E2E } from './support/harness.ts'
import { router, says, sleeperScenario, steps } from './support/scenario.ts'

describe.skipIf(SKIP_E2E)('cold sessions (headless profile)', () => {
  const fx = homeFixture()

  it('lists a persisted session as cold, top-level with its real title, the caller last; reads its text only', async () => {
    fx.h = makeHome('list-read')
    writeFileSync(join(fx.h.workspace, 'notes.txt'), 'TOOL-OUTPUT-SECRET: this line is tool output\n')
    let alphaId = ''
    fx.model = await startFakeModel({
      title: r => (r.allUserText.includes('ROLE:A') ? 'Alpha research notes' : 'Bravo peer review'),
      scenario: router({
        // A reads a file (tool output in its log), thinks (reasoning) and answers.
        'ROLE:A': steps([{ name: 'read', args: { file_path: join(fx.h.workspace, 'notes.txt') } }], () => ({ text: 'ALPHA-ANSWER: the notes say hello', reasoning: 'ALPHA-REASONING-SECRET' })),
        'ROLE:B': steps([
          { name: 'sessions_list', args: {} },
          () => ({ name: 'sessions_read', args: { session_id: alphaId } }),
          () => ({ name: 'sessions_read', args: { session_id: alphaId, include_injected: true } }),
        ], 'B done'),
      }),
    })
    const patch = writePatch(fx.h)
    const alpha = await runHeadless(fx.h, fx.model, 'ROLE:A summarise notes.txt', { patch })
    alphaId = alpha.sessionId
    const bravo = await runHeadless(fx.h, fx.model, 'ROLE:B look at your peers', { patch })

    // Ground truth from disk: A persisted with that title, and its log holds the secrets the read must drop.
    const persistedA = readSession(fx.h, alphaId)
    expect(titleOf(persistedA)).toBe('Alpha research notes')
    const rawA = JSON.stringify(persistedA.events)
    expect(rawA).toContain('ALPHA-REASONING-SECRET')
    expect(rawA).toContain('TOOL-OUTPUT-SECRET')
    expect(readLog(fx.h).some(l => l.name === 'cross-session' && /registered sessions_list, sessions_read, sessions_send/.test(l.text))).toBe(true)

    // sessions_list as B's model received it.
    const list = resultOf(fx.model, 'sessions_list')
    const rowA = list.split('\n').find(line => line.includes(alphaId))
    expect(rowA).toMatch(/\[cold, top-level\]/)
    expect(list).toContain('Alpha research notes')
    const rows = list.split('\n').filter(line => line.startsWith('- '))
    expect(rows.at(-1)).toContain(bravo.sessionId) // the caller is last
    expect(rows[0]).toContain(alphaId)

    // sessions_read: user + assistant text; no reasoning, no tool output, no injected context by default.
    const read = resultOf(fx.model, 'sessions_read', 0)
    expect(read).toContain(`session ${alphaId} [cold, top-level]`)
    expect(read).toContain('ROLE:A summarise notes.txt')
    expect(read).toContain('ALPHA-ANSWER: the notes say hello')
    expect(read).not.toContain('ALPHA-REASONING-SECRET')
    expect(read).not.toContain('TOOL-OUTPUT-SECRET')
    expect(read).not.toContain('Current runtime context.')
    // include_injected shows the harness's runtime-context message, marked as injected.
    const withInjected = resultOf(fx.model, 'sessions_read', 1)
    expect(withInjected).toContain('Current runtime context.')
    expect(withInjected).toMatch(/harness-injected/)
    expect(withInjected).not.toContain('TOOL-OUTPUT-SECRET')

    // Reading never woke A: its log is unchanged by B's run.
    expect(readSession(fx.h, alphaId).events.length).toBe(persistedA.events.length)
  })

  it('sends to a cold session with allowResume: it wakes, runs a turn on the framed message, and a later read shows the reply', async () => {
    fx.h = makeHome('wake')
    let alphaId = ''
    const sleeper = sleeperScenario({ target: () => alphaId, body: 'please reply with PONG-123', isPeerMessage: trigger => trigger.startsWith('Cross-session message'), reply: 'PONG-123 from Alpha, replying to the peer' })
    fx.model = await startFakeModel({
      title: sleeper.title,
      scenario: router({
        ...sleeper.actors,
        'ROLE:C': steps([() => ({ name: 'sessions_read', args: { session_id: alphaId } })], 'C done'),
      }),
    })
    const patch = writePatch(fx.h, { plugin: { allowResume: true } })
    alphaId = (await runHeadless(fx.h, fx.model, 'ROLE:A take a nap', { patch })).sessionId
    const bravo = await runHeadless(fx.h, fx.model, 'ROLE:B wake your peer', { patch })

    // B's run is short-lived: the send returned only once the turn it woke had answered.
    const send = resultOf(fx.model, 'sessions_send')
    expect(send).toMatch(new RegExp(`^accepted for ${alphaId} \\| mode=queue .*\\(woke a cold session\\) \\| recorded at seq \\d+ \\| its turn ended \\(completed\\) at seq \\d+\\n`))

    // A's persisted log: a second turn triggered by the framed message, and A's answer to it.
    const alpha = readSession(fx.h, alphaId)
    const lines = transcript(alpha)
    const framed = lines.find(l => l.role === 'user' && l.text.startsWith('Cross-session message'))
    expect(framed, JSON.stringify(lines, null, 1)).toBeDefined()
    expect(framed!.text).toContain(`from-session: ${bravo.sessionId}`)
    expect(framed!.text).toContain('please reply with PONG-123')
    const reply = lines.find(l => l.role === 'assistant' && l.text.includes('PONG-123 from Alpha'))
    expect(reply).toBeDefined()
    expect(reply!.seq).toBeGreaterThan(framed!.seq)
    expect(alpha.events.filter(e => e.type === 'turn/start').length).toBe(2)

    // B's own read (A live) and a later session's read (A cold again) both show the reply.
    expect(resultOf(fx.model, 'sessions_read', 0)).toContain('PONG-123 from Alpha')
    await runHeadless(fx.h, fx.model, 'ROLE:C check on Alpha', { patch })
    const later = resultOf(fx.model, 'sessions_read', 1)
    expect(later).toContain(`session ${alphaId} [cold, top-level]`)
    expect(later).toContain('PONG-123 from Alpha')
  })

  it('accepted means recorded: a one-shot sender that exits at once still leaves the message in the woken log', async () => {
    fx.h = makeHome('durable')
    let alphaId = ''
    fx.model = await startFakeModel({
      title: r => (r.allUserText.includes('ROLE:A') ? 'Alpha sleeper' : 'Bravo one-shot'),
      scenario: router({
        'ROLE:A': says('Alpha is done for now'),
        // B sends and ends its run right away: headless then tears A down.
        'ROLE:B': steps([() => ({ name: 'sessions_send', args: { session_id: alphaId, message: 'DURABLE-BODY please read later' } })], 'B done'),
        'ROLE:C': steps([() => ({ name: 'sessions_read', args: { session_id: alphaId } })], 'C done'),
      }),
    })
    const patch = writePatch(fx.h, { plugin: { allowResume: true } })
    alphaId = (await runHeadless(fx.h, fx.model, 'ROLE:A take a nap', { patch })).sessionId
    const bravo = await runHeadless(fx.h, fx.model, 'ROLE:B send and leave', { patch })

    const send = resultOf(fx.model, 'sessions_send')
    const seq = Number(/\| recorded at seq (\d+)/.exec(send)?.[1])
    expect(send, send).toMatch(new RegExp(`^accepted for ${alphaId} .*\\(woke a cold session\\) \\| recorded at seq \\d+`))
    // The seq it reported is the delivered message's own user/message in A's persisted log.
    const alpha = readSession(fx.h, alphaId)
    const recorded = alpha.events.find(e => e.seq === seq)
    expect(recorded?.type).toBe('user/message')
    expect(JSON.stringify(recorded?.data)).toContain('DURABLE-BODY please read later')
    expect(JSON.stringify(recorded?.data)).toContain(`from-session: ${bravo.sessionId}`)
    // A later session reads it back, labelled as a peer message from B.
    await runHeadless(fx.h, fx.model, 'ROLE:C check on Alpha', { patch })
    const later = resultOf(fx.model, 'sessions_read')
    expect(later).toContain(`peer:${bravo.sessionId}, hop 1`)
    expect(later).toContain('DURABLE-BODY please read later')
  })

  it('refuses without touching the target: resume-disabled, not-found, empty-body, not-messageable for a real subagent', async () => {
    fx.h = makeHome('refusals')
    let alphaId = ''
    let childId = ''
    fx.model = await startFakeModel({
      title: r => (r.allUserText.includes('ROLE:A') ? 'Alpha delegator' : r.allUserText.includes('ROLE:CHILD') ? 'Child helper' : 'Bravo prober'),
      scenario: router({
        // A delegates to a real child session through the harness's own subagent tool.
        'ROLE:A': steps([{ name: 'subagent', args: { description: 'helper', prompt: 'ROLE:CHILD count to three', run_in_background: false } }], 'Alpha got its answer'),
        'ROLE:CHILD': says('one two three'),
        'ROLE:B': steps([
          { name: 'sessions_list', args: { scope: 'all' } },
          () => ({ name: 'sessions_send', args: { session_id: alphaId, message: 'wake up?' } }),
          { name: 'sessions_send', args: { session_id: 'session-00000000-0000-4000-8000-000000000000', message: 'anyone?' } },
          () => ({ name: 'sessions_send', args: { session_id: alphaId, message: ' \n\t ' } }),
          () => ({ name: 'sessions_send', args: { session_id: childId, message: 'hello child' } }),
        ], 'B done'),
      }),
    })
    const patch = writePatch(fx.h, { plugin: { allowResume: false } })
    alphaId = (await runHeadless(fx.h, fx.model, 'ROLE:A delegate a count', { patch })).sessionId
    const child = readSessions(fx.h).find(s => s.header.parentSession !== undefined)
    expect(child, 'the subagent tool persisted a child session').toBeDefined()
    childId = child!.header.id
    // The subagent header shape the plugin's "not messageable" predicate relies on.
    expect(child!.header).toMatchObject({ parentSession: alphaId, origin: 'subagent' })
    expect(fx.model.toolResults('subagent')[0]?.content).toContain('one two three')

    const alphaFile = readSession(fx.h, alphaId).path
    const before = { bytes: readFileSync(alphaFile), mtime: statSync(alphaFile).mtimeMs }
    const childBefore = readFileSync(readSession(fx.h, childId).path)
    await runHeadless(fx.h, fx.model, 'ROLE:B poke at peers', { patch })

    const list = resultOf(fx.model, 'sessions_list')
    expect(list.split('\n').find(l => l.includes(childId))).toMatch(/subagent.*not messageable/)
    expect(resultOf(fx.model, 'sessions_send', 0)).toMatch(/^refused: resume-disabled/)
    expect(resultOf(fx.model, 'sessions_send', 1)).toMatch(/^refused: not-found/)
    expect(resultOf(fx.model, 'sessions_send', 2)).toMatch(/^refused: empty-body/)
    const notMessageable = resultOf(fx.model, 'sessions_send', 3)
    expect(notMessageable).toMatch(/^refused: not-messageable/)
    expect(notMessageable).toContain(alphaId) // names the owning session
    for (const index of [0, 1, 2, 3]) expect(resultOf(fx.model, 'sessions_send', index)).toMatch(/Nothing was delivered/)

    // The refused targets' logs gained no event and no byte.
    expect(readFileSync(alphaFile).equals(before.bytes)).toBe(true)
    expect(statSync(alphaFile).mtimeMs).toBe(before.mtime)
    expect(readFileSync(readSession(fx.h, childId).path).equals(childBefore)).toBe(true)
    // And the model never ran a turn for A or the child in B's run.
    expect(fx.model.requests.filter(r => !r.isTitle && r.allUserText.includes('wake up?')).length).toBe(0)
  })
})
