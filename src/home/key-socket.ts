/**
 * The key socket: the page opens a WebSocket on {@link KEY_SOCKET_PATH} and
 * receives one text message, `{"key":"…"}`, the page key of ./page-gate.ts.
 * The key stays valid while that socket is open and is withdrawn when it
 * closes. A plain HTTP request (a shell's `curl "$DSH_WEB_URL/…"`) cannot
 * receive it: only a WebSocket handshake from this host's own origin does.
 * After the key, the same socket carries the host's pushes (./change-feed.ts),
 * one text frame each, until it closes.
 *
 * Served through rc.8's upgrade registry (`@deepseek-ai/dsh-host-webserver@0.1.0-rc.8`
 * lib/types/index.d.ts `registerUpgrade`). The server side of RFC 6455 needed
 * here is small: the handshake (§4.2.2), unmasked text frames (§5.2), and
 * answering the page's close frame (§5.5.1); the page never sends data.
 * @module dsh-cross-session/home/key-socket
 */

import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { ChangeFeed } from './change-feed.js'
import { pageProvenance, type PageKeys } from './page-gate.js'

/** The key socket's path (an exact upgrade path beside the channel). */
export const KEY_SOCKET_PATH = '/cross-session/key'

/** RFC 6455 §1.3: the GUID the accept hash is salted with. */
const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

/** The `Sec-WebSocket-Accept` value for a client's `Sec-WebSocket-Key` (RFC 6455 §4.2.2). */
export function acceptValue(clientKey: string): string {
  return createHash('sha1').update(clientKey + WS_GUID).digest('base64')
}

/** One unmasked, final text frame carrying `text` (RFC 6455 §5.2). */
export function textFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8')
  const head = payload.length < 126
    ? Buffer.from([0x81, payload.length]) : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff])
  return Buffer.concat([head, payload])
}

function refuse(socket: Duplex, status: string, text: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: `
    + `${Buffer.byteLength(text)}\r\n\r\n${text}`)
}

/**
 * The upgrade handler: refuses (403, nothing issued) a handshake without the
 * page's provenance, else issues a key, sends it, then sends each of `feed`'s
 * pushes, and withdraws the key and stops the pushes when the socket ends for
 * any reason.
 */
export function keySocketHandler(
  keys: PageKeys, log: (message: string) => void, feed?: ChangeFeed,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket) => {
    const provenance = pageProvenance(req.headers, 'if-sent')
    const clientKey = req.headers['sec-websocket-key']
    if (!provenance.ok) {
      log(`refused a ${KEY_SOCKET_PATH} handshake: ${provenance.reason}`)
      refuse(socket, '403 Forbidden', 'forbidden')
      return
    }
    if (typeof clientKey !== 'string' || req.headers['sec-websocket-version'] !== '13'
      || req.headers.upgrade?.toLowerCase() !== 'websocket') {
      refuse(socket, '400 Bad Request', 'not a WebSocket handshake')
      return
    }
    const issued = keys.issue()
    let closed = false
    let unsubscribe = (): void => undefined
    const end = (last?: Buffer): void => {
      if (closed) return
      closed = true
      issued.revoke()
      unsubscribe()
      if (last === undefined) socket.destroy()
      else socket.end(last)
    }
    socket.on('error', () => { end() })
    socket.on('close', () => { end() })
    socket.on('end', () => { end() })
    // Anything the page sends is its close frame (opcode 8) or a protocol error: answer with close and end.
    socket.on('data', (chunk: Buffer) => {
      end((chunk[0]! & 0x0f) === 0x8 ? Buffer.from([0x88, 0x00]) : undefined)
    })
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: `
      + `${acceptValue(clientKey)}\r\n\r\n`)
    socket.write(textFrame(JSON.stringify({ key: issued.key })))
    if (feed !== undefined && !closed) unsubscribe = feed.subscribe(push => { if (!closed) socket.write(textFrame(JSON.stringify(push))) })
  }
}
