/**
 * Read and write rc.8 JSONL session logs (`session.jsonl.zstd`) the way
 * `@deepseek-ai/dsh-session-persistence-jsonl` does, so the benchmark can copy
 * real persisted sessions into a larger corpus faithfully.
 *
 * Format, read from that package's `lib/index.js` (rc.8): one file per
 * session at `<DSH_HOME>/sessions/<projectKey(cwd)>/<encodeSegment(id)>/
 * session.jsonl.zstd`; the first Zstandard frame holds exactly the header
 * line, every later frame one durable batch of event lines; each frame is
 * independently decodable and checksummed. `projectKey` and `encodeSegment`
 * below are ports of the package's functions of the same names.
 *
 * @module bench/harness/zstd-log
 */

import { join } from 'node:path'
import { constants, zstdCompressSync, zstdDecompressSync } from 'node:zlib'
import { encodeSegment } from '../../src/index/plan.js'
import { scanFrames } from '../../src/harness/zstd.js'

/** Split a concatenation of Zstandard frames (the package's own frame scanner). */
export function splitFrames(buffer: Buffer): Buffer[] {
  return scanFrames(buffer).map(frame => buffer.subarray(frame.start, frame.end))
}

/** The whole JSONL text of a stored log (header line first). */
export function decodeLog(buffer: Buffer): string {
  return splitFrames(buffer).map(frame => zstdDecompressSync(frame).toString('utf8')).join('')
}

/** One checksummed frame, as the harness's `compressZstdFrame` makes it. */
function frame(text: string): Buffer {
  return zstdCompressSync(Buffer.from(text, 'utf8'), { params: { [constants.ZSTD_c_checksumFlag]: 1 } })
}

/**
 * Encode a log as the harness materialises a new session: a header frame,
 * then one frame of event lines.
 */
export function encodeLog(headerLine: string, eventLines: readonly string[]): Buffer {
  return Buffer.concat([frame(`${headerLine}\n`), frame(`${eventLines.join('\n')}\n`)])
}

/** rc.8 `encodeSegment` (one path segment, e.g. a session id): the package's own port. */
export { encodeSegment }

/** Port of rc.8 `projectKey` (the project directory of a workspace path). */
export function projectKey(cwd: string): string {
  let readable = ''
  let separatorRun = false
  for (let i = 0; i < cwd.length; i++) {
    const code = cwd.charCodeAt(i)
    const ch = String.fromCharCode(code)
    if (ch === '/' || ch === '\\' || ch === ':') {
      if (!separatorRun) readable += '-'
      separatorRun = true
    } else if (ch !== '~' && /^[A-Za-z0-9._-]$/.test(ch)) {
      readable += ch
      separatorRun = false
    } else {
      readable += `~${code.toString(16).toUpperCase().padStart(4, '0')}`
      separatorRun = false
    }
  }
  return `--${(readable.replace(/^-+/, '') || 'root').slice(0, 251)}--`
}

/** Where the harness stores a session's log under `DSH_HOME`. */
export function logPathOf(home: string, cwd: string | undefined, id: string): string {
  const project = cwd === undefined ? '_no-cwd' : projectKey(cwd)
  return join(home, 'sessions', project, encodeSegment(id), 'session.jsonl.zstd')
}
