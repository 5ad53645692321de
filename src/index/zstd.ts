/**
 * Zstandard frame boundaries and decoding for rc.8 JSONL session logs.
 *
 * Source: `@deepseek-ai/dsh-session-persistence-jsonl@0.1.0-rc.8`
 * `lib/index.js` `scanZstdFrames` (ported below: the first frame of a log
 * holds exactly the header line; every later frame one durable batch of event
 * lines; a structurally incomplete final frame is a torn tail the harness
 * never shows, so it is not decoded here either). Decoding uses `node:zlib`
 * (`zstdDecompressSync`, Node ≥ 22.15), the same decoder the harness uses.
 *
 * @module dsh-cross-session/index/zstd
 */

import * as zlib from 'node:zlib'

const ZSTD_MAGIC = 0xfd2fb528

/** One complete frame, as byte offsets into the buffer. */
export interface FrameRange {
  readonly start: number
  readonly end: number
}

/**
 * Complete frames of `buffer`, at most `maxFrames`; stops (without error) at
 * a torn final frame. Throws on a corrupt structure (bad magic, reserved bits).
 */
export function scanFrames(buffer: Uint8Array, maxFrames = Number.POSITIVE_INFINITY): FrameRange[] {
  const view = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength)
  const frames: FrameRange[] = []
  let offset = 0
  while (offset < view.length && frames.length < maxFrames) {
    const start = offset
    if (view.length - offset < 5) return frames
    if (view.readUInt32LE(offset) !== ZSTD_MAGIC) throw new Error(`corrupt Zstandard session log: invalid frame magic at byte ${offset}`)
    const descriptor = view.readUInt8(offset + 4)
    offset += 5
    if ((descriptor & 24) !== 0) throw new Error(`corrupt Zstandard session log: reserved frame-header bit at byte ${offset - 1}`)
    const contentSizeFlag = descriptor >>> 6
    const singleSegment = (descriptor & 32) !== 0
    const dictionaryFlag = descriptor & 3
    const dictionaryBytes = dictionaryFlag === 3 ? 4 : dictionaryFlag
    const contentSizeBytes = contentSizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << contentSizeFlag
    offset += (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes
    for (;;) {
      if (view.length - offset < 3) return frames
      const blockHeader = view.readUIntLE(offset, 3)
      offset += 3
      const blockType = (blockHeader >>> 1) & 3
      if (blockType === 3) throw new Error(`corrupt Zstandard session log: reserved block type at byte ${offset - 3}`)
      offset += blockType === 1 ? 1 : blockHeader >>> 3
      if (offset > view.length) return frames
      if ((blockHeader & 1) !== 0) break
    }
    if ((descriptor & 4) !== 0) offset += 4
    if (offset > view.length) return frames
    frames.push({ start, end: offset })
  }
  return frames
}

type Decompress = (input: Uint8Array) => Buffer

/** `zlib.zstdDecompressSync` when this Node has it (≥ 22.15), else `undefined`. */
export const zstdDecompress: Decompress | undefined = typeof (zlib as { zstdDecompressSync?: unknown }).zstdDecompressSync === 'function'
  ? (zlib as unknown as { zstdDecompressSync: Decompress }).zstdDecompressSync
  : undefined

/** Decode the given complete frames to UTF-8 text (checksums verified by zlib). */
export function decodeFrames(buffer: Uint8Array, frames: readonly FrameRange[]): string {
  if (zstdDecompress === undefined) throw new Error('this Node has no zstd decoder (node:zlib zstdDecompressSync, Node >= 22.15)')
  const parts: string[] = []
  for (const frame of frames) parts.push(zstdDecompress(buffer.subarray(frame.start, frame.end)).toString('utf8'))
  return parts.join('')
}
