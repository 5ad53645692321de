/**
 * The host's pushes to its pages (src/home/change-feed.ts) over the key
 * socket (src/home/key-socket.ts): the shipped `serveChannel` on a real
 * node:http server (dispatching upgrades by exact path as
 * `@deepseek-ai/dsh-host-webserver@0.1.0-rc.8` lib/index.js does) over the
 * real SQLite home store, and Node 22's WebSocket as the page. After the
 * key, the page hears `{ changed: 'store' }` when another connection (another
 * process) holds a message, at once after a decision made through the
 * channel, and `{ changed: 'logs', sessions }` when sessions append; a closed
 * socket is no longer pushed to and the feed stops looking.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChangeFeed, CHANNEL, KEY_SOCKET_PATH, MAX_LOG_IDS, openHomeStore, serveChannel, storeVersion, type ChannelHost, type HomeRuntime, type NewApproval, type SqliteHomeStore } from '../../src/testing.js'

type Route = { path: string, handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> }
type Upgrade = { path: string, handler: (req: IncomingMessage, socket: Duplex, head: Buffer) => void }

let server: Server
let base: string
let store: SqliteHomeStore
let other: SqliteHomeStore
let home: string
let feed: ChangeFeed

const approval = (id: string): NewApproval => ({
  messageId: id, target: 'session-a', sender: 'session-b', senderTitle: 'B', hop: 1, mode: 'queue', text: `framed ${id}`, body: `body ${id}`,
  mayWake: true, notify: false, expiresAt: Date.now() + 60_000,
})

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'xs-feed-'))
  store = openHomeStore(home, { pid: 100, start: 1 }, () => true)
  other = openHomeStore(home, { pid: 200, start: 1 }, () => true)
  feed = new ChangeFeed(() => storeVersion(store))
  const routes: Route[] = []
  const upgrades = new Map<string, Upgrade>()
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const route = routes.find(r => path.startsWith(`${r.path}/`))
    if (route === undefined) res.writeHead(404).end()
    else void route.handler(req, res)
  })
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const route = upgrades.get(new URL(req.url ?? '/', 'http://x').pathname)
    if (route === undefined) socket.destroy()
    else route.handler(req, socket, head)
  })
  const host: ChannelHost = {
    runtime: { store, tick: () => undefined } as unknown as HomeRuntime,
    sessions: { readTitles: async (ids: readonly string[]) => new Map(ids.map(id => [id, `title of ${id}`])) } as never,
    inbound: () => 'accept',
    decided: () => undefined,
    log: () => undefined,
    home: () => ({ path: home, sandboxRoot: undefined, kind: undefined }),
    feed,
  }
  serveChannel({
    register: route => { routes.push(route); return () => undefined },
    registerUpgrade: route => { upgrades.set(route.path, route); return () => undefined },
  }, register => { register() }, host)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise(resolve => server.close(resolve))
  server.closeAllConnections()
  store.close?.()
  other.close?.()
  rmSync(home, { recursive: true, force: true })
})

/** The page: a key socket from this origin; every frame after the key lands in `pushes`, `next()` awaits the next one. */
async function openPage(): Promise<{ key: string, socket: WebSocket, next: () => Promise<Record<string, unknown>> }> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}${KEY_SOCKET_PATH}`, { headers: { 'origin': base, 'sec-fetch-site': 'same-origin' } } as never)
  const queue: Array<Record<string, unknown>> = []
  const waiters: Array<(push: Record<string, unknown>) => void> = []
  let resolveKey: (key: string) => void
  const key = new Promise<string>(resolve => { resolveKey = resolve })
  socket.addEventListener('message', event => {
    const frame = JSON.parse(String(event.data)) as Record<string, unknown>
    if (typeof frame.key === 'string') resolveKey(frame.key)
    else if (waiters.length > 0) waiters.shift()!(frame)
    else queue.push(frame)
  })
  const next = async () => queue.length > 0 ? queue.shift()! : await new Promise<Record<string, unknown>>(resolve => { waiters.push(resolve) })
  return { key: await key, socket, next }
}

async function post(endpoint: string, payload: unknown): Promise<any> {
  const body = JSON.stringify({ type: 'client-request', rpcId: 'r', method: endpoint, payload })
  return await new Promise((resolve, reject) => {
    const req = request(`${base}${CHANNEL}/${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json', 'origin': base, 'sec-fetch-site': 'same-origin' } }, res => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) })
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('the host pushes changes over the key socket', () => {
  it('pushes a change another process made, a decision made through the channel, and the sessions that appended', async () => {
    const page = await openPage()
    try {
      // Another process (its own connection) holds a message: the page hears it without asking.
      const before = storeVersion(store)
      other.holdForApproval(approval('held-1'))
      const held = await page.next()
      expect(held).toEqual({ changed: 'store', version: storeVersion(store) })
      expect(held.version).not.toBe(before)

      // Deliver through the channel: pushed as soon as the write is done.
      const decided = await post('approvals.decide', { messageId: 'held-1', decision: 'deliver', key: page.key })
      expect(decided.result).toEqual({ ok: true, value: { state: 'delivered' } })
      expect(await page.next()).toEqual({ changed: 'store', version: storeVersion(store) })

      // Appends of sessions live here, gathered into one frame.
      feed.logged('session-a')
      feed.logged('session-b')
      feed.logged('session-a')
      expect(await page.next()).toEqual({ changed: 'logs', sessions: ['session-a', 'session-b'] })
      for (let i = 0; i <= MAX_LOG_IDS; i++) feed.logged(`s${i}`)
      expect(await page.next()).toEqual({ changed: 'logs' })
    } finally {
      page.socket.close()
    }
  })

  it('stops pushing to a page whose socket closed, and stops looking when no page listens', async () => {
    const pushed: unknown[] = []
    let reads = 0
    const quiet = new ChangeFeed(() => { reads++; return `v${reads}` }, 60_000)
    const stop = quiet.subscribe(push => { pushed.push(push) })
    quiet.check()
    expect(pushed).toEqual([{ changed: 'store', version: 'v2' }])
    stop()
    quiet.check()
    quiet.logged('session-a')
    expect(pushed).toHaveLength(1)
    expect(reads).toBe(2)

    // A store that cannot be used is not a change.
    const broken = new ChangeFeed(() => { throw new Error('SQLITE_IOERR') }, 60_000)
    const seen: unknown[] = []
    const unsubscribe = broken.subscribe(push => { seen.push(push) })
    broken.check()
    expect(seen).toEqual([])
    unsubscribe()
  })
})
