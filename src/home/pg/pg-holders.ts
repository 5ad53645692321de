/**
 * The holder half of the PostgreSQL store (docs/architecture.md §8
 * "Several machines"): which process of which machine holds each session,
 * how its last holder let go, and which processes are long-lived hosts —
 * the transitions of the SQLite store's holder half (`home/store-sqlite.ts`)
 * with the same outcomes, each one transaction (`home/pg/pg-tx.ts`), and
 * liveness by lease (`home/pg/lease.ts`).
 *
 * A transition that may install this process as a holder first checks, in
 * the same transaction, that its own lease is unexpired: a process whose
 * lease ran out may already have been judged dead and had its holds taken,
 * so it takes nothing (a store fault: `this process's lease on the store
 * ran out`) until it joins again. Its lease is its fence.
 *
 * @module dsh-cross-session/home/pg/pg-holders
 */

import type { ProcessTag } from '../../harness/dsh-home.js'
import type { Board, Holder, HolderView, HoldOutcome, LetGo } from '../store.js'
import { LEASE_MS, sameProcess, type MachineTag } from './lease.js'
import { NOW_MS, PgConnection } from './pg-connection.js'
import type { Query } from './pg-tx.js'
import { storeFault } from '../store-fault.js'
import { holderOf, namedOf, WITH_LEASE, type PgHolderRow } from './pg-holder-rows.js'

/** The holder transitions on PostgreSQL: each one transaction, each read one statement; faults of the server throw as store faults. */
export class PgHolders extends PgConnection {
  /** Register this process (and its machine) with a fresh lease; `longLived`: a host that outlives its sessions' turns. */
  async join(longLived: boolean): Promise<void> {
    const { machine, pid, start } = this.self
    await this.tx(async query => {
      // The machine's row first: it is locked until commit, so two hosts joining with one id at once take turns.
      await query(`INSERT INTO ${this.s}.machines (id, name, seen_at) VALUES ($1, $2, clock_timestamp())
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, seen_at = excluded.seen_at`, [machine, this.machineName])
      await this.refuseCopiedMachine(query)
      await query(`INSERT INTO ${this.s}.processes (machine, pid, start, long_lived, joined_at, lease_until, boot)
        VALUES ($1, $2, $3, $4, clock_timestamp(), clock_timestamp() + $5 * interval '1 millisecond', $6)
        ON CONFLICT (machine, pid, start) DO UPDATE SET long_lived = excluded.long_lived, joined_at = excluded.joined_at,
          lease_until = excluded.lease_until, boot = excluded.boot`,
      [machine, pid, start, longLived, LEASE_MS, this.boot])
    })
  }

  /**
   * Refuse this machine id while a process of it on another boot holds a lease (`home/pg/boot-id.ts`): its home was
   * copied to another host, and the two would judge each other's processes by pids of another host. Run on open
   * (`home/pg/pg-site.ts`) and in each join. @throws a store fault naming what to do.
   */
  async refuseCopiedMachine(query: Query = this.read): Promise<void> {
    const { machine, pid, start } = this.self
    const others = await query(`SELECT 1 FROM ${this.s}.processes WHERE machine = $1 AND boot <> $2 AND lease_until > clock_timestamp()
      AND NOT (pid = $3 AND start = $4) LIMIT 1`, [machine, this.boot, pid, start])
    if (others.length === 0) return
    throw storeFault(`a process on another host uses this home's machine id ${machine}`,
      'another host uses this home\'s machine id (a copied DSH_HOME?): remove cross-session/machine-id on one of them')
  }

  /**
   * Renew this process's lease for {@link LEASE_MS} from now (database clock). @returns `false` when it had already
   * run out or this process never joined: the caller joins again (`home/pg/pg-sync-worker.ts` does).
   */
  async renew(): Promise<boolean> {
    const { machine, pid, start } = this.self
    // Quiet: a renewal changes nothing another process acts on, so it wakes none of them.
    return await this.tx(async query => {
      const renewed = await query(`UPDATE ${this.s}.processes SET lease_until = clock_timestamp() + $4 * interval '1 millisecond'
        WHERE machine = $1 AND pid = $2 AND start = $3 AND lease_until > clock_timestamp() RETURNING 1`, [machine, pid, start, LEASE_MS])
      if (renewed.length === 0) return false
      await query(`UPDATE ${this.s}.machines SET seen_at = clock_timestamp() WHERE id = $1`, [machine])
      return true
    }, true)
  }

  /** This process stops: let go of every session it holds (as `how`) and drop its lease. */
  async leave(how: LetGo): Promise<void> {
    const { machine, pid, start } = this.self
    await this.tx(async query => {
      // Holder rows first, then messages: the order every other transition takes its locks in (no deadlock to wait out).
      await query(`UPDATE ${this.s}.holders SET machine = NULL, pid = NULL, start = NULL, state = 'free', woke = false,
        let_go = $4, let_go_machine = $1, let_go_pid = $2, let_go_at = ${NOW_MS} WHERE machine = $1 AND pid = $2 AND start = $3`,
      [machine, pid, start, how])
      await this.returnClaims(query)
      await query(`DELETE FROM ${this.s}.processes WHERE machine = $1 AND pid = $2 AND start = $3`, [machine, pid, start])
    })
  }

