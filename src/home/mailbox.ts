/**
 * The durable per-message mailbox under `DSH_HOME` (issue 8 §3, §4).
 *
 * - Post: the message is written to a temp name (`O_EXCL|O_NOFOLLOW`, 0600)
 *   and renamed to `<session_id>~<message_id>.msg`: a reader sees a whole
 *   message or none.
 * - Claim: the owning process renames it to `….claimed@<pid>.<start>`; one
 *   rename wins, so a message is claimed exactly once. A claim whose claimer
 *   died is claimed again by rename (the log is checked for the message id
 *   before delivering, so it is still delivered at most once).
 * - Read: opened with `O_NOFOLLOW`, must be a regular file of at most
 *   {@link MAX_MESSAGE_BYTES}, and is validated with TypeBox.
 * - Receipt: `receipts/<message_id>.json`, written by temp + rename.
 *
 * Message ids start with the posting time in base 36, fixed width, so name
 * order is posting order (pending messages are delivered oldest first).
 *
 * @module dsh-cross-session/home/mailbox
 */

import { randomBytes } from 'node:crypto'
import { fstatSync, readSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import Type, { type Static } from 'typebox'
import Value from 'typebox/value'
import { mailboxRefusals } from '../presentation/send.js'
import { formatTag, isSafeSessionId, parseTag, readEntries, readNoFollow, writeAtomic, type ProcessTag } from './paths.js'

/** Largest message or receipt file read, bytes (a framed message of the largest maxSendChars fits). */
export const MAX_MESSAGE_BYTES = 1 << 20

/** One mailbox message (schema v1). */
export const MailboxMessage = Type.Object({
  v: Type.Literal(1),
  messageId: Type.String({ minLength: 1, maxLength: 100 }),
  sessionId: Type.String({ minLength: 1, maxLength: 200 }),
  /** The user message id the owner delivers under (`cross-session:<caller>:<call>`). */
  requestId: Type.String({ minLength: 1, maxLength: 1000 }),
  /** Provenance the sender recorded (src/provenance.ts): the owner delivers it as the message's relay source. */
  fromSessionId: Type.String({ minLength: 1, maxLength: 200 }),
  hop: Type.Integer({ minimum: 1, maximum: 999_999 }),
  mode: Type.Union([Type.Literal('queue'), Type.Literal('steer')]),
  /** The framed text, exactly as a local send would deliver it. */
  text: Type.String({ maxLength: MAX_MESSAGE_BYTES }),
  /** Unix epoch ms. */
  createdAt: Type.Number(),
}, { additionalProperties: false })
export type MailboxMessage = Static<typeof MailboxMessage>

/** Where the owner recorded a message (schema v1). */
export const MailboxReceipt = Type.Object({
  v: Type.Literal(1),
  messageId: Type.String({ minLength: 1, maxLength: 100 }),
  /** `conversation`/`inbox`: found at `seq`; `admitted`: delivered, not found by the owner's bound; `refused`: not delivered. */
  stage: Type.Union([Type.Literal('conversation'), Type.Literal('inbox'), Type.Literal('admitted'), Type.Literal('refused')]),
  seq: Type.Optional(Type.Integer({ minimum: 0 })),
  running: Type.Boolean(),
  reason: Type.Optional(Type.String({ maxLength: 500 })),
  at: Type.Number(),
}, { additionalProperties: false })
export type MailboxReceipt = Static<typeof MailboxReceipt>

let serial = 0

/** A new message id: posting time (base 36, 9 wide), a per-process serial, randomness. */
export function newMessageId(now = Date.now()): string {
  serial = (serial + 1) % 1296
  return `${now.toString(36).padStart(9, '0')}-${serial.toString(36).padStart(2, '0')}-${randomBytes(5).toString('hex')}`
}

/** One mailbox entry, parsed from its name. */
export interface MailboxEntry {
  readonly name: string
  readonly sessionId: string
  readonly messageId: string
  readonly state: 'pending' | 'claimed'
  readonly claimer?: ProcessTag
}

/** Parse an entry name; `undefined` for temp files and anything else. */
export function parseMailboxName(name: string): MailboxEntry | undefined {
  const tilde = name.indexOf('~')
  if (tilde <= 0) return undefined
  const sessionId = name.slice(0, tilde)
  const rest = name.slice(tilde + 1)
  const dot = rest.indexOf('.')
  if (dot <= 0 || !isSafeSessionId(sessionId)) return undefined
  const messageId = rest.slice(0, dot)
  if (!/^[0-9a-z-]{1,100}$/.test(messageId)) return undefined
  const suffix = rest.slice(dot + 1)
  if (suffix === 'msg') return { name, sessionId, messageId, state: 'pending' }
  if (suffix.startsWith('claimed@')) {
    const claimer = parseTag(suffix.slice('claimed@'.length))
    return claimer === undefined ? undefined : { name, sessionId, messageId, state: 'claimed', claimer }
  }
  return undefined
}

/** All entries in one directory read, in posting order. */
export function listMailbox(dir: string): MailboxEntry[] {
  return readEntries(dir, parseMailboxName).sort((a, b) => (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0))
}

/**
 * Post one message.
 * @throws when the message is too large or the directory cannot be written.
 */
export function postMessage(dir: string, message: MailboxMessage): void {
  const data = JSON.stringify(message)
  if (Buffer.byteLength(data) > MAX_MESSAGE_BYTES) throw new Error(`the message is larger than the mailbox bound (${MAX_MESSAGE_BYTES} bytes)`)
  if (!isSafeSessionId(message.sessionId)) throw new Error('the session id cannot name a mailbox entry')
  writeAtomic(dir, `${message.sessionId}~${message.messageId}.msg`, data)
}

/**
 * Claim an entry for `self` by rename.
 * @returns the claimed file's name, or `undefined` when another claimer won.
 */
export function claim(dir: string, entry: MailboxEntry, self: ProcessTag): string | undefined {
  const claimed = `${entry.sessionId}~${entry.messageId}.claimed@${formatTag(self)}`
  try {
    renameSync(join(dir, entry.name), join(dir, claimed))
    return claimed
  } catch {
    return undefined
  }
}

/** Read a bounded regular file without following links; `undefined` when absent or refused. */
export function readBounded(path: string): string | undefined {
  return readNoFollow(path, fd => {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.size > MAX_MESSAGE_BYTES) return undefined
    const buffer = Buffer.alloc(stat.size)
    let read = 0
    while (read < stat.size) {
      const got = readSync(fd, buffer, read, stat.size - read, read)
      if (got === 0) break
      read += got
    }
    return buffer.subarray(0, read).toString('utf8')
  })
}

/** Parse and validate a message file's text. */
export function parseMessage(text: string | undefined): { ok: true, message: MailboxMessage } | { ok: false, reason: string } {
  if (text === undefined) return { ok: false, reason: mailboxRefusals.unreadable }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, reason: mailboxRefusals.notJson }
  }
  return Value.Check(MailboxMessage, value) ? { ok: true, message: value } : { ok: false, reason: mailboxRefusals.badShape }
}

/** Parse and validate a receipt file's text; `undefined` when absent or invalid. */
export function parseReceipt(text: string | undefined): MailboxReceipt | undefined {
  if (text === undefined) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return Value.Check(MailboxReceipt, value) ? value : undefined
  } catch {
    return undefined
  }
}

/** Write a receipt atomically. */
export function writeReceipt(dir: string, receipt: MailboxReceipt): void {
  writeAtomic(dir, `${receipt.messageId}.json`, JSON.stringify(receipt))
}
