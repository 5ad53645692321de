/**
 * End to end, in the real rc.8 harness: a terminal run prints the result of
 * its user's own task although a peer message and a notice arrived for it
 * during the run (docs/tools.md "A headless run's own
 * task"; docs/architecture.md §8).
 *
 * rc.8's one-shot runner prints the last assistant text of any turn since
 * the task (`@deepseek-ai/dsh-headless@0.1.0-rc.8` lib/index.js
 * `summarize`), so a peer turn in the run would be printed instead. Here:
 * a headless run A whose task takes three model steps sends to C (live in a
 * `dsh web` host) with a notice asked; while A's task still runs, C answers
 * (the notice for A is posted) and B, also in the web host, sends A a
 * message. A's stdout is its task's result; stderr tells of both apart;
 * neither reached A's model in the run; both wait in the store, and once
 * the run has ended the web host delivers them, each once.
 * @module test/e2e/headless-result
 */
import { describe, expect, it } from 'vitest'
import { isInjected, resultOf, startFakeModel, type FakeModel, type ModelRequest } from './support/fake-model.ts'
import { homeFixture, makeHome, readSession, runHeadless, SKIP_E2E, startWeb, transcript, waitFor, writePatch } from './support/harness.ts'
import { expectContiguous } from './support/logs.ts'
import { firstUserText, router, steps } from './support/scenario.ts'
import { readStore } from './support/store.ts'

const NOTICE = 'Cross-session notice from the dsh-cross-session package'
const PEER = 'Cross-session message'

/** Requests a session's model got (routed by its first prompt), title requests aside. */
function requestsOf(model: FakeModel, marker: string): ModelRequest[] {
  return model.requests.filter(r => !r.isTitle && firstUserText(r).includes(marker))
}

