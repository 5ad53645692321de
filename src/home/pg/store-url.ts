/**
 * The `store` setting's value (docs/architecture.md §8 "Several machines"):
 * where the home store lives. Pure.
 *
 * - empty or `sqlite` (the default): the SQLite file of this `DSH_HOME`;
 * - `postgres://…` or `postgresql://…`: a PostgreSQL server, as libpq reads
 *   a connection URI (user, password, host, port, database, `sslmode`, …);
 *   what the URL leaves out comes from the standard libpq variables
 *   (`PGHOST`, `PGPASSWORD`, `PGSSLMODE`, …), as node-postgres reads them.
 *
 * A password is never shown: {@link shownUrl} is what every log line and
 * refusal prints.
 *
 * @module dsh-cross-session/home/pg/store-url
 */

/** Where the home store lives. */
export type StorePlace =
  | { readonly kind: 'sqlite' }
  | { readonly kind: 'postgres', readonly url: string, readonly shown: string }

/**
 * Read the setting. @returns the place, or `{ error }`: a sentence naming
 * what is wrong, never the password.
 */
export function storePlace(value: string): StorePlace | { readonly error: string } {
  const text = value.trim()
  if (text === '' || text === 'sqlite') return { kind: 'sqlite' }
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

/** A text that failed to parse as a URL, printed without whatever sits before its last `@` after the scheme (credentials, maybe). */
function shownText(text: string): string {
  const at = text.lastIndexOf('@')
  if (at < 0) return text
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? ''
  return `${scheme}***${text.slice(at)}`
}
