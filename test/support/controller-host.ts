/**
 * Mount the published-code controller fake (`fake-controller.ts`,
 * 0.1.2-alpha.2) on a {@link FakeHost}, as a host of the controller line
 * composes `ctx.sessionController` beside `ctx.agents`.
 *
 * @module test/support/controller-host
 */

import type { HostAgent, HostAgentHandle } from '../../src/testing.js'
import { FakeSessionController } from './fake-controller.js'
import type { FakeHost } from './fake-host.js'

/** Add `sessionController` to `host` (optionally later, to test late mounting). */
export function withController(host: FakeHost): FakeSessionController {
  const agents = host.services.agents as { get(id: string): HostAgent | undefined, resume(o: { resumeSessionId: string }): Promise<HostAgentHandle> }
  const controller = new FakeSessionController({
    agents,
    persistedHeader: id => host.persisted.get(id)?.header,
    persistedEvents: id => host.persisted.get(id)?.events ?? [],
  })
  host.services.sessionController = controller
  return controller
}
