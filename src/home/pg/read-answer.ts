/**
 * What a read of another machine's session carries through the PostgreSQL
 * store (docs/architecture.md §8 "Several machines", "Reads asked of another
 * machine"): the request the asker writes, the answer the session's machine
 * writes, and how the asker reads that answer back. Both ends are this
 * package; the answer still comes from another machine (maybe of another
 * release), so it is read defensively and never throws.
 *
 * The answer is JSON text, versioned (`v`), one of:
 * - `{ "v": 1, "surface": SurfaceView }` — the session's current surface
 *   (`ports/session-query.ts`), as the local `readSurface` gave it;
 * - `{ "v": 1, "found": false }` — no such session on that machine;
 * - `{ "v": 1, "failed": "<short reason>" }` — the read threw (a reason of a
 *   few words or an error code, never a message, a path or a stack);
 * - `{ "v": 1, "tooLarge": true }` — the surface's JSON is over
 *   {@link READ_ANSWER_MAX_BYTES}.
 *
 * Pure.
 *
 * @module dsh-cross-session/home/pg/read-answer
 */

import { readHeader } from '../../model/sessions.js'
import type { SurfaceView } from '../../ports/session-query.js'
import type { PgEvent } from './pg-sync-protocol.js'

/**
 * Largest answer, in UTF-8 bytes of its JSON: 8 MiB. The answer is one `text` value written in one statement,
 * crosses the store's worker thread whole and is parsed on the reader's event loop; a surface over this is
 * refused readably (`tooLarge`) rather than moved.
 */
export const READ_ANSWER_MAX_BYTES = 8 * 1024 * 1024

/** The one request this release asks: the session's whole current surface (the reader windows it itself). */
export const SURFACE_REQUEST = '{"v":1,"read":"surface"}'

/** The store calls both ends make: `PgSync`'s (`home/pg/pg-sync.ts`), or a fake of them. */
export interface ReadStore {
  /** Run a `PgStore` method (`home/pg/pg-reads.ts`) without blocking. @throws a store fault when the store cannot be used. */
  callAsync<T>(method: string, args: readonly unknown[]): Promise<T>
  /** Hear `{ changed: true }` when another process changed the store. @returns its removal. */
  listen(listener: (event: PgEvent) => void): () => void
}

/** What an answer says, as the reader reads it (a part of `RemoteRead`, `home/pg/remote-read.ts`). */
export type AnswerRead =
  | { readonly kind: 'surface', readonly surface: SurfaceView }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'failed', readonly why: string }
  | { readonly kind: 'too-large' }

/** Longest reason read from another machine's answer, characters. */
const MAX_WHY_CHARS = 160

/** The answer for `surface` (`undefined`: no such session). @throws what `JSON.stringify` throws (a cycle, a bigint). */
export function surfaceAnswer(surface: SurfaceView | undefined): string {
  if (surface === undefined) return JSON.stringify({ v: 1, found: false })
  const text = JSON.stringify({ v: 1, surface })
  return Buffer.byteLength(text, 'utf8') > READ_ANSWER_MAX_BYTES ? JSON.stringify({ v: 1, tooLarge: true }) : text
}

/** The answer of a read that failed; `why` is a short reason of this package's words (no message, no path). */
export function failedAnswer(why: string): string {
  return JSON.stringify({ v: 1, failed: why })
}

/** Whether `request` is one this release answers ({@link SURFACE_REQUEST}, in any key order). */
export function isSurfaceRequest(request: string): boolean {
  try {
    const raw: unknown = JSON.parse(request)
    return isRecord(raw) && raw.v === 1 && raw.read === 'surface'
  } catch {
    return false
  }
}

/**
 * A read's failure in a few words: the error's code (`ENOENT`) or class name (`TypeError`) when it has a plain
 * one, never its message (which may hold a path) or its stack.
 */
export function shortReason(error: unknown): string {
  const { code, name } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown, name?: unknown }
  const plain = [code, name].find(value => typeof value === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(value))
  return plain === undefined ? 'the session could not be read' : `the session could not be read (${String(plain)})`
}

/**
 * Read an answer written by another machine. Never throws: anything but one of the four shapes above (not JSON,
 * another version, a surface without a usable header, `events` not an array) is `failed`; an answer over
 * {@link READ_ANSWER_MAX_BYTES} is `too-large`, whatever it says.
 */
export function readAnswer(text: string): AnswerRead {
  if (Buffer.byteLength(text, 'utf8') > READ_ANSWER_MAX_BYTES) return { kind: 'too-large' }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return { kind: 'failed', why: 'the answer is not JSON' }
  }
  if (!isRecord(raw) || raw.v !== 1) return { kind: 'failed', why: 'an answer of another release' }
  if (raw.tooLarge === true) return { kind: 'too-large' }
  if (raw.found === false) return { kind: 'not-found' }
  if (raw.failed !== undefined) return { kind: 'failed', why: cleanWhy(raw.failed) }
  const surface = readSurfaceView(raw.surface)
  return surface === undefined ? { kind: 'failed', why: 'the answer holds no readable surface' } : { kind: 'surface', surface }
}

/** A surface read from untrusted JSON: a header {@link readHeader} accepts, a seq or `null`, an array of events. */
function readSurfaceView(raw: unknown): SurfaceView | undefined {
  if (!isRecord(raw) || !Array.isArray(raw.events)) return undefined
  const session = readHeader(raw.session)
  const seq = raw.capturedThroughSeq
  if (session === undefined || !(seq === null || (typeof seq === 'number' && Number.isFinite(seq)))) return undefined
  return { session, capturedThroughSeq: seq, events: raw.events }
}

/**
 * Another machine's reason, made safe to show: a string, its first line only (a stack's frames follow the first
 * line), no control characters, at most {@link MAX_WHY_CHARS}.
 */
function cleanWhy(raw: unknown): string {
  if (typeof raw !== 'string') return 'the read failed on its machine'
  const line = (raw.split(/[\r\n]/, 1)[0] ?? '').replace(/\p{Cc}+/gu, ' ').replace(/\s+/g, ' ').trim()
  if (line.length === 0) return 'the read failed on its machine'
  return line.length > MAX_WHY_CHARS ? `${line.slice(0, MAX_WHY_CHARS - 1)}…` : line
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
