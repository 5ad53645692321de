/**
 * The page gate on the `/cross-session` channel (src/home/page-gate.ts,
 * src/home/key-socket.ts, src/home/channel-route.ts; docs/tools.md, "Who can
 * decide a held message"): the shipped `serveChannel` on a real node:http
 * server over the real SQLite home store. The server stands in for rc.8's
 * `webServer`, dispatching as `@deepseek-ai/dsh-host-webserver@0.1.0-rc.8`
 * lib/index.js does: an HTTP request to the longest matching prefix route,
 * an upgrade to the exact-path upgrade route (else the socket is destroyed).
 * Every endpoint, called without the page key, with a wrong `Origin`, or
 * without `Sec-Fetch-Site: same-origin`, is refused with 403 and the store is
 * unchanged; with them it answers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { acceptValue, CHANNEL, HomeReach, KEY_SOCKET_PATH, PageKeys, pageProvenance, refusalLog, REFUSALS_LOGGED, sandboxWarning, workspaceOf, serveChannel, textFrame, writableRootOf, type ChannelHost, type HomeRuntime, type NewApproval, type SqliteHomeStore, openHomeStore } from '../../src/testing.js'
import { outsideTemp } from '../support/outside-temp.js'

type Route = { path: string, handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> }
type Upgrade = { path: string, handler: (req: IncomingMessage, socket: Duplex, head: Buffer) => void }

let server: Server
let base: string
let store: SqliteHomeStore
let home: string
const keys = new PageKeys()
const logged: string[] = []
const disposers: Array<() => void> = []

const approval = (id: string): NewApproval => ({
  messageId: id, target: 'session-a', sender: 'session-b', senderTitle: 'B', hop: 1, mode: 'queue', text: `framed ${id}`, body: `secret body ${id}`,
  mayWake: true, notify: false, expiresAt: Date.now() + 60_000,
})

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'xs-gate-'))
  store = openHomeStore(home, { pid: 100, start: 1 }, () => true)
  const routes: Route[] = []
  const upgrades = new Map<string, Upgrade>()
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const route = routes.filter(r => path === r.path || path.startsWith(`${r.path}/`)).sort((a, b) => b.path.length - a.path.length)[0]
    if (route === undefined) {
      res.writeHead(404)
      res.end()
      return
    }
    void route.handler(req, res)
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
    log: message => { logged.push(message) },
    home: () => ({ path: home, sandboxRoot: '/tmp', kind: 'temp' }),
  }
  serveChannel({
    register: route => { routes.push(route); return () => undefined },
    registerUpgrade: route => { upgrades.set(route.path, route); return () => undefined },
  }, register => { disposers.push(register()) }, host, keys)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise(resolve => server.close(resolve))
  server.closeAllConnections()
  store.close?.()
  rmSync(home, { recursive: true, force: true })
})

/** The page's headers: what Chromium sends on a same-origin fetch. */
function pageHeaders(origin = base): Record<string, string> {
  return { 'content-type': 'application/json', 'origin': origin, 'sec-fetch-site': 'same-origin' }
}

