/**
 * The words every catalog text (`src/refusals/catalog.ts`) is built from:
 * what a refused call did not do, and how ids are echoed in a refusal.
 *
 * @module dsh-cross-session/refusals/refusal
 */

import { clipLine, oneLine } from '../core/text.js'

/** What a refused or cancelled call did not do, one sentence per tool. */
export const NOTHING_LISTED = 'Nothing was listed.'
export const NOTHING_READ = 'Nothing was read.'
export const NOTHING_DELIVERED = 'Nothing was delivered.'

/**
 * A session id echoed in a refusal: one line, at most 120 code points. The
 * target id comes from model-written arguments with no length limit, and
 * untrusted values are never echoed unclipped.
 */
export function shownId(sessionId: string): string {
  return clipLine(oneLine(sessionId), 120)
}

/** A session id as shown inside output (one line, at most 200 code points; ids come from backends). */
export function displayId(id: string): string {
  return clipLine(oneLine(id), 200)
}

/** A refusal's words, before its catalog entry gives it its code. */
export type Text = { readonly cause: string, readonly next: string }
