/**
 * Calls on the `/cross-session` channel as the web page makes them
 * (src/client/channel.js): a page key from the key socket
 * (src/home/key-socket.ts), opened from the host's own origin, and the
 * page's `Origin` / `Sec-Fetch-Site` headers on the POST. A test that uses
 * this stands in for the user's page: it drives the channel as the page
 * would, which is the residual docs/tools.md ("Who can decide a held
 * message") names as outside what the gate protects.
 * @module test/e2e/support/page-key
 */
import { request } from 'node:http'

/** The key socket's path (src/home/key-socket.ts `KEY_SOCKET_PATH`). */
export const KEY_SOCKET_PATH = '/cross-session/key'

/** A page key from the host on `port`, and the socket it lives by (close it when done). */
export async function openPageKey(port: number): Promise<{ key: string, close: () => void }> {
  const origin = `http://127.0.0.1:${port}`
  // Node 22's WebSocket (undici) takes request headers as a non-standard option; a browser sends these itself.
  const socket = new WebSocket(`ws://127.0.0.1:${port}${KEY_SOCKET_PATH}`, { headers: { 'origin': origin, 'sec-fetch-site': 'same-origin' } } as never)
  const key = await new Promise<string>((resolve, reject) => {
    socket.addEventListener('message', event => { resolve(JSON.parse(String(event.data)).key as string) })
    socket.addEventListener('error', () => { reject(new Error('the key socket refused this client')) })
  })
  return { key, close: () => { socket.close() } }
}

/** One raw POST (node:http, so any header goes through as given). */
export async function postChannel(port: number, endpoint: string, payload: unknown, headers: Record<string, string>): Promise<{ status: number, text: string }> {
  const body = JSON.stringify({ type: 'client-request', rpcId: `t-${endpoint}`, method: endpoint, payload })
  return await new Promise((resolve, reject) => {
    const req = request(`http://127.0.0.1:${port}/cross-session/${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, res => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }) })
    })
    req.on('error', reject)
    req.end(body)
  })
}

/**
 * Call one endpoint as the page does.
 * @returns the result's value; throws with the answer on anything else.
 */
export async function pageCall(port: number, endpoint: string, payload: Record<string, unknown>): Promise<any> {
  const { key, close } = await openPageKey(port)
  try {
    const answer = await postChannel(port, endpoint, { ...payload, key }, { 'origin': `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' })
    const body = answer.status === 200 ? JSON.parse(answer.text) as { result: { ok: boolean, value?: unknown } } : undefined
    if (body?.result.ok !== true) throw new Error(`${endpoint}: HTTP ${answer.status} ${answer.text}`)
    return body.result.value
  } finally {
    close()
  }
}
