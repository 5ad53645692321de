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
 * @module dsh-cross-session/harness/zstd
 */

import * as zlib from 'node:zlib'

const ZSTD_MAGIC = 0xfd2fb528

/** One complete frame, as byte offsets into the buffer. */
interface FrameRange {
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

/**
 * The decompressed size a frame's header declares (`Frame_Content_Size`,
 * RFC 8878 §3.1.1.1), or `undefined` when the header leaves it out or is
 * too short. Only a hint for sizing the output: the decoder still checks it.
 */
export function frameContentSize(frame: Uint8Array): number | undefined {
  if (frame.length < 6) return undefined
  const descriptor = frame[4]!
  const flag = descriptor >>> 6
  const singleSegment = (descriptor & 32) !== 0
  const dictionaryFlag = descriptor & 3
  const bytes = flag === 0 ? (singleSegment ? 1 : 0) : 1 << flag
  if (bytes === 0) return undefined
  const at = 5 + (singleSegment ? 0 : 1) + (dictionaryFlag === 3 ? 4 : dictionaryFlag)
  if (frame.length < at + bytes) return undefined
  let size = 0
  for (let index = bytes - 1; index >= 0; index--) size = size * 256 + frame[at + index]!
  return bytes === 2 ? size + 256 : size
}

/** The decoder's output chunk, bytes (a frame declaring less is decoded into one shared buffer). */
const DECODE_CHUNK = 64 * 1024
/** Up to this, a frame's declared size is trusted for one allocation, bytes. */
const EXACT_OUTPUT_MAX = 64 * 1024 * 1024
/** Above {@link EXACT_OUTPUT_MAX}, a declared size is trusted up to this many times the frame's own bytes, and never above 1 GiB. */
const EXACT_RATIO_MAX = 256
const EXACT_OUTPUT_CEILING = 1024 * 1024 * 1024

/**
 * Pure: whether a frame of `frameBytes` that declares `declared` bytes of
 * content is decoded into one buffer of that size (else in 64 KB chunks,
 * joined at the end: a copy of the whole content). A corrupt header must not
 * allocate gigabytes, so a large declared size is trusted only as far as the
 * frame's own size makes it plausible: a 1.7 MB frame of a 100,000-event log
 * declares 190 MB (112×), and its chunks and their join took 1.9 of the 2 s
 * its title fold took (docs/performance.md "A query on a home still being indexed").
 */
export function decodesExactly(declared: number | undefined, frameBytes: number): boolean {
  if (declared === undefined || declared < DECODE_CHUNK) return false
  return declared <= EXACT_OUTPUT_MAX || declared <= Math.min(frameBytes * EXACT_RATIO_MAX, EXACT_OUTPUT_CEILING)
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

/** Decodes one complete frame at a time; `close()` frees its native context. */
interface FrameDecoder {
  /** The frame's plaintext (a view valid until the next call: copy or decode it at once). */
  decode(frame: Uint8Array): Buffer
  close(): void
}

interface PrivateZstdStream {
  _handle?: { writeSync?: (...args: unknown[]) => void } | null
  _writeState?: Uint32Array
  _defaultFlushFlag?: number
  close(): void
  on(event: 'error', listener: (error: Error) => void): unknown
}

/**
 * One zstd context reused across frames, when this Node exposes the private
 * stream shape the harness itself relies on (port of
 * `NodePrivateZstdFrameDecoder`, `@deepseek-ai/dsh-session-persistence-jsonl@0.1.0-rc.8`
 * `lib/index.js`: `_handle.writeSync` plus `_writeState`); else the public
 * one-shot `zstdDecompressSync` per frame (its `PublicZstdFrameDecoder`).
 * Measured: creating a context per header frame was half of a cold refresh.
 */
export function createFrameDecoder(): FrameDecoder {
  const oneShot: FrameDecoder = {
    decode: frame => {
      if (zstdDecompress === undefined) throw new Error('no zstd decoder')
      return zstdDecompress(frame)
    },
    close: () => {},
  }
  const create = (zlib as { createZstdDecompress?: (options: { chunkSize: number }) => PrivateZstdStream }).createZstdDecompress
  if (typeof create !== 'function') return oneShot
  const stream = create({ chunkSize: DECODE_CHUNK })
  const errorKey = Reflect.ownKeys(stream).find((key): key is symbol => typeof key === 'symbol' && key.description === 'kError')
  const shapeOk = typeof stream._handle?.writeSync === 'function' && stream._writeState instanceof Uint32Array
    && stream._writeState.length >= 2
    && typeof stream._defaultFlushFlag === 'number' && errorKey !== undefined
    && (stream as unknown as Record<symbol, unknown>)[errorKey] === null
  if (!shapeOk) {
    stream.close()
    return oneShot
  }
  let streamError: Error | undefined
  stream.on('error', error => { streamError ??= error })
  const shared = Buffer.allocUnsafe(DECODE_CHUNK)
  return {
    decode(frame) {
      const handle = stream._handle
      if (handle?.writeSync === undefined) throw new Error('the zstd decoder is closed')
      const state = stream._writeState!
      // A frame that declares its size (rc.8's writer does) is decoded into one buffer of that size plus one byte
      // (the byte left over says the frame ended): no chunk copied, nothing to concatenate. A small one reuses `shared`.
      const declared = frameContentSize(frame)
      let output = decodesExactly(declared, frame.length) ? Buffer.allocUnsafe(declared! + 1) : shared
      const chunks: Buffer[] = []
      let offset = 0
      let remaining = frame.length
      for (;;) {
        handle.writeSync(stream._defaultFlushFlag, frame, offset, remaining, output, 0, output.length)
        const failure = streamError ?? (stream as unknown as Record<symbol, unknown>)[errorKey]
        if (failure !== null && failure !== undefined) throw failure instanceof Error ? failure : new Error('zstd decoder failure')
        const outputLeft = state[0]!
        const inputLeft = state[1]!
        const produced = output.length - outputLeft
        if (outputLeft !== 0) {
          if (inputLeft !== 0) throw new Error('corrupt Zstandard session log: trailing input after a frame')
          const last = output.subarray(0, produced)
          return chunks.length === 0 ? last : Buffer.concat([...chunks, last])
        }
        // Full: keep this buffer as a chunk (a copy of `shared`, which the next round writes over) and go on in a new one.
        chunks.push(output === shared ? Buffer.from(shared) : output)
        output = Buffer.allocUnsafe(DECODE_CHUNK)
        offset += remaining - inputLeft
        remaining = inputLeft
      }
    },
    close: () => stream.close(),
  }
}
