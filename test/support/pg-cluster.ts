/**
 * A throwaway PostgreSQL server for the tests of the PostgreSQL store
 * (docs/architecture.md §8 "Several machines"): its own data directory
 * under the temporary directory, listening on 127.0.0.1 only (a free
 * port, and a socket directory of its own), run by a non-root user
 * (`postgres` when the tests run as root: PostgreSQL refuses to run as
 * root), and stopped and removed at the end.
 *
 * The server comes from Debian's `postgresql` package (`.ci/run` installs
 * it when missing): `initdb` and `pg_ctl` are looked for in `PG_BIN`, then
 * in `/usr/lib/postgresql/<newest>/bin`, then on `PATH`. The database
 * user `xs` has a random password (scram-sha-256 over TCP), so the tests
 * see what a real URL with credentials does.
 *
 * `fsync=off` (a test cluster whose machine never loses power): a
 * server process killed by a test loses nothing committed, since the OS
 * keeps what was written.
 *
 * @module test/support/pg-cluster
 */
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'

/** A running throwaway cluster. */
export interface PgCluster {
  /** `postgres://xs:<password>@127.0.0.1:<port>/postgres` */
  readonly url: string
  readonly port: number
  /** Stop the server at once (as a crash would: `pg_ctl stop -m immediate`), keeping its data. */
  crash(): void
  /** Start it again on the same port and data. */
  start(): void
  /** Stop it and remove its data. */
  stop(): void
}

/** Where `initdb` and `pg_ctl` are, or why they are not found (one line). */
export function pgBin(env: Record<string, string | undefined> = process.env): { readonly dir: string } | { readonly missing: string } {
  const chosen = env.PG_BIN?.trim()
  const debian = '/usr/lib/postgresql'
  const versions = existsSync(debian) ? readdirSync(debian).filter(name => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : []
  const dirs = chosen !== undefined && chosen !== '' ? [chosen] : [...versions.map(version => join(debian, version, 'bin')), ...(env.PATH ?? '').split(':')]
  const dir = dirs.find(candidate => candidate !== '' && existsSync(join(candidate, 'initdb')) && existsSync(join(candidate, 'pg_ctl')))
  return dir === undefined
    ? { missing: `no PostgreSQL server found (initdb and pg_ctl in ${chosen ?? `${debian}/*/bin or PATH`}); install Debian's postgresql package (.ci/run does) or set PG_BIN` }
    : { dir }
}

/** A free TCP port on 127.0.0.1 (bound, read, released). */
async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')))
    })
  })
}

/** The OS user the server runs as: this one, or `postgres` when this is root. */
function serverUser(): { readonly uid: number, readonly gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined
  const line = execFileSync('id', ['postgres'], { encoding: 'utf8' })
  const uid = /uid=(\d+)/.exec(line)?.[1]
  const gid = /gid=(\d+)/.exec(line)?.[1]
  if (uid === undefined || gid === undefined) throw new Error(`cannot read the postgres user: ${line}`)
  return { uid: Number(uid), gid: Number(gid) }
}

/** Start a throwaway cluster (initdb + pg_ctl start, about 2 s). Throws with the server's own words when it cannot. */
export async function startCluster(bin: string): Promise<PgCluster> {
  const user = serverUser()
  const top = mkdtempSync(join(tmpdir(), 'xs-pg-'))
  const data = join(top, 'data')
  const sockets = join(top, 'sockets')
  const password = randomBytes(12).toString('hex')
  const pwfile = join(top, 'pw')
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 })
  execFileSync('mkdir', ['-p', sockets])
  if (user !== undefined) {
    chmodSync(top, 0o755)
    for (const path of [top, sockets, pwfile]) chownSync(path, user.uid, user.gid)
  }
  const options: ExecFileSyncOptions = { stdio: 'pipe', cwd: top, ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }) }
  const run = (tool: string, args: string[]): void => {
    try {
      execFileSync(join(bin, tool), args, options)
    } catch (error: unknown) {
      const failed = error as { stderr?: Buffer, stdout?: Buffer }
      throw new Error(`${tool} failed: ${String(failed.stderr ?? '')}${String(failed.stdout ?? '')}`.trim())
    }
  }
  run('initdb', ['-D', data, '-U', 'xs', `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync'])
  rmSync(pwfile)
  const port = await freePort()
  const start = (): void => run('pg_ctl', ['-D', data, '-w', '-t', '60', '-l', join(top, 'server.log'), '-o',
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${sockets} -c fsync=off -c max_connections=200`, 'start'])
  start()
  let running = true
  return {
    url: `postgres://xs:${password}@127.0.0.1:${port}/postgres`,
    port,
    crash: () => {
      if (running) run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop'])
      running = false
    },
    start: () => {
      if (!running) start()
      running = true
    },
    stop: () => {
      try {
        if (running) run('pg_ctl', ['-D', data, '-m', 'fast', 'stop'])
      } finally {
        running = false
        rmSync(top, { recursive: true, force: true })
      }
    },
  }
}
