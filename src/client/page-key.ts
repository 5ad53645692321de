/**
 * The page key the host's `/cross-session` channel asks of every call
 * (src/home/page-gate.ts; docs/tools.md, "Who can decide a held message"):
 * the page opens a WebSocket to {@link KEY_SOCKET_PATH} on its own origin
 * and the host sends `{"key":"…"}` on it (src/home/key-socket.ts). The key
 * lives as long as that socket, which stays open while the page lives; it
 * is kept in this module's memory only, never in storage a process could
 * read from disk. After the key, the host pushes changes on the same socket
 * (src/home/change-feed.ts); each is handed to `pushed`.
 * @module dsh-cross-session/client/page-key
 */

/** The key socket's path (src/home/key-socket.ts `KEY_SOCKET_PATH`). */
export const KEY_SOCKET_PATH = '/cross-session/key'

/** The members of the browser's `WebSocket` used here. */
export interface KeySocket {
  addEventListener(type: 'message' | 'close', listener: (event: { data?: unknown }) => void): void
  close(): void
}

/** What the page hears on its key socket besides the key. */
export interface KeySocketEvents {
  /** A push after the key, parsed (frames that are not JSON objects are skipped). */
  pushed?(push: Record<string, unknown>): void
  /** The socket closed (the key with it); the next `get()` opens another. */
  closed?(): void
}

/** One page's key. */
export interface PageKey {
  /** The key; opens the key socket when none is open. Rejects when the host refuses it or sends none. */
  get(): Promise<string>
  /** Close the key socket now (the next `get()` opens another). */
  drop(): void
}

/** The key socket's URL for a page at `origin` (`http:` → `ws:`, `https:` → `wss:`). */
export function keySocketUrl(origin: string): string {
  const url = new URL(KEY_SOCKET_PATH, origin)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  return url.href
}

/**
 * One page's key: `get()` opens the socket on first use (one socket for
 * concurrent callers) and resolves to the key; a closed socket is opened
 * again on the next `get()`; `drop()` closes it now.
 * @param open - `url => WebSocket` (a browser's `WebSocket`; tests pass a fake).
 * @param url - the key socket's URL, read on each open.
 * @param events - told of the host's pushes and of the socket's close.
 */
export function createPageKey(open: (url: string) => KeySocket, url: () => string, events: KeySocketEvents = {}): PageKey {
  let current: { socket: KeySocket, key: Promise<string> } | undefined
  const get = () => {
    if (current !== undefined) return current.key
    const socket = open(url())
    let first = true
    const key = new Promise<string>((resolve, reject) => {
      socket.addEventListener('message', event => {
        let sent: unknown
        try {
          sent = JSON.parse(String(event.data))
        } catch {
          sent = undefined
        }
        const record = typeof sent === 'object' && sent !== null && !Array.isArray(sent) ? sent as Record<string, unknown> : undefined
        if (!first) {
          if (record !== undefined) events.pushed?.(record)
          return
        }
        first = false
        if (typeof record?.key === 'string') resolve(record.key)
        else reject(new Error('the host sent no page key'))
      })
      socket.addEventListener('close', () => {
        if (current === entry) current = undefined
        reject(new Error('the host refused the page key'))
        events.closed?.()
      })
    })
    const entry = { socket, key }
    // A key nobody awaits (the socket closed after it was read) must not surface as unhandled.
    key.catch(() => undefined)
    current = entry
    return key
  }
  const drop = () => {
    const entry = current
    current = undefined
    entry?.socket.close()
  }
  return { get, drop }
}

/** Whether a failed call was refused for its key (HTTP 403 from the channel, or no key at all). */
export function refusedForKey(error: unknown): boolean {
  return /HTTP 403|page key/.test(error instanceof Error ? error.message : String(error))
}

/**
 * Run `call(key)`; when it is refused for its key (the host restarted, the
 * socket closed), drop the key and run it once more with a fresh one.
 * @returns what `call` returns; throws its error otherwise.
 */
export async function withPageKey<T>(pageKey: PageKey, call: (key: string) => Promise<T>): Promise<T> {
  try {
    return await call(await pageKey.get())
  } catch (error) {
    if (!refusedForKey(error)) throw error
    pageKey.drop()
    return await call(await pageKey.get())
  }
}