  /** Take `sessionId` for a wake, unless a living other process holds it (a dead one is replaced in the same step). */
  async acquire(sessionId: string): Promise<HoldOutcome> {
    return await this.hold(sessionId, 'waking')
  }

  /** `sessionId` is live here: hold it, unless a living other process does. */
  async markLive(sessionId: string): Promise<HoldOutcome> {
    return await this.hold(sessionId, 'live')
  }

  /** Let `sessionId` go, only if this process holds it. `wake-failed`: the row keeps what it knew of the holder before. */
  async release(sessionId: string, how: LetGo): Promise<void> {
    // Its claims on this session (only) return to pending in the same transaction.
    const { machine, pid, start } = this.self
    await this.tx(async query => {
      const letGo = how === 'wake-failed' ? '' : `, let_go = $5, let_go_machine = $2, let_go_pid = $3, let_go_at = ${NOW_MS}`
      const released = await query(`UPDATE ${this.s}.holders
        SET machine = NULL, pid = NULL, start = NULL, state = 'free', woke = false${letGo}
        WHERE session_id = $1 AND machine = $2 AND pid = $3 AND start = $4 RETURNING 1`,
      how === 'wake-failed' ? [sessionId, machine, pid, start] : [sessionId, machine, pid, start, how])
      if (released.length > 0) await this.returnClaims(query, sessionId)
    })
  }

  /** One session's holder view (a read). */
  async view(sessionId: string): Promise<HolderView> {
    const rows = await this.read<PgHolderRow>(`${WITH_LEASE(this.s)} WHERE h.session_id = $1`, [sessionId])
    const row = rows[0]
    const named = namedOf(row)
    if (named !== undefined && this.alive(named)) return { holder: holderOf(row!, named.tag) }
    const letGo = this.lastLetGo(row)
    return letGo === undefined ? {} : { lastLetGo: letGo }
  }

  /** Every session held by another living process, of any machine (one query over the held rows). */
  async board(): Promise<Board> {
    const rows = await this.read<PgHolderRow>(`${WITH_LEASE(this.s)} WHERE h.pid IS NOT NULL`)
    const elsewhere = new Map<string, Holder>()
    for (const row of rows) {
      const named = namedOf(row)!
      if (!sameProcess(named.tag, this.self) && this.alive(named)) elsewhere.set(row.session_id, holderOf(row, named.tag))
    }
    return { elsewhere }
  }

  /** Another living long-lived process of this package on this machine (the one that joined first), if any. */
  async longLivedHost(): Promise<MachineTag | undefined> {
    const rows = await this.read<{ pid: number, start: string, leased: boolean }>(
      `SELECT pid, start, lease_until > clock_timestamp() AS leased FROM ${this.s}.processes
        WHERE machine = $1 AND long_lived ORDER BY joined_at`, [this.self.machine])
    return rows.map(row => ({ tag: { machine: this.self.machine, pid: row.pid, start: Number(row.start) }, leased: row.leased }))
      .find(named => !sameProcess(named.tag, this.self) && this.alive(named))?.tag
  }

  /** Whether the process `tag` of this machine joined as a long-lived host; `undefined` for one the store does not know. */
  async isLongLived(tag: ProcessTag): Promise<boolean | undefined> {
    const rows = await this.read<{ long_lived: boolean }>(
      `SELECT long_lived FROM ${this.s}.processes WHERE machine = $1 AND pid = $2 AND start = $3`, [this.self.machine, tag.pid, tag.start])
    return rows[0]?.long_lived
  }

  private async hold(sessionId: string, state: 'waking' | 'live'): Promise<HoldOutcome> {
    return await this.tx(async query => {
      await this.checkLease(query)
      const row = await this.lockSession(query, sessionId)
      const named = namedOf(row)
      const living = this.livingHolder(row)
      if (living !== undefined && !sameProcess(living, this.self)) return { ok: false, holder: holderOf(row, living) }
      const already = living !== undefined
      const previous = already ? undefined : this.lastLetGo(row)
      // A dead holder is replaced here, in the transaction that installs this one; its claims return to pending.
      if (!already) await this.revertDeadClaims(query, sessionId)
      const woke = state === 'waking' || (already && row.woke)
      const next = already && row.state === 'live' ? 'live' : state
      const { machine, pid, start } = this.self
      const previousMachine = previous === undefined ? null : named?.tag.machine ?? row.let_go_machine
      await query(`UPDATE ${this.s}.holders SET machine = $2, pid = $3, start = $4, state = $5, woke = $6, since = clock_timestamp(),
        let_go = $7, let_go_machine = $8, let_go_pid = $9, let_go_at = $10 WHERE session_id = $1`,
      [sessionId, machine, pid, start, next, woke, previous?.how ?? null, previousMachine, previous?.pid ?? null, previous?.at ?? null])
      return previous === undefined ? { ok: true, already } : { ok: true, already, previous }
    })
  }
}
