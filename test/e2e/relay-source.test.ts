/**
 * End to end, headless profile: the relay source and frames off (docs/tools.md "The frame").
 *
 * Proves, in the real rc.8 harness, the decision to deliver with
 * `{ kind: 'plugin', plugin: 'dsh-cross-session', form: 'relay',
 * senderSessionId, hop }` (src/provenance.ts):
 * - the model of the target receives the message as a user-role turn, and a
 *   `queue` delivery starts the target's turn;
 * - the provenance is in the persisted log, and reads label it `peer:<id>`;
 * - with `frameMessages: false`, a relay chain is still refused at `maxHops`.
 * @module test/e2e/relay-source
 */
import { describe, expect, it } from 'vitest'
import { startFakeModel, textOf } from './support/fake-model.ts'
import { homeFixture, makeHome, readSession, runHeadless, SKIP_E2E, sleep, transcript, waitFor, writePatch } from './support/harness.ts'
import { router, sleeperScenario, steps } from './support/scenario.ts'

describe.skipIf(SKIP_E2E)('relay source, frames off (headless profile)', () => {
  const fx = homeFixture()

  it('a relay-sourced queue delivery starts the target\'s turn as a user message, and its provenance is durable', async () => {
    fx.h = makeHome('relay-source')
    let alphaId = ''
    const sleeper = sleeperScenario({ target: () => alphaId, body: 'RAW-BODY-42 please answer', isPeerMessage: trigger => trigger === 'RAW-BODY-42 please answer', reply: 'ALPHA-GOT-IT' })
    fx.model = await startFakeModel({ title: sleeper.title, scenario: router(sleeper.actors) })
    const patch = writePatch(fx.h, { plugin: { allowResume: true, frameMessages: false } })
    alphaId = (await runHeadless(fx.h, fx.model, 'ROLE:A take a nap', { patch })).sessionId
    const bravo = await runHeadless(fx.h, fx.model, 'ROLE:B wake your peer', { patch })

    expect(fx.model.toolResults('sessions_send')[0]?.content).toMatch(new RegExp(`^accepted for ${alphaId} .*\\(woke a cold session\\) \\| recorded at seq \\d+`))
    // The model of A received the delivered body as a user-role message, and it started a turn.
    const alphaTurn = fx.model.requests.find(r => !r.isTitle && r.messages.some(m => m.role === 'user' && textOf(m) === 'RAW-BODY-42 please answer'))
    expect(alphaTurn, 'a model request of A carrying the delivered body as a user message').toBeDefined()
    const alpha = readSession(fx.h, alphaId)
    expect(alpha.events.filter(e => e.type === 'turn/start').length).toBe(2)
    // The log records the provenance in the source, where no model can write.
    const delivered = transcript(alpha).find(l => l.role === 'user' && l.text === 'RAW-BODY-42 please answer')
    expect(delivered?.source).toEqual({ kind: 'plugin', plugin: 'dsh-cross-session', form: 'relay', senderSessionId: bravo.sessionId, hop: 1 })
    const reply = transcript(alpha).find(l => l.role === 'assistant' && l.text.includes('ALPHA-GOT-IT'))
    expect(reply!.seq).toBeGreaterThan(delivered!.seq)
    // Reads label it from the recorded source.
    expect(fx.model.toolResults('sessions_read')[0]?.content).toContain(`peer:${bravo.sessionId}, hop 1) ---\nRAW-BODY-42 please answer`)
  })

  it('with frameMessages: false a three-session relay loop is refused at maxHops', async () => {
    fx.h = makeHome('relay-loop')
    const ids: Record<string, string> = {}
    const next: Record<string, string> = { D: 'A', A: 'B', B: 'C', C: 'A' }
    let sends = 0
    let refusedSeen = false
    const relayOn = (role: string) => {
      sends++
      return { calls: [{ name: 'sessions_send', args: { session_id: ids[next[role]!]!, message: `relay ${sends} from ${role}`, mode: 'queue' } }] }
    }
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:D': steps([() => relayOn('D'), async () => {
          // Keep D's headless process (which hosts the woken sessions) open until the chain is refused.
          await waitFor(() => refusedSeen, 'the relay chain to be refused', 60_000)
          await sleep(1000)
          return { text: 'D done' }
        }], 'D done'),
        ...Object.fromEntries(['A', 'B', 'C'].map(role => [`ROLE:${role}`, (turn: { step: number, trigger: string, results: Array<{ content: string }> }) => {
          if (turn.results.some(r => r.content.startsWith('refused'))) refusedSeen = true
          if (turn.step > 0 || !turn.trigger.startsWith('relay ') || sends >= 12) return { text: `${role} rests` }
          return relayOn(role)
        }])),
      }),
    })
    const patch = writePatch(fx.h, { plugin: { allowResume: true, frameMessages: false, maxHops: 3 } })
    for (const role of ['A', 'B', 'C']) ids[role] = (await runHeadless(fx.h, fx.model, `ROLE:${role} idle`, { patch })).sessionId
    await runHeadless(fx.h, fx.model, 'ROLE:D start the relay', { patch })
    const results = fx.model.toolResults('sessions_send').map(r => r.content)
    // D → A (hop 1), A → B (hop 2), B → C (hop 3), C → A refused (hop 4).
    expect(results.filter(r => r.startsWith('accepted')).length, JSON.stringify(results, null, 1)).toBe(3)
    expect(results.filter(r => r.startsWith('refused: rate-limited | this would be hop 4 of a relay chain limited to 3 hops')).length).toBe(1)
    expect(sends).toBe(4)
  })
})
