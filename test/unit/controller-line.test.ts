/**
 * The plugin on a host of the controller line, through the
 * fake built from `@deepseek-ai/dsh-api-session-controller@0.1.2-alpha.2`'s
 * published code (test/support/fake-controller.ts).
 */
import { describe, expect, it } from 'vitest'
import { apply } from '../../src/plugin.js'
import { withController } from '../support/controller-host.js'
import { FakeHost } from '../support/fake-host.js'

const NOT_FOUND = 'refused: not-found | no session with id "session-typo"\nNothing was delivered. Re-run sessions_list for a valid id and pass it exactly as printed.'

function controllerHost(options: { omit?: string[] } = {}) {
  const host = new FakeHost(options)
  const controller = withController(host)
  const agents = host.services.agents as { get: (id: string) => unknown }
  const realGet = agents.get.bind(agents)
  const counts = { get: 0 }
  agents.get = (id: string) => {
    counts.get++
    return realGet(id)
  }
  apply(host.context(), {})
  const me = host.goLive('session-me', 3000)
  return { host, controller, me, counts }
}

describe('on a host with ctx.sessionController (0.1.2-alpha.2)', () => {
  it('an accepted send returns as soon as the message is recorded, with a handful of port calls', async () => {
    const { host, me, counts } = controllerHost()
    host.goLive('session-peer', 1000)
    counts.get = 0
    const text = await host.run('sessions_send', { session_id: 'session-peer', message: 'hi' }, me)
    expect(text).toMatch(/^accepted for session-peer \| mode=queue \| chars=2 \| hop 1 \| recorded at seq \d+/)
    expect(counts.get).toBeLessThanOrEqual(6)
  })

  it('an unknown id is not-found, worded exactly as on rc.8 (inspect throws a plain Error)', async () => {
    const { host, me } = controllerHost()
    expect(await host.run('sessions_send', { session_id: 'session-typo', message: 'hi' }, me)).toBe(NOT_FOUND)
    const rc8 = new FakeHost()
    apply(rc8.context(), {})
    expect(await rc8.run('sessions_send', { session_id: 'session-typo', message: 'hi' }, rc8.goLive('session-me', 1))).toBe(NOT_FOUND)
  })

  it('a wake by resolveAgent is recorded as a wake, and a failed admission after it says what is true', async () => {
    const { host, controller, me } = controllerHost()
    host.persist('session-old', 1000)
    const agents = host.services.agents as { resume: (o: { resumeSessionId: string }) => Promise<{ agent: { followup: unknown } }> }
    const resume = agents.resume.bind(agents)
    agents.resume = async options => {
      const handle = await resume(options)
      handle.agent.followup = () => {
        throw new Error('inbox closed')
      }
      return handle
    }
    const text = await host.run('sessions_send', { session_id: 'session-old', message: 'hi' }, me)
    expect(controller.calls.resolveAgent).toBe(1)
    expect(text).toMatch(/^refused: rejected \| admitting the message failed: session\/agent-busy: the session did not accept input; the session this call woke stays live: it was woken through the host's session controller/)
    // The raw message goes to the log only (docs/architecture.md §5).
    expect(text).not.toContain('inbox closed')
    expect(text).toContain('Check it with sessions_read and send once more after its current turn')
    expect(text).not.toContain('waking it is not allowed')
    expect(text).not.toContain('was not woken by this plugin')
  })

  it('every controller error code gets a refusal that says what to do next', async () => {
    const { host, me } = controllerHost()
    host.persist('session-old', 1000)
    const agents = host.services.agents as { resume: () => Promise<never> }
    agents.resume = async () => {
      throw new Error('disk on fire')
    }
    const text = await host.run('sessions_send', { session_id: 'session-old', message: 'hi' }, me)
    expect(text).toMatch(/^refused: rejected \| resolving the target session failed: gateway\/internal: the host failed internally\n/)
    expect(text).not.toContain('resume failed for session')
    expect(text).toContain('The host failed internally; try sessions_send once more later')
  })

  it('reads sessionController and agentDefaultModel when a call needs them, not only at activation', async () => {
    const host = new FakeHost({ omit: ['agentDefaultModel'] })
    apply(host.context(), {})
    const me = host.goLive('session-me', 3000)
    host.persist('session-a', 1000)
    host.persist('session-b', 1001)
    // Mounted after the plugin:
    host.services.agentDefaultModel = { currentSelection: () => ({ provider: 'p', model: 'm' }) }
    expect(await host.run('sessions_send', { session_id: 'session-a', message: 'hi' }, me)).toContain('(woke a cold session)')
    expect(host.calls).toContain('agents.resume(session-a, {"provider":"p","model":"m"})')
    const controller = withController(host)
    expect(await host.run('sessions_send', { session_id: 'session-b', message: 'hi' }, me)).toContain('(woke a cold session)')
    expect(controller.calls.resolveAgent).toBe(1)
    expect(await host.run('sessions_send', { session_id: 'session-typo', message: 'hi' }, me)).toBe(NOT_FOUND)
    expect(controller.calls.inspect).toBeGreaterThanOrEqual(1)
  })
})
