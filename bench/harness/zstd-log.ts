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

const ZSTD_MAGIC = 0xfd2fb528

/** Split a concatenation of Zstandard frames into frames (no torn-tail support needed here). */
export function splitFrames(buffer: Buffer): Buffer[] {
  const frames: Buffer[] = []
  let offset = 0
  while (offset < buffer.length) {
    const start = offset
    if (buffer.readUInt32LE(offset) !== ZSTD_MAGIC) throw new Error(`not a Zstandard frame at byte ${offset}`)
    offset += 4
    const descriptor = buffer.readUInt8(offset)
    offset += 1
    const contentSizeFlag = descriptor >>> 6
    const singleSegment = (descriptor & 32) !== 0
    const checksum = (descriptor & 4) !== 0
    const dictionaryFlag = descriptor & 3
    const dictionaryBytes = dictionaryFlag === 3 ? 4 : dictionaryFlag
    const contentSizeBytes = contentSizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << contentSizeFlag
    offset += (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes
    for (;;) {
      const blockHeader = buffer.readUIntLE(offset, 3)
      offset += 3
      const blockType = (blockHeader >>> 1) & 3
      offset += blockType === 1 ? 1 : blockHeader >>> 3
      if ((blockHeader & 1) !== 0) break
    }
    if (checksum) offset += 4
    frames.push(buffer.subarray(start, offset))
  }
  return frames
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

/** Port of rc.8 `encodeSegment` (one path segment, e.g. a session id). */
export function encodeSegment(raw: string): string {
  if (raw === '.') return '~002E'
  if (raw === '..') return '~002E~002E'
  let out = ''
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i)
    const ch = String.fromCharCode(code)
    out += ch !== '~' && /^[A-Za-z0-9._-]$/.test(ch) ? ch : `~${code.toString(16).toUpperCase().padStart(4, '0')}`
  }
  return out
}

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
