/**
 * The page's half of the page gate (src/client/page-key.ts; docs/tools.md,
 * "Who can decide a held message"): one key socket for concurrent calls, the
 * key reused while its socket is open, a fresh socket after it closed, and a
 * call refused for its key (HTTP 403) retried once with a fresh key; the
 * host's pushes after the key and the socket's close reach the page. The
 * socket is a fake with the members of the browser's `WebSocket` the module
 * uses (`addEventListener` for `message` / `close`, `close()`).
 */
import { describe, expect, it } from 'vitest'
import { createPageKey, keySocketUrl, refusedForKey, withPageKey } from '../../src/client/page-key.ts'

type Listener = (event: { data?: unknown }) => void

class FakeSocket {
  readonly listeners = new Map<string, Listener[]>()
  closed = false
  readonly url: string
  constructor(url: string) {
    this.url = url
  }

  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener])
  }

  emit(type: string, event: { data?: unknown } = {}): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event)
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.emit('close')
  }
}

function world() {
  const sockets: FakeSocket[] = []
  const heard: unknown[] = []
  const pageKey = createPageKey((url: string) => {
    const socket = new FakeSocket(url)
    sockets.push(socket)
    return socket
  }, () => keySocketUrl('http://127.0.0.1:4000'), { pushed: push => { heard.push(push) }, closed: () => { heard.push('closed') } })
  return { sockets, pageKey, heard }
}

describe('the page key (client)', () => {
  it('opens one key socket for concurrent calls and reuses its key while it is open', async () => {
    const { sockets, pageKey } = world()
    const a = pageKey.get()
    const b = pageKey.get()
    expect(sockets).toHaveLength(1)
    expect(sockets[0]!.url).toBe('ws://127.0.0.1:4000/cross-session/key')
    sockets[0]!.emit('message', { data: JSON.stringify({ key: 'k1' }) })
    expect(await a).toBe('k1')
    expect(await b).toBe('k1')
    expect(await pageKey.get()).toBe('k1')
    expect(sockets).toHaveLength(1)
  })

  it('opens a new socket after the host closed the old one', async () => {
    const { sockets, pageKey } = world()
    const first = pageKey.get()
    sockets[0]!.emit('message', { data: JSON.stringify({ key: 'k1' }) })
    expect(await first).toBe('k1')
    sockets[0]!.close()
    const second = pageKey.get()
    expect(sockets).toHaveLength(2)
    sockets[1]!.emit('message', { data: JSON.stringify({ key: 'k2' }) })
    expect(await second).toBe('k2')
  })

  it('hands on the host\'s pushes after the key (skipping frames that are not JSON objects), then the close', async () => {
    const { sockets, pageKey, heard } = world()
    const key = pageKey.get()
    sockets[0]!.emit('message', { data: JSON.stringify({ key: 'k1' }) })
    expect(await key).toBe('k1')
    sockets[0]!.emit('message', { data: JSON.stringify({ changed: 'store', version: 'v1' }) })
    sockets[0]!.emit('message', { data: 'not json' })
    sockets[0]!.emit('message', { data: '[1]' })
    sockets[0]!.emit('message', { data: JSON.stringify({ changed: 'logs', sessions: ['s1'] }) })
    expect(heard).toEqual([{ changed: 'store', version: 'v1' }, { changed: 'logs', sessions: ['s1'] }])
    expect(await pageKey.get()).toBe('k1')
    sockets[0]!.close()
    expect(heard.at(-1)).toBe('closed')
  })

  it('fails readably when the host refuses the handshake or sends no key', async () => {
    const { sockets, pageKey } = world()
    const refused = pageKey.get()
    sockets[0]!.close()
    await expect(refused).rejects.toThrow('the host refused the page key')
    const garbled = pageKey.get()
    sockets[1]!.emit('message', { data: 'not json' })
    await expect(garbled).rejects.toThrow('the host sent no page key')
  })

  it('retries a call refused for its key once, with a fresh key; other failures are not retried', async () => {
    const { sockets, pageKey } = world()
    const keysSeen: string[] = []
    const call = withPageKey(pageKey, async (key: string) => {
      keysSeen.push(key)
      if (key === 'stale') throw new Error('transport failure for /cross-session/approvals.list: HTTP 403')
      return `ok with ${key}`
    })
    sockets[0]!.emit('message', { data: JSON.stringify({ key: 'stale' }) })
    // The refused call drops the old socket and opens another (a few microtasks later).
    while (sockets.length < 2) await Promise.resolve()
    expect(sockets[0]!.closed).toBe(true)
    sockets[1]!.emit('message', { data: JSON.stringify({ key: 'fresh' }) })
    expect(await call).toBe('ok with fresh')
    expect(keysSeen).toEqual(['stale', 'fresh'])

    const other = withPageKey(pageKey, async () => { throw new Error('approvals.list: HTTP 500') })
    await expect(other).rejects.toThrow('HTTP 500')
    expect(sockets).toHaveLength(2)
    expect(refusedForKey(new Error('x: HTTP 403'))).toBe(true)
    expect(refusedForKey(new Error('x: HTTP 404'))).toBe(false)
  })
})
