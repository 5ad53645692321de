/**
 * The `store` setting's value (docs/architecture.md §8 "Several machines"):
 * where the home store lives. Pure, and free of Node APIs: the resolver
 * (src/settings/resolve.ts), the web card (which bundles it) and the
 * PostgreSQL store all read the value through {@link storePlace}.
 *
 * - empty or `sqlite` (the default): the SQLite file of this `DSH_HOME`;
 * - `postgres://…` or `postgresql://…`: a PostgreSQL server, as libpq reads
 *   a connection URI (user, password, host, port, database, `sslmode`, …);
 *   what the URL leaves out comes from the standard libpq variables
 *   (`PGHOST`, `PGPASSWORD`, `PGSSLMODE`, …), as node-postgres reads them.
 *
 * A password is never shown: {@link shownUrl} (a parsed URL) and
 * {@link shownStore} (any value) are what every log line, note, refusal and
 * the card print.
 *
 * @module dsh-cross-session/settings/store-url
 */

/** Longest `store` value, in characters (code points); a connection URI is far shorter. */
export const MAX_STORE_CHARS = 2000

/** Where the home store lives. */
export type StorePlace =
  | { readonly kind: 'sqlite' }
  | { readonly kind: 'postgres', readonly url: string, readonly shown: string }

/**
 * Read the setting (trimmed first).
 * @returns the place, or `{ error }`: a sentence naming what is wrong, never
 *   the password. Refused: a value longer than {@link MAX_STORE_CHARS}
 *   characters, one with a control character (the URL parser would drop a
 *   tab or a line break, so the driver would read another text than the one
 *   judged), text that is not a URL, and a scheme other than `postgres:` or
 *   `postgresql:`.
 */
export function storePlace(value: string): StorePlace | { readonly error: string } {
  const text = value.trim()
  if (text === '' || text === 'sqlite') return { kind: 'sqlite' }
  const length = [...text].length
  if (length > MAX_STORE_CHARS) return { error: `store must be at most ${MAX_STORE_CHARS} characters; this one has ${length}` }
  if (/\p{Cc}/u.test(text)) return { error: 'store must be sqlite or a postgres:// URL on one line; this one holds a control character' }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { error: `store must be sqlite or a postgres:// URL; "${shownText(text)}" is neither` }
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    return { error: `store must be sqlite or a postgres:// URL; ${url.protocol.replace(/:$/, '')}: is another scheme` }
  }
  return { kind: 'postgres', url: text, shown: shownUrl(url) }
}

/** A URL as it may be printed: its password (in the URL or as `?password=`) replaced by `***`. */
export function shownUrl(url: URL): string {
  const shown = new URL(url.href)
  if (shown.password !== '') shown.password = '***'
  if (shown.searchParams.has('password')) shown.searchParams.set('password', '***')
  return shown.href
}

/**
 * Any `store` value as it may be printed (trimmed): a PostgreSQL URL through
 * {@link shownUrl}, `sqlite` and empty as they are, anything else with what
 * may be credentials masked (as in {@link storePlace}'s refusals).
 */
export function shownStore(value: string): string {
  const text = value.trim()
  const place = storePlace(text)
  if ('error' in place) return shownText(text)
  return place.kind === 'postgres' ? place.shown : text
}

/**
 * A text that failed to parse as a URL, printed without whatever sits before its last `@` after the scheme
 * (credentials, maybe) and without the value of a `password` parameter (its name as libpq decodes it).
 */
function shownText(text: string): string {
  const at = text.lastIndexOf('@')
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? ''
  const masked = at < 0 ? text : `${scheme}***${text.slice(at)}`
  const query = masked.indexOf('?')
  if (query < 0) return masked
  const params = masked.slice(query + 1).split('&').map(part => {
    const name = part.split('=')[0] ?? ''
    return decoded(name).toLowerCase() === 'password' ? `${name}=***` : part
  })
  return `${masked.slice(0, query)}?${params.join('&')}`
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