/** One POST as any client may send it (node:http: `fetch` would not let a `Host` header through). */
async function post(endpoint: string, payload: unknown, headers: Record<string, string>): Promise<{ status: number, body: any }> {
  const body = JSON.stringify({ type: 'client-request', rpcId: `r-${endpoint}`, method: endpoint, payload })
  return await new Promise((resolve, reject) => {
    const req = request(`${base}${CHANNEL}/${endpoint}`, { method: 'POST', headers }, res => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: res.statusCode ?? 0, body: res.statusCode === 200 ? JSON.parse(text) : text })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A key the page's way: a WebSocket to the key socket from this host's origin; it stays open. */
async function openKey(headers: Record<string, string> = { 'origin': base, 'sec-fetch-site': 'same-origin' }): Promise<{ key: string, socket: WebSocket }> {
  // Node 22's WebSocket (undici) takes request headers as a non-standard option.
  const socket = new WebSocket(`${base.replace('http', 'ws')}${KEY_SOCKET_PATH}`, { headers } as never)
  const key = await new Promise<string>((resolve, reject) => {
    socket.addEventListener('message', event => { resolve(JSON.parse(String(event.data)).key) })
    socket.addEventListener('error', () => { reject(new Error('key socket refused')) })
  })
  return { key, socket }
}

function snapshot(): string {
  return JSON.stringify({ approvals: store.approvals(0), traffic: store.traffic(100), a: store.inboundOf('session-a') ?? null, c: store.inboundOf('session-c') ?? null })
}

const CALLS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['approvals.list', {}],
  ['approvals.decide', { messageId: 'held-1', decision: 'deliver' }],
  ['inbound.get', { sessionId: 'session-c' }],
  ['inbound.set', { sessionId: 'session-c', mode: 'accept' }],
  ['traffic.list', {}],
  ['home.get', {}],
]

describe('the /cross-session channel needs the page', () => {
  it.each(CALLS)('%s: refused (403, nothing changed, no body revealed) without the key, with a wrong Origin, or without same-origin fetch metadata', async (endpoint, payload) => {
    store.holdForApproval(approval('held-1'))
    store.setInbound('session-c', 'refuse')
    const before = snapshot()
    const { key, socket } = await openKey()
    try {
      const refusals = [
        await post(endpoint, payload, { 'content-type': 'application/json' }),
        await post(endpoint, payload, pageHeaders()),
        await post(endpoint, { ...payload, key: 'guessed' }, pageHeaders()),
        await post(endpoint, { ...payload, key }, pageHeaders('http://evil.example')),
        await post(endpoint, { ...payload, key }, { ...pageHeaders(), 'sec-fetch-site': 'same-site' }),
        await post(endpoint, { ...payload, key }, { 'content-type': 'application/json', 'origin': base }),
        await post(endpoint, { ...payload, key }, { ...pageHeaders(), host: 'evil.example' }),
      ]
      refusals.forEach((refusal, index) => { expect({ index, ...refusal }).toEqual({ index, status: 403, body: 'forbidden' }) })
      expect(snapshot()).toBe(before)
    } finally {
      socket.close()
    }
  })

  it.each(CALLS)('%s: answers a call with the page key and the page\'s headers', async (endpoint, payload) => {
    store.holdForApproval(approval('held-1'))
    store.setInbound('session-c', 'refuse')
    const { key, socket } = await openKey()
    try {
      const answer = await post(endpoint, { ...payload, key }, pageHeaders())
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ type: 'server-response', rpcId: `r-${endpoint}`, result: { ok: true } })
      const value = answer.body.result.value
      if (endpoint === 'approvals.list') expect(value.approvals).toEqual([expect.objectContaining({ messageId: 'held-1', body: 'secret body held-1' })])
      if (endpoint === 'approvals.decide') expect(store.approvals(Date.now())).toEqual([])
      if (endpoint === 'inbound.get') expect(value).toEqual({ own: 'refuse', host: 'accept' })
      if (endpoint === 'inbound.set') expect(store.inboundOf('session-c')).toBe('accept')
      if (endpoint === 'traffic.list') expect(value.rows.length).toBeGreaterThan(0)
      if (endpoint === 'home.get') expect(value).toEqual({ home, sandboxRoot: '/tmp', kind: 'temp' })
    } finally {
      socket.close()
    }
  })

  it('logged the refusals above with their reason, up to the cap', () => {
    expect(logged).toContain('refused /cross-session/approvals.list: Origin is not this host')
    expect(logged).toContain('refused /cross-session/approvals.list: no live page key')
    expect(logged).toContain('refused /cross-session/approvals.list: Sec-Fetch-Site is not same-origin')
    expect(logged).toContain('refused /cross-session/approvals.list: Host is not a loopback authority')
    expect(logged.filter(line => line.startsWith('refused '))).toHaveLength(REFUSALS_LOGGED)
  })

  it('withdraws a key when its socket closes, and never logs a key', async () => {
    const { key, socket } = await openKey()
    expect(keys.holds(key)).toBe(true)
    socket.close()
    await new Promise<void>(resolve => socket.addEventListener('close', () => { resolve() }))
    // The host withdraws on the socket's close; the refused call below is the proof, whatever the timing of the test's close event.
    let status = 0
    for (let attempt = 0; attempt < 50 && status !== 403; attempt++) status = (await post('inbound.get', { sessionId: 'session-a', key }, pageHeaders())).status
    expect(status).toBe(403)
    expect(logged.join('\n')).not.toContain(key)
  })

  it('hands no key over a handshake without the page\'s provenance, nor over plain HTTP', async () => {
    const size = keys.size
    await expect(openKey({ 'origin': 'http://evil.example', 'sec-fetch-site': 'same-origin' })).rejects.toThrow('key socket refused')
    await expect(openKey({})).rejects.toThrow('key socket refused')
    await expect(openKey({ 'origin': base, 'sec-fetch-site': 'cross-site' })).rejects.toThrow('key socket refused')
    const plain = await fetch(`${base}${KEY_SOCKET_PATH}`, { headers: { 'origin': base, 'sec-fetch-site': 'same-origin' } })
    expect(plain.status).toBe(404)
    const postKey = await fetch(`${base}${KEY_SOCKET_PATH}`, { method: 'POST', headers: pageHeaders(), body: JSON.stringify({ type: 'client-request', rpcId: 'k', method: 'key', payload: {} }) })
    expect(postKey.status).toBe(403)
    // An upgrade from this origin that is not a WebSocket handshake (no key, no version): 400, no key.
    const notWebSocket = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}${KEY_SOCKET_PATH}`, { headers: { connection: 'Upgrade', upgrade: 'websocket', origin: base } })
      req.on('response', res => { resolve(res.statusCode ?? 0); res.resume() })
      req.on('upgrade', () => { reject(new Error('upgraded')) })
      req.on('error', reject)
      req.end()
    })
    expect(notWebSocket).toBe(400)
    expect(keys.size).toBe(size)
  })

  it('refuses bad carriers readably: not POST, not JSON, not the envelope', async () => {
    const { key, socket } = await openKey()
    try {
      expect((await fetch(`${base}${CHANNEL}/approvals.list`, { headers: pageHeaders() })).status).toBe(404)
      expect((await fetch(`${base}${CHANNEL}/approvals.list`, { method: 'POST', headers: { ...pageHeaders(), 'content-type': 'text/plain' }, body: '{}' })).status).toBe(415)
      expect((await fetch(`${base}${CHANNEL}/approvals.list`, { method: 'POST', headers: pageHeaders(), body: '{' })).status).toBe(400)
      expect((await fetch(`${base}${CHANNEL}/approvals.list`, { method: 'POST', headers: pageHeaders(), body: JSON.stringify({ type: 'client-request', rpcId: 'x', method: 'traffic.list', payload: { key } }) })).status).toBe(400)
    } finally {
      socket.close()
    }
  })
})

describe('the pieces', () => {
  it('judges provenance from Host, Origin and Sec-Fetch-Site', () => {
    expect(pageProvenance({ 'host': '127.0.0.1:4000', 'origin': 'http://127.0.0.1:4000', 'sec-fetch-site': 'same-origin' })).toEqual({ ok: true })
    expect(pageProvenance({ 'host': 'localhost:4000', 'origin': 'http://localhost:4000', 'sec-fetch-site': 'same-origin' })).toEqual({ ok: true })
    expect(pageProvenance({ 'host': 'rebound.example:4000', 'origin': 'http://rebound.example:4000', 'sec-fetch-site': 'same-origin' })).toMatchObject({ ok: false })
    expect(pageProvenance({ 'host': '127.0.0.1:4000', 'origin': 'http://127.0.0.1:4001', 'sec-fetch-site': 'same-origin' })).toMatchObject({ ok: false })
    expect(pageProvenance({ 'host': '127.0.0.1:4000', 'origin': 'null', 'sec-fetch-site': 'same-origin' })).toMatchObject({ ok: false })
    expect(pageProvenance({ host: '127.0.0.1:4000', origin: 'http://127.0.0.1:4000' })).toMatchObject({ ok: false })
    // The key socket's handshake: Chromium sends no fetch metadata on a WebSocket handshake; a sent value is still judged.
    expect(pageProvenance({ host: '127.0.0.1:4000', origin: 'http://127.0.0.1:4000' }, 'if-sent')).toEqual({ ok: true })
    expect(pageProvenance({ 'host': '127.0.0.1:4000', 'origin': 'http://127.0.0.1:4000', 'sec-fetch-site': 'cross-site' }, 'if-sent')).toMatchObject({ ok: false })
    expect(pageProvenance({ host: '127.0.0.1:4000' }, 'if-sent')).toMatchObject({ ok: false })
  })

  it('logs the first refusals and then says the rest are not logged', () => {
    const lines: string[] = []
    const log = refusalLog(line => { lines.push(line) })
    for (let i = 1; i <= REFUSALS_LOGGED + 5; i++) log(`refused ${i}`)
    expect(lines).toHaveLength(REFUSALS_LOGGED + 1)
    expect(lines[REFUSALS_LOGGED - 1]).toBe(`refused ${REFUSALS_LOGGED}`)
    expect(lines.at(-1)).toMatch(/further refusals are not logged$/)
  })

  it('computes the RFC 6455 accept value and frames', () => {
    // RFC 6455 §1.3's worked example.
    expect(acceptValue('dGhlIHNhbXBsZSBub25jZQ==')).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=')
    expect([...textFrame('hi')]).toEqual([0x81, 2, 0x68, 0x69])
    expect([...textFrame('x'.repeat(200)).subarray(0, 4)]).toEqual([0x81, 126, 0, 200])
  })

  it('finds the sandbox-writable root a home lies in', () => {
    expect(writableRootOf('/tmp/xs-home', ['/tmp'])).toBe('/tmp')
    expect(writableRootOf('/tmp', ['/tmp'])).toBe('/tmp')
    expect(writableRootOf('/tmpfoo/home', ['/tmp'])).toBeUndefined()
    expect(writableRootOf('/home/u/.dsh', ['/tmp', '/var/tmp'])).toBeUndefined()
    expect(sandboxWarning('/tmp/h', '/tmp')).toMatch(/^DSH_HOME \(\/tmp\/h\) lies inside \/tmp, which rc.8's sandbox lets every session's shell write: .* forge messages .*set DSH_HOME/)
    expect(sandboxWarning('/w/h', '/w', 'workspace')).toMatch(/^DSH_HOME \(\/w\/h\) lies inside \/w, the workspace of a session in this process/)
  })

  it('finds a home in the temp root at start, and in a session\'s workspace once that session runs; logs each root once', () => {
    const logs: string[] = []
    const inTemp = new HomeReach(join(home, 'cross-home'), line => { logs.push(line) })
    expect(inTemp.view()).toMatchObject({ kind: 'temp' })
    expect(logs).toHaveLength(1)
    const workspace = outsideTemp(process.cwd(), 'reach-workspace')
    const outside = join(workspace, 'reach-home')
    const reach = new HomeReach(outside, line => { logs.push(line) })
    expect(reach.view()).toEqual({ path: outside, sandboxRoot: undefined, kind: undefined })
    reach.seeWorkspace(join(workspace, 'src'))
    reach.seeWorkspace(undefined)
    expect(reach.view().sandboxRoot).toBeUndefined()
    reach.seeWorkspace(workspace)
    reach.seeWorkspace(workspace)
    expect(reach.view()).toEqual({ path: outside, sandboxRoot: workspace, kind: 'workspace' })
    expect(logs).toHaveLength(2)
    expect(logs[1]).toContain('the workspace of a session in this process')
    expect(workspaceOf({ cwd: '/w' })).toBe('/w')
    expect(workspaceOf({ cwd: '' })).toBeUndefined()
    expect(workspaceOf(null)).toBeUndefined()
  })
})