describe.skipIf(SKIP_E2E)('a headless run\'s own result', () => {
  const fx = homeFixture()

  it('prints its task\'s result although a peer message and a notice arrived during the run; both wait, are told on stderr, and are delivered once later', async () => {
    fx.h = makeHome('hr-term')
    let aId = ''
    let bId = ''
    let cId = ''
    let lastOfRun = -1 // the index of the run's last model request
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:C': turn => ({ text: turn.trigger.startsWith(PEER) ? 'C-ANSWER to A' : 'C-READY' }),
        'ROLE:B': turn => turn.trigger.includes('message A')
          ? steps([() => ({ name: 'sessions_send', args: { session_id: aId, message: 'B-BODY what are you doing?' } })], 'B sent')(turn)
          : { text: 'B-READY' },
        'ROLE:A': turn => {
          if (turn.trigger.startsWith(PEER)) return { text: 'A-ANSWER-TO-PEER' }
          if (turn.trigger.startsWith(NOTICE)) return { text: 'A-ANSWER-TO-NOTICE' }
          if (!turn.trigger.includes('ROLE:A do the task')) return { text: 'A-BACK' }
          return steps([
            () => ({ name: 'sessions_send', args: { session_id: cId, message: 'C-BODY please look', notify: true } }),
            async () => {
              // Mid-task: C's turn has ended (its notice for A is posted), then B sends A a message.
              aId = readStore(fx.h!).messages.find(m => m.target === cId)!.sender
              await waitFor(() => readStore(fx.h!).messages.some(m => m.target === aId && m.notice !== null), 'the notice for A to be posted')
              await fx.web!.prompt(bId, 'ROLE:B message A')
              await waitFor(() => readStore(fx.h!).messages.some(m => m.target === aId && m.sender === bId), 'B\'s message for A to be posted')
              await fx.web!.waitIdle(bId, { turns: 2 })
              return { name: 'sessions_list', args: {} }
            },
          ], last => {
            lastOfRun = last.request.index
            return 'A-TASK-RESULT the task is done'
          })(turn)
        },
      }),
    })
    const patch = writePatch(fx.h, { plugin: { recordWaitMs: 1500 } })
    fx.web = await startWeb(fx.h, fx.model, { patch })
    cId = (await fx.web.create()).sessionId
    await fx.web.prompt(cId, 'ROLE:C stay around')
    await fx.web.waitIdle(cId)
    bId = (await fx.web.create()).sessionId
    await fx.web.prompt(bId, 'ROLE:B stay around')
    await fx.web.waitIdle(bId)

    const run = await runHeadless(fx.h, fx.model, 'ROLE:A do the task', { patch })
    expect(run.sessionId).toBe(aId)
    // The terminal's answer is the task's; the two arrivals are told apart, on stderr.
    expect(run.stdout).toBe('A-TASK-RESULT the task is done\n')
    const told = run.stderr.split('\n').filter(line => line.startsWith('dsh-cross-session:'))
    expect(told).toEqual([
      `dsh-cross-session: a notice (session ${cId}: turn completed) arrived for ${aId} during this run; it waits in the cross-session store for that session's next turn (this run prints only its own task's answer).`,
      `dsh-cross-session: a message from session ${bId} arrived for ${aId} during this run; it waits in the cross-session store for that session's next turn (this run prints only its own task's answer).`,
    ])
    // Nothing of either reached A's model in the run: one turn, three steps.
    const asked = requestsOf(fx.model, 'ROLE:A').filter(r => r.index <= lastOfRun)
    expect(asked).toHaveLength(3)
    expect(asked.some(r => r.allUserText.includes(NOTICE) || r.allUserText.includes('B-BODY'))).toBe(false)
    // B was told the truth: its message waits in the store, not seen in A's conversation.
    const sent = resultOf(fx.model, 'sessions_send', 1)
    const [head, body] = sent.split('\n')
    expect(head).toMatch(new RegExp(`^accepted for ${aId} \\| mode=queue \\| chars=26 \\| hop 1 \\| the task session of a headless run \\(pid \\d+\\), `
      + 'which takes no peer message while it runs; delivered through the mailbox \\| pending in the mailbox until that run has ended$'))
    expect(body).toBe('That run prints only its own task\'s answer, so the message waits in the cross-session store under DSH_HOME and becomes '
      + 'that session\'s next turn once the run has ended (the next process that holds the session delivers it); '
      + 'this call did not see it reach that session. Its reply will not return through this call; read it later with sessions_read.')

    // Once the run has ended, nothing is lost: the web host takes A for B's message (B allowed waking) and
    // delivers both, each once.
    await waitFor(() => readStore(fx.h!).messages.filter(m => m.target === aId).every(m => m.state === 'recorded') || undefined,
      'both messages for A to be recorded')
    await fx.web.waitIdle(aId, { turns: 2 })
    await fx.web.stop()
    const log = readSession(fx.h, aId)
    expectContiguous(log)
    const users = transcript(log).filter(m => m.role === 'user').map(m => m.text)
    expect(users.filter(text => text.startsWith(NOTICE))).toHaveLength(1)
    expect(users.filter(text => text.includes('B-BODY'))).toHaveLength(1)
    // The run's own turn came first, and its last text is the one the terminal printed.
    const runEnd = log.events.find(e => e.type === 'turn/end')!.seq
    expect(transcript(log).filter(m => m.seq < runEnd && m.role === 'assistant' && m.text !== '').map(m => m.text))
      .toEqual(['A-TASK-RESULT the task is done'])
    expect(transcript(log).filter(m => m.role === 'user' && m.seq < runEnd && !isInjected(m.text)).map(m => m.text)).toEqual(['ROLE:A do the task'])
  })

  it('a session the run woke answers with a message to the run\'s own task: kept in the store, the terminal prints the task\'s result', async () => {
    fx.h = makeHome('hr-local')
    let tId = ''
    let aId = ''
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': turn => {
          if (!turn.trigger.startsWith(PEER)) return { text: 'T-READY' }
          return steps([() => {
            aId = /^from-session: (\S+) /m.exec(turn.trigger)![1]!
            return { name: 'sessions_send', args: { session_id: aId, message: 'T-REPLY-BODY here is my answer' } }
          }], 'T done')(turn)
        },
        'ROLE:A': turn => turn.trigger.includes('ROLE:A ask T')
          ? steps([() => ({ name: 'sessions_send', args: { session_id: tId, message: 'A-ASKS please answer me' } })], 'A-TASK-RESULT asked and done')(turn)
          : { text: turn.trigger.includes('T-REPLY-BODY') ? 'A-ANSWER-TO-PEER' : 'A-BACK' },
      }),
    })
    const patch = writePatch(fx.h)
    tId = (await runHeadless(fx.h, fx.model, 'ROLE:T be cold', { patch })).sessionId
    // No long-lived host: the run wakes T itself and waits for T's turn, in which T sends to A (live in the same process).
    const run = await runHeadless(fx.h, fx.model, 'ROLE:A ask T', { patch })
    expect(run.sessionId).toBe(aId)
    expect(resultOf(fx.model, 'sessions_send', 1)).toMatch(/\(woke a cold session\) \| recorded at seq \d+ \| its turn ended \(completed\)/)
    expect(run.stdout).toBe('A-TASK-RESULT asked and done\n')
    expect(run.stderr.split('\n').filter(line => line.startsWith('dsh-cross-session:'))).toEqual([
      `dsh-cross-session: a message from session ${tId} arrived for ${aId} during this run; it waits in the cross-session store for that session's next turn (this run prints only its own task's answer).`,
    ])
    // T's send returned first (A's waited for T's turn to end).
    const [head] = resultOf(fx.model, 'sessions_send', 0).split('\n')
    expect(head).toMatch(/ \| the task session of a headless run \(pid \d+\), which takes no peer message while it runs; delivered through the mailbox \| pending in the mailbox until that run has ended$/)
    expect(readStore(fx.h).messages.filter(m => m.target === aId).map(m => [m.sender, m.state, m.may_wake])).toEqual([[tId, 'pending', 1]])
    expect(transcript(readSession(fx.h, aId)).some(m => m.text.includes('T-REPLY-BODY'))).toBe(false)
    // A long-lived host on the home takes A for it (T allowed waking) and delivers it once.
    fx.web = await startWeb(fx.h, fx.model, { patch })
    await waitFor(() => readStore(fx.h!).messages.find(m => m.target === aId && m.state === 'recorded'), 'T\'s message for A to be recorded')
    await fx.web.waitIdle(aId, { turns: 2 })
    await fx.web.stop()
    const log = readSession(fx.h, aId)
    expectContiguous(log)
    expect(transcript(log).filter(m => m.role === 'user' && m.text.includes('T-REPLY-BODY'))).toHaveLength(1)
    expect(transcript(log).filter(m => m.role === 'assistant').map(m => m.text)).toContain('A-ANSWER-TO-PEER')
  })
})
