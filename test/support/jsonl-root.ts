/**
 * A JSONL session root in rc.8's physical format and counted file
 * operations, for the corpus index tests (test/unit/corpus-index.test.ts,
 * test/unit/shared-index.test.ts).
 * @module test/support/jsonl-root
 */
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { constants, zstdCompressSync } from 'node:zlib'
import { encodeLog, decodeLog, encodeSegment as benchEncodeSegment, projectKey } from '../../bench/harness/zstd-log.js'
import type { LogFiles } from '../../src/testing.js'

/**
 * A JSONL session root written in rc.8's physical format (header frame, then
 * one checksummed zstd frame per batch: bench/harness/zstd-log.ts, a port of
 * `@deepseek-ai/dsh-session-persistence-jsonl@0.1.0-rc.8` `lib/index.js`).
 */
export class Root {
  readonly root: string
  constructor(home: string) {
    this.root = join(home, 'sessions')
  }

  path(id: string, cwd = '/work/project'): string {
    return join(this.root, projectKey(cwd), benchEncodeSegment(id), 'session.jsonl.zstd')
  }

  write(id: string, createdAt: number, title: string | undefined, options: { cwd?: string, extra?: Record<string, unknown> } = {}): void {
    const cwd = options.cwd ?? '/work/project'
    const header = JSON.stringify({ type: 'session', version: 0, id, createdAt, cwd, ...options.extra })
    const events = [
      JSON.stringify({ type: 'user/message', seq: 0, time: createdAt, data: { role: 'user', id: `m-${id}`, content: [{ type: 'text', text: `hello from ${id}` }], source: { kind: 'user' } }, surfaceOp: 'append' }),
      ...(title === undefined ? [] : [JSON.stringify({ type: 'session/title', seq: 1, time: createdAt, data: { title, messageSeqs: [0], source: { kind: 'fallback' } } })]),
    ]
    mkdirSync(dirname(this.path(id, cwd)), { recursive: true })
    writeFileSync(this.path(id, cwd), encodeLog(header, events))
  }

  /** A log of these events (objects, `seq` from 0), as one batch frame after the header frame. */
  writeEvents(id: string, createdAt: number, events: ReadonlyArray<Record<string, unknown>>): void {
    const header = JSON.stringify({ type: 'session', version: 0, id, createdAt, cwd: '/work/project' })
    mkdirSync(dirname(this.path(id)), { recursive: true })
    writeFileSync(this.path(id), encodeLog(header, events.map(event => JSON.stringify(event))))
  }

  /** Append these events as one batch frame, as `append` does. */
  appendEvents(id: string, events: ReadonlyArray<Record<string, unknown>>): void {
    const lines = events.map(event => `${JSON.stringify(event)}\n`).join('')
    appendFileSync(this.path(id), zstdCompressSync(Buffer.from(lines), { params: { [constants.ZSTD_c_checksumFlag]: 1 } }))
  }

  /** Publish a new log file in place of the old one (a new inode, as rc.8's `link()` publishes a log). */
  replace(id: string, createdAt: number, title: string | undefined): void {
    const path = this.path(id)
    renameSync(path, `${path}.old`)
    this.write(id, createdAt, title)
    rmSync(`${path}.old`)
  }

  /** Append one batch frame, as `append` does (another process writing). */
  appendTitle(id: string, seq: number, title: string): void {
    const line = JSON.stringify({ type: 'session/title', seq, time: Date.now(), data: { title, messageSeqs: [0], source: { kind: 'user' } } })
    appendFileSync(this.path(id), zstdCompressSync(Buffer.from(`${line}\n`), { params: { [constants.ZSTD_c_checksumFlag]: 1 } }))
  }

  /**
   * The slice of `ctx.sessionPersistence` the port uses, from the published
   * jsonl backend (`lib/index.js` rc.8): `locate(meta)` →
   * `{ kind: 'jsonl', path: <root>/<projectKey(cwd) | _no-cwd>/<encodeSegment(id)>/session.jsonl.zstd }`;
   * `inspect(id)` → `{ meta, events }` of the whole log, or
   * `Error('session "<id>" not found')`.
   */
  persistence(): { locate: (meta: { id: string, cwd?: string }) => unknown, inspect: (id: string) => Promise<unknown>, inspected: string[] } {
    const inspected: string[] = []
    return {
      inspected,
      locate: meta => ({ kind: 'jsonl', path: join(this.root, meta.cwd === undefined ? '_no-cwd' : projectKey(meta.cwd), benchEncodeSegment(meta.id), 'session.jsonl.zstd') }),
      inspect: async id => {
        inspected.push(id)
        try {
          const lines = decodeLog(readFileSync(this.path(id))).split('\n').filter(line => line.length > 0).map(line => JSON.parse(line) as Record<string, unknown>)
          return { meta: lines[0], events: lines.slice(1) }
        } catch {
          throw new Error(`session "${id}" not found`)
        }
      },
    }
  }
}

/** Real file operations, counted. */
export function counted(files: LogFiles): LogFiles & { counts: Record<string, number> } {
  const counts: Record<string, number> = { scan: 0, probe: 0, restat: 0, readHeader: 0, readTitle: 0 }
  const readHeader = (log: Parameters<LogFiles['readHeader']>[0]) => { counts.readHeader!++; return files.readHeader(log) }
  return {
    counts,
    get directoryReads() { return files.directoryReads },
    // The index's pass over the root (a listing, no stat) counts as its scan.
    list: signal => { counts.scan!++; return files.list(signal) },
    probe: id => { counts.probe!++; return files.probe(id) },
    restat: log => { counts.restat!++; return files.restat(log) },
    restatMany: (logs, signal) => { counts.restat! += logs.length; return files.restatMany(logs, signal) },
    close: () => files.close(),
    readHeader,
    readHeaders: logs => { counts.readHeader! += logs.length; return files.readHeaders(logs) },
    readTitle: (log, from) => { counts.readTitle!++; return files.readTitle(log, from) },
  }
}
