/**
 * End to end, several real `dsh` processes on one `DSH_HOME` (issue 8): a
 * `dsh web` host holding live sessions beside headless `dsh` runs.
 *
 * Every assertion reads what the harness really did: the tool results the
 * fake model received, the requests it was sent, and the logs the harness
 * persisted under `$DSH_HOME/sessions`.
 * @module test/e2e/cross-process
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startFakeModel, textOf, type FakeModel } from './support/fake-model.ts'
import { assertPrerequisites, makeHome, readSession, runDsh, runHeadless, SKIP_E2E, startWeb, tearDown, transcript, waitFor, writePatch, type DshHome, type PersistedSession, type WebHarness } from './support/harness.ts'
import { router, steps } from './support/scenario.ts'

/** The seqs of a log are exactly 0…n-1 (one contiguous history, no fork). */
function expectContiguous(session: PersistedSession): void {
  expect(session.events.map((event) => event.seq)).toEqual(session.events.map((_, index) => index))
}

/** Framed peer messages (by body marker) in a persisted log. */
function peerMessages(session: PersistedSession, marker: string): Array<{ seq: number; text: string }> {
  return transcript(session).filter((m) => m.role === 'user' && m.text.startsWith('Cross-session message') && m.text.includes(marker))
}

function resultOf(model: FakeModel, tool: string, index = 0): string {
  const result = model.toolResults(tool)[index]
  if (result === undefined) throw new Error(`no result #${index} of ${tool}; got ${JSON.stringify(model.toolResults().map((r) => [r.name, r.content.slice(0, 200)]))}`)
  return result.content
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
        'ROLE:A': (turn) => ({ text: turn.trigger.startsWith('Cross-session message') ? 'ALPHA-SAW-PEER' : 'ALPHA-READY' }),
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
    const list = resultOf(model, 'sessions_list')
    const row = list.split('\n').find((line) => line.includes(alphaId))
    expect(row).toMatch(/\[live, top-level\]/)
    expect(row).toMatch(/live in another dsh process \(pid \d+\)/)
    expect(row).toContain(`pid ${web.child.pid}`)

    const send = resultOf(model, 'sessions_send')
    expect(send).toMatch(new RegExp(`^accepted for ${alphaId} \\| mode=queue .*\\| live in another dsh process \\(pid ${web.child.pid}\\); delivered through the mailbox \\| recorded at seq \\d+`))
    expect(send).not.toMatch(/woke/)

    // The web host's live session took it: its next model request holds the framed message.
    await web.waitIdle(alphaId, { turns: 2 })
    const alphaRequests = model.requests.filter((r) => !r.isTitle && r.allUserText.includes('ROLE:A'))
    const framed = alphaRequests.at(-1)!.messages.map(textOf).find((text) => text.startsWith('Cross-session message'))
    expect(framed).toContain(`from-session: ${bravo.sessionId}`)
    expect(framed).toContain('XP-BODY hello from another process')

    // One contiguous history, holding the message once, its seq as the send said.
    await web.stop()
    const persisted = readSession(h, alphaId)
    expectContiguous(persisted)
    const delivered = peerMessages(persisted, 'XP-BODY')
    expect(delivered).toHaveLength(1)
    expect(send).toContain(`recorded at seq ${delivered[0]!.seq}`)

    // A fresh process reads it (cold now that the web host stopped).
    await runHeadless(h, model, 'ROLE:C read the peer', { patch })
    const read = resultOf(model, 'sessions_read')
    expect(read).toContain(`session ${alphaId} [cold, top-level]`)
    expect(read).toContain('XP-BODY hello from another process')
    expect(read).toContain('ALPHA-SAW-PEER')
    // Nothing left in the mailbox.
    const mailbox = join(h.home, 'cross-session', 'mailbox')
    expect(readdirSync(mailbox).filter((name) => !name.startsWith('.'))).toEqual([])
  })
})
