/**
 * Recognise rc.8's JSONL persistence backend from its public `locate()`
 * (`@deepseek-ai/dsh-session-persistence-jsonl@0.1.0-rc.8` `lib/index.js`:
 * `locate(meta)` → `{ kind: 'jsonl', path: <root>/<projectKey(cwd) | _no-cwd>/<encodeSegment(id)>/session.jsonl[.zstd] }`).
 * Any other answer (SQLite's `undefined`, an unknown shape) means "not this
 * backend": the caller then keeps `sessionQuery`.
 *
 * @module dsh-cross-session/index/jsonl-layout
 */

import { basename, dirname, isAbsolute } from 'node:path'
import { zstdDecompress } from '../harness/zstd.js'

/** Where a recognised JSONL backend keeps its logs. */
export interface JsonlLayout {
  readonly root: string
  /** `session.jsonl.zstd` or `session.jsonl`. */
  readonly fileName: string
  readonly compressed: boolean
}

/**
 * The layout of `ctx.sessionPersistence` when it is the rc.8 JSONL backend
 * (its `locate()` answers `kind: 'jsonl'` with the documented path shape),
 * else `undefined` (SQLite and unknown backends: use `sessionQuery`).
 */
export function jsonlLayout(persistence: unknown): JsonlLayout | undefined {
  const locate = (persistence as { locate?: unknown } | null | undefined)?.locate
  if (typeof locate !== 'function') return undefined
  let located: unknown
  try {
    located = locate.call(persistence, { version: 0, id: 'probe', createdAt: 0 })
  } catch {
    return undefined
  }
  const { kind, path } = (located ?? {}) as { kind?: unknown, path?: unknown }
  if (kind !== 'jsonl' || typeof path !== 'string' || !isAbsolute(path)) return undefined
  const fileName = basename(path)
  if (fileName !== 'session.jsonl.zstd' && fileName !== 'session.jsonl') return undefined
  if (basename(dirname(path)) !== 'probe' || basename(dirname(dirname(path))) !== '_no-cwd') return undefined
  const compressed = fileName.endsWith('.zstd')
  if (compressed && zstdDecompress === undefined) return undefined
  return { root: dirname(dirname(dirname(path))), fileName, compressed }
}
