/**
 * The names of the three tools, spelled once. Every other module — the
 * catalog (`src/tools/catalog.ts`), the presenters, the executors' texts,
 * the log lines and the browser rows — takes a name from here.
 *
 * Names are stable: sessions and transcripts cite them (docs/tools.md#tools).
 * This module imports nothing, so the browser bundle (`src/client/`) can
 * import it without pulling in host code.
 *
 * @module dsh-cross-session/model/tool-names
 */

/** Each tool's name as the model calls it, by a short key. */
export const TOOL_NAMES = {
  list: 'sessions_list',
  read: 'sessions_read',
  send: 'sessions_send',
} as const

/** One tool's name. */
export type ToolName = typeof TOOL_NAMES[keyof typeof TOOL_NAMES]

/** Every tool name, in registration order. */
export const TOOL_NAME_LIST: readonly ToolName[] = Object.values(TOOL_NAMES)

/**
 * Names as a sentence lists them: `a`, `a and b`, `a, b and c`.
 * @param names - tool names (default: all of them, in registration order).
 */
export function spokenToolNames(names: readonly ToolName[] = TOOL_NAME_LIST): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}
