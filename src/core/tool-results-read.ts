/**
 * Parser of `sessions_read`'s plain-text result (the format of
 * docs/tools.md, written by src/presentation/read.ts), for presentation
 * only (docs/architecture.md §7); pure and total like
 * `src/core/tool-results.ts`.
 *
 * @module dsh-cross-session/core/tool-results-read
 */

import { suffixFields } from './tool-results.js'

/** One message of a `sessions_read` window. */
interface ReadMessage {
  readonly role: string
  readonly seq: number
  /** Provenance markers (`user`, `model:…`, `peer:<id>`, `hop 1`, `harness-injected`, …). */
  readonly markers: readonly string[]
  readonly text: string
}

/** A parsed `sessions_read` result. */
interface ReadResult {
  readonly outcome: 'read'
  readonly sessionId: string
  readonly live: boolean
  readonly subagent: boolean
  readonly cwd?: string
  readonly title: string
  /** Readable messages the target has. */
  readonly readable: number
  /** Newest seq the read covered, `undefined` when the log had none. */
  readonly capturedThrough?: number
  /** Shown messages, newest first (as the tool prints them). */
  readonly messages: readonly ReadMessage[]
  /** Older readable messages not shown (the omitted footer or the cursor line). */
  readonly omitted: number
  /** Newer readable messages not shown (only a cursor line says so; else 0). */
  readonly newer: number
}

const READ_HEAD = /^session (\S+) \[(live|cold), (top-level|subagent)\](.*)$/
const READ_COUNTS = /^readable messages: (\d+) \| captured through seq: (\d+|none)$/
const HEADING = /^--- (\w+) \(seq (\d+), (.*)\) ---$/
const OMITTED = /^\((\d+) earlier messages? omitted\)$/
const PAGE_BACK = /^\(before_seq \d+ reads the earlier messages\)$/
const CURSOR = /^(?:after_seq \d+|before_seq \d+|after_seq \d+, before_seq \d+) \| newer: (\d+)(?: \(after_seq \d+\))? \| older: (\d+)(?: \(before_seq \d+\))?$/

/** A `sessions_read` result, or `undefined` when the text is not one. */
export function parseReadResult(text: string): ReadResult | undefined {
  const lines = text.split('\n')
  const head = READ_HEAD.exec(lines[0] ?? '')
  const titleLine = lines[1] ?? ''
  const counts = READ_COUNTS.exec(lines[2] ?? '')
  if (head === null || !titleLine.startsWith('title: ') || counts === null) return undefined
  let end = lines.length
  let omitted = 0
  const last = OMITTED.exec(lines[end - 1] ?? '')
  if (last !== null) {
    omitted = Number(last[1])
    end -= 1
    if (PAGE_BACK.test(lines[end - 1] ?? '')) end -= 1
  }
  const messages: ReadMessage[] = []
  let current: { role: string, seq: number, markers: string[], body: string[] } | undefined
  let start = 3
  let newer = 0
  const cursor = CURSOR.exec(lines[3] ?? '')
  if (cursor !== null) {
    newer = Number(cursor[1])
    omitted = Number(cursor[2])
    start = 4
  }
  for (const line of lines.slice(start, end)) {
    const heading = HEADING.exec(line)
    if (heading !== null) {
      if (current !== undefined) messages.push({ role: current.role, seq: current.seq, markers: current.markers, text: current.body.join('\n') })
      current = { role: heading[1]!, seq: Number(heading[2]), markers: heading[3]!.split(', '), body: [] }
    } else if (current !== undefined) {
      current.body.push(line)
    } else if (line !== '(no readable messages)' && line !== '(no readable messages in this range)') {
      return undefined
    }
  }
  if (current !== undefined) messages.push({ role: current.role, seq: current.seq, markers: current.markers, text: current.body.join('\n') })
  const fields = suffixFields(head[4]!)
  return {
    outcome: 'read',
    sessionId: head[1]!,
    live: head[2] === 'live',
    subagent: head[3] === 'subagent',
    ...(fields.cwd === undefined ? {} : { cwd: fields.cwd }),
    title: titleLine.slice('title: '.length),
    readable: Number(counts[1]),
    ...(counts[2] === 'none' ? {} : { capturedThrough: Number(counts[2]) }),
    messages,
    omitted,
    newer,
  }
}
