/**
 * What the three tool executors share: their dependencies and the few
 * rendering helpers used by more than one tool.
 *
 * @module dsh-cross-session/tools/shared
 */

import type { DiagnosticSink } from '../service-boundary.js'
import type { SendLimits } from '../limits.js'
import type { ControllerPort, SessionHeaderView, SessionQueryPort } from '../ports.js'
import type { Settings } from '../settings.js'
import { clipLine, clipLineStart, oneLine } from '../text.js'

/** Everything a tool executor depends on (built once per plugin instance). */
export interface ToolDeps {
  readonly sessions: SessionQueryPort
  readonly controller: ControllerPort
  readonly settings: Settings
  readonly limits: SendLimits
  /** Full diagnostics (stacks) go here, never to the model. */
  readonly log: DiagnosticSink
}

/** Longest title shown in list and read output, in code points. */
export const TITLE_MAX_CHARS = 120
/** Longest workspace path shown, in code points (the end is kept: it names the project). */
export const CWD_MAX_CHARS = 120

/** A title as shown: one line, clipped; `(untitled)` when there is none. */
export function displayTitle(title: string | undefined): string {
  const line = title === undefined ? '' : clipLine(oneLine(title), TITLE_MAX_CHARS)
  return line.length > 0 ? line : '(untitled)'
}

/** ` | cwd=… | preset=…` metadata of a list or read row (absent fields omitted). */
export function metadataSuffix(header: SessionHeaderView): string {
  let suffix = ''
  if (header.cwd !== undefined) suffix += ` | cwd=${displayPath(header.cwd)}`
  if (header.agentPreset !== undefined) suffix += ` | preset=${clipLine(oneLine(header.agentPreset), 60)}`
  return suffix
}

function displayPath(path: string): string {
  // Keep the end on a grapheme boundary (issue 11 §6: a code-point slice orphaned combining marks).
  return clipLineStart(oneLine(path), CWD_MAX_CHARS)
}

/** A session id as shown inside output (one line; ids come from backends). */
export function displayId(id: string): string {
  return clipLine(oneLine(id), 200)
}
