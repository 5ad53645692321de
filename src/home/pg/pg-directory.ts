/**
 * The directory of the PostgreSQL store (docs/architecture.md §8 "Several
 * machines"): each machine publishes its sessions (`directory` rows, one
 * transaction per change, `home/pg/directory-rows.ts`), and lists every
 * other machine's, each with its machine's name and whether a process of
 * that machine holds a lease now (judged by the database's clock).
 *
 * @module dsh-cross-session/home/pg/pg-directory
 */

import type { DirectoryChange, DirectoryRow, RemoteSession } from './directory-rows.js'
import { PgWithdraw } from './pg-withdraw.js'
import type { InboundMode } from '../../settings/resolve.js'

const INBOUND_MODES: readonly InboundMode[] = ['accept', 'hold', 'refuse']

/** A `directory` row as `pg@8` returns it, with its machine (`bigint` as text). */
interface PgDirectoryRow {
  readonly machine: string
  readonly machine_name: string
  readonly reachable: boolean
  readonly session_id: string
  readonly created_at: string
  readonly cwd: string | null
  readonly parent_session: string | null
  readonly origin: string | null
  readonly agent_preset: string | null
  readonly title: string | null
  readonly live: boolean
}

/** Rows per `INSERT` of a publication (each row is 9 parameters; PostgreSQL takes at most 65,535). */
const ROWS_PER_INSERT = 1000

/** The directory on PostgreSQL. */
export class PgDirectory extends PgWithdraw {
  /**
   * Publish this machine's sessions: `change.upserts` written, `change.removed` gone, and, when given, the `inbound`
   * setting of this machine (what a peer message to its sessions does when a session made no choice of its own), in
   * one transaction.
   */
  async publish(change: DirectoryChange, inbound?: InboundMode): Promise<void> {
    if (change.upserts.length === 0 && change.removed.length === 0 && inbound === undefined) return
    const machine = this.self.machine
    await this.tx(async query => {
      if (inbound !== undefined) {
        await query(`UPDATE ${this.s}.machines SET inbound = $2 WHERE id = $1 AND inbound IS DISTINCT FROM $2`, [machine, inbound])
      }
      if (change.removed.length > 0) {
        await query(`DELETE FROM ${this.s}.directory WHERE machine = $1 AND session_id = ANY($2::text[])`, [machine, change.removed])
      }
      for (let from = 0; from < change.upserts.length; from += ROWS_PER_INSERT) {
        const rows = change.upserts.slice(from, from + ROWS_PER_INSERT)
        const values = rows.flatMap(row => [row.header.id, row.header.createdAt, row.header.cwd ?? null, row.header.parentSession ?? null,
          row.header.origin ?? null, row.header.agentPreset ?? null, row.title ?? null, row.live])
        // `$1` the machine, eight parameters per row from `$2`, the time last.
        const now = `$${rows.length * 8 + 2}`
        const tuples = rows.map((_, index) => `($1, ${columns(index * 8 + 2, 8)}, ${now})`)
        await query(`INSERT INTO ${this.s}.directory
          (machine, session_id, created_at, cwd, parent_session, origin, agent_preset, title, live, updated_at) VALUES ${tuples.join(', ')}
          ON CONFLICT (machine, session_id) DO UPDATE SET created_at = excluded.created_at, cwd = excluded.cwd,
            parent_session = excluded.parent_session, origin = excluded.origin, agent_preset = excluded.agent_preset,
            title = excluded.title, live = excluded.live, updated_at = excluded.updated_at`, [machine, ...values, this.now()])
      }
    })
  }

  /** What this machine published, by session id (what a publication is computed against). */
  async published(): Promise<Map<string, DirectoryRow>> {
    const rows = await this.read<PgDirectoryRow>(`SELECT d.*, '' AS machine_name, true AS reachable
      FROM ${this.s}.directory d WHERE d.machine = $1`, [this.self.machine])
    return new Map(rows.map(row => [row.session_id, rowOf(row)]))
  }

  /** Every other machine's published sessions, newest first. */
  async directory(): Promise<RemoteSession[]> {
    const rows = await this.read<PgDirectoryRow & { machine_inbound: string | null }>(`SELECT d.*, m.name AS machine_name,
        m.inbound AS machine_inbound,
        EXISTS (SELECT 1 FROM ${this.s}.processes p WHERE p.machine = d.machine AND p.lease_until > clock_timestamp()) AS reachable
      FROM ${this.s}.directory d JOIN ${this.s}.machines m ON m.id = d.machine
      WHERE d.machine <> $1 ORDER BY d.created_at DESC, d.session_id`, [this.self.machine])
    return rows.map(row => {
      const inbound = INBOUND_MODES.find(mode => mode === row.machine_inbound)
      return { ...rowOf(row), machine: row.machine, machineName: row.machine_name, reachable: row.reachable,
        ...(inbound === undefined ? {} : { hostInbound: inbound }) }
    })
  }
}

/** `count` parameters from `$first`: `$2, $3, …`. */
function columns(first: number, count: number): string {
  return Array.from({ length: count }, (_, column) => `$${first + column}`).join(', ')
}

function rowOf(row: PgDirectoryRow): DirectoryRow {
  return {
    header: {
      id: row.session_id, createdAt: Number(row.created_at),
      ...(row.cwd === null ? {} : { cwd: row.cwd }),
      ...(row.parent_session === null ? {} : { parentSession: row.parent_session }),
      ...(row.origin === null ? {} : { origin: row.origin }),
      ...(row.agent_preset === null ? {} : { agentPreset: row.agent_preset }),
    },
    ...(row.title === null ? {} : { title: row.title }),
    live: row.live,
  }
}
