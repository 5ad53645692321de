/**
 * What the three tool executors share: their dependencies.
 *
 * @module dsh-cross-session/tools/shared
 */

import type { SendLimits } from '../limits.js'
import type { ControllerPort, SessionQueryPort } from '../ports.js'
import type { DiagnosticSink } from '../service-boundary.js'
import type { Settings } from '../settings.js'

/** Everything a tool executor depends on (built once per plugin instance). */
export interface ToolDeps {
  readonly sessions: SessionQueryPort
  readonly controller: ControllerPort
  readonly settings: Settings
  readonly limits: SendLimits
  /** Full diagnostics (stacks) go here, never to the model. */
  readonly log: DiagnosticSink
}
