/**
 * End to end, headless profile: a provider that repeats a tool call id
 * (`call_0` in every response) must not turn a new send into a "retry"
 * (docs/tools.md "sessions_send", retries). Retry identity is the caller, the call id and the arguments.
 * @module test/e2e/repeated-call-ids
 */
import { describe, expect, it } from 'vitest'
import { startFakeModel, textOf } from './support/fake-model.ts'
import { homeFixture, makeHome, readSession, runHeadless, SKIP_E2E, transcript, writePatch } from './support/harness.ts'
import { router, says, steps } from './support/scenario.ts'

describe.skipIf(SKIP_E2E)('repeated tool call ids (headless profile)', () => {
  const fx = homeFixture()

  it('two sends with the same call id and other arguments both deliver', async () => {
    fx.h = makeHome('call-0')
    const ids: Record<string, string> = {}
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': says('resting'),
        'ROLE:S': steps([
          () => ({ calls: [{ id: 'call_0', name: 'sessions_send', args: { session_id: ids.T1!, message: 'BODY-X for T1' } }] }),
          () => ({ calls: [{ id: 'call_0', name: 'sessions_send', args: { session_id: ids.T2!, message: 'BODY-Y for T2' } }] }),
        ], 'S done'),
      }),
    })
    const patch = writePatch(fx.h, { plugin: { allowResume: true } })
    ids.T1 = (await runHeadless(fx.h, fx.model, 'ROLE:T one', { patch })).sessionId
    ids.T2 = (await runHeadless(fx.h, fx.model, 'ROLE:T two', { patch })).sessionId
    await runHeadless(fx.h, fx.model, 'ROLE:S send twice', { patch })

    // The tool results S's model received, in order (read from the requests: both carry id call_0).
    const results = fx.model.requests.flatMap(r => r.messages.filter(m => m.role === 'tool' && m.tool_call_id === 'call_0').map(textOf))
    const distinct = [...new Set(results)]
    expect(distinct[0]).toMatch(new RegExp(`^accepted for ${ids.T1}`))
    expect(distinct[1]).toMatch(new RegExp(`^accepted for ${ids.T2}`))
    expect(distinct[1]).not.toContain('not delivered again')
    expect(transcript(readSession(fx.h, ids.T2)).some(l => l.role === 'user' && l.text.includes('BODY-Y for T2'))).toBe(true)
    expect(transcript(readSession(fx.h, ids.T1)).some(l => l.role === 'user' && l.text.includes('BODY-X for T1'))).toBe(true)
  })
})
