/**
 * The reads of the PostgreSQL store's message half (docs/architecture.md
 * §8 "Several machines"): messages pending or waiting, the sessions held
 * here, one message, what a long-lived host may adopt, and the sweep — as
 * the SQLite store's (`home/store-messages.ts`).
 *
 * @module dsh-cross-session/home/pg/pg-message-reads
 */

import type { StoredMessage } from '../store.js'
import { MINE, PgMessages } from './pg-messages.js'
import { pgMessageOf, type PgMessageRow } from './pg-message-rows.js'

/** How long a session nobody holds keeps its row (what its last holder left), ms: 30 days, as in the SQLite store. */
const FREE_HOLDER_RETAIN_MS = 30 * 24 * 60 * 60_000

/** A target with waiting messages, its holder and that holder's lease. */
interface AdoptRow {
  readonly target: string
  readonly machine: string | null
  readonly pid: number | null
  readonly start: string | null
  readonly leased: boolean | null
}

/** The message half's reads (each one statement) and sweep (one transaction); faults of the server throw as store faults. */
export class PgMessageReads extends PgMessages {
  async pendingFor(sessionId: string): Promise<StoredMessage[]> {
    const rows = await this.read<PgMessageRow>(`SELECT * FROM ${this.s}.messages WHERE target = $1 AND state = 'pending'
      ORDER BY n`, [sessionId])
    return rows.map(pgMessageOf)
  }

  async waiting(): Promise<Set<string>> {
    // Not this process's own claims: those are in flight here, and a claim would not take them again.
    const rows = await this.read<{ target: string }>(`SELECT DISTINCT target FROM ${this.s}.messages
      WHERE state IN ('pending', 'claimed') AND NOT (state = 'claimed' AND ${MINE})`, this.mine())
    return new Set(rows.map(row => row.target))
  }

  async heldHere(): Promise<string[]> {
    const rows = await this.read<{ session_id: string }>(`SELECT session_id FROM ${this.s}.holders
      WHERE machine = $1 AND pid = $2 AND start = $3`, this.mine())
    return rows.map(row => row.session_id)
  }

  async message(messageId: string): Promise<StoredMessage | undefined> {
    const rows = await this.read<PgMessageRow>(`SELECT * FROM ${this.s}.messages WHERE message_id = $1`, [messageId])
    return rows[0] === undefined ? undefined : pgMessageOf(rows[0])
  }

  /**
   * Sessions with messages that may wake them and no living holder — never one another machine published
   * (`home/pg/pg-directory.ts`): its log is there, so only its machine can wake it, and a host here would find no such
   * session and refuse what waits for it as `target-gone`.
   */
  async adoptable(): Promise<string[]> {
    const rows = await this.read<AdoptRow>(`SELECT DISTINCT m.target, h.machine, h.pid, h.start,
        p.lease_until > clock_timestamp() AS leased
      FROM ${this.s}.messages m LEFT JOIN ${this.s}.holders h ON h.session_id = m.target
        LEFT JOIN ${this.s}.processes p ON p.machine = h.machine AND p.pid = h.pid AND p.start = h.start
      WHERE m.state IN ('pending', 'claimed') AND m.may_wake AND (m.expires_at IS NULL OR m.expires_at >= $1)
        AND (EXISTS (SELECT 1 FROM ${this.s}.directory d WHERE d.session_id = m.target AND d.machine = $2)
          OR (m.for_machine = $2 AND NOT EXISTS (SELECT 1 FROM ${this.s}.directory d WHERE d.session_id = m.target)))`,
    [this.now(), this.self.machine])
    return rows.filter(row => row.machine === null || row.pid === null || !this.alive({ leased: row.leased === true,
      tag: { machine: row.machine, pid: row.pid, start: Number(row.start ?? 0) } })).map(row => row.target)
  }

  /**
   * Drop recorded and refused messages older than `retainMs`, rows of dead processes, and long-free holder rows.
   * @returns messages dropped.
   */
  async sweep(now: number, retainMs: number): Promise<number> {
    return await this.tx(async query => {
      const dropped = await query(`DELETE FROM ${this.s}.messages WHERE state IN ('recorded', 'refused') AND updated_at < $1
        RETURNING 1`, [now - retainMs])
      // `joined_at` as text: to the microsecond, as stored (a JavaScript Date keeps milliseconds).
      const processes = await query<{ machine: string, pid: number, start: string, leased: boolean, joined: string }>(`SELECT machine,
        pid, start, joined_at::text AS joined, lease_until > clock_timestamp() AS leased FROM ${this.s}.processes`)
      for (const row of processes) {
        const tag = { machine: row.machine, pid: row.pid, start: Number(row.start) }
        if (this.alive({ tag, leased: row.leased })) continue
        // Judged as read: a process that joined again since (a new `joined_at`), or one of another machine whose lease
        // was renewed since, is not dropped.
        await query(`DELETE FROM ${this.s}.processes WHERE machine = $1 AND pid = $2 AND start = $3 AND joined_at::text = $4
          AND (machine = $5 OR lease_until <= clock_timestamp())`, [tag.machine, tag.pid, row.start, row.joined, this.self.machine])
      }
      // Never a row a transition has locked (it is deciding on that session now).
      await query(`DELETE FROM ${this.s}.holders WHERE session_id IN (SELECT session_id FROM ${this.s}.holders
        WHERE pid IS NULL AND (let_go_at IS NULL OR let_go_at < $1) FOR UPDATE SKIP LOCKED)`, [now - FREE_HOLDER_RETAIN_MS])
      return dropped.length
    })
  }
}
