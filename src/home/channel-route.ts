/**
 * The `/cross-session` channel's HTTP carrier. It speaks rc.8's unary RPC
 * envelope, so the page keeps calling it with `ctx.connection.rpc.call`
 * (`@deepseek-ai/dsh-client-connection@0.1.0-rc.8` lib/client.js
 * `createWebConnectionRpc`: a POST of `{ type: 'client-request', rpcId,
 * method, payload }` to `<channel>/<endpoint>`, answered by
 * `{ type: 'server-response', rpcId, result }`), but it is registered on the
 * `webServer` directly rather than through `connection.rpc.handle`: that
 * handler sees only the payload, and the gate (./page-gate.ts) must read the
 * request's headers.
 *
 * Every call needs the page's provenance and a live page key
 * (`payload.key`); without them: HTTP 403 `forbidden`, the handler is not
 * reached, and nothing changes.
 * @module dsh-cross-session/home/channel-route
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import { pageProvenance, type PageKeys } from './page-gate.js'

/** rc.8 `RpcResult`. */
export type RpcResult = { readonly ok: true, readonly value: unknown }
  | { readonly ok: false, readonly error: { readonly code: string, readonly message: string, readonly details: Record<string, never> } }

/** One endpoint's answer, given the payload without its key. */
export type ChannelAnswer = (endpoint: string, payload: unknown, signal: AbortSignal) => Promise<RpcResult>

/** The largest request body read (bytes); the channel's payloads are a few ids. */
export const MAX_BODY_BYTES = 64 * 1024

const ENDPOINT = /^[A-Za-z0-9_$.-]+$/

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' })
  res.end(text)
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength
    if (size > MAX_BODY_BYTES) return undefined
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined
}

/**
 * The route handler for `channel` (a prefix route: `<channel>/<endpoint>`).
 * Refusals: 403 without provenance or a live key, 404 for anything but a
 * POST to one endpoint, 413 over {@link MAX_BODY_BYTES}, 415 without a JSON
 * content type, 400 for a body that is not the envelope.
 */
export function channelRoute(channel: string, keys: PageKeys, answer: ChannelAnswer,
  log: (message: string) => void): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://dsh.internal').pathname
    const endpoint = path.startsWith(`${channel}/`) ? path.slice(channel.length + 1) : ''
    if (req.method !== 'POST' || !ENDPOINT.test(endpoint)) return reply(res, 404, 'not found')
    const provenance = pageProvenance(req.headers)
    if (!provenance.ok) {
      log(`refused ${channel}/${endpoint}: ${provenance.reason}`)
      return reply(res, 403, 'forbidden')
    }
    if (req.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase() !== 'application/json')
      return reply(res, 415, 'content type must be application/json')
    const body = await readBody(req)
    if (body === undefined) return reply(res, 413, 'request body too large')
    let envelope: Record<string, unknown> | undefined
    try {
      envelope = record(JSON.parse(body.toString('utf8')))
    } catch {
      return reply(res, 400, 'body is not JSON')
    }
    if (envelope?.type !== 'client-request' || typeof envelope.rpcId !== 'string' || envelope.method !== endpoint)
      return reply(res, 400, 'invalid client-request message')
    const { key, ...payload } = record(envelope.payload) ?? {}
    if (!keys.holds(key)) {
      log(`refused ${channel}/${endpoint}: no live page key`)
      return reply(res, 403, 'forbidden')
    }
    const abort = new AbortController()
    res.on('close', () => { if (!res.writableEnded) abort.abort() })
    const result = await answer(endpoint, payload, abort.signal)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ type: 'server-response', rpcId: envelope.rpcId, result }))
  }
}
