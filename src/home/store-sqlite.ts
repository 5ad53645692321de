/**
 * The home store in SQLite (`node:sqlite` `DatabaseSync`, as rc.8's own
 * `@deepseek-ai/dsh-session-query-sqlite@0.1.0-rc.8` lib/index.js opens its
 * database): WAL, `busy_timeout`, and every transition of the port one
 * `BEGIN IMMEDIATE` transaction, so the write lock is taken before the first
 * read and two processes never decide on the same rows at once.
 *
 * Opening (`home/store-open.ts`) creates the file 0600 in a 0700 directory.
 *
 * @module dsh-cross-session/home/store-sqlite
 */

import type { ProcessTag } from '../harness/dsh-home.js'
import type { Board, HoldOutcome, HomeStore, LetGo, LogPlace, NewMessage, PostOutcome, StoredMessage } from './store.js'
import { OffLoop, onTheLoop, type OffLoopMethod, type OffLoopRunner } from './off-loop.js'
import { fileIdentity } from './store-files.js'
import type { TransactionTimes } from './store-connection.js'
import { retryInBackground } from './store-retry.js'
import type { CorpusRows } from '../index/shared-rows.js'
import { storeCorpusRows } from './store-corpus.js'
import { StoreWithdraw } from './store-withdraw.js'
import { holderOf, holderTag, lastLetGo, sameTag, type HolderRow } from './store-rows.js'

export { MAX_WAITING_PER_TARGET } from './store-messages.js'

/**
 * The SQLite home store of one process: the holder half here, the message half in `StoreMessages`, the notice half in
 * `StoreNotices`, the approval half in `StoreApprovals`, the withdraw in {@link StoreWithdraw}.
 */
export class SqliteHomeStore extends StoreWithdraw implements HomeStore {
  /** Where the per-message transitions run off the loop, once {@link runOffLoop} asked for a worker thread. */
  private offLoop: OffLoopRunner | undefined

  /**
   * From now on, run {@link postOffLoop}, {@link claimOffLoop} and {@link recordAllOffLoop} on a worker thread with a
   * connection of its own to this store's file (`home/off-loop.ts`), started now (they run on the event loop until it
   * has opened). Called right after opening (`home/mount.ts`); a store never asked runs them on the event loop.
   * @param log - where a worker that could not open the file, or stopped, is said.
   */
  runOffLoop(log: (message: string) => void): void {
    const identity = fileIdentity(this.path)
    if (identity === undefined || this.offLoop !== undefined) return
    // A worker that stopped with a transition in flight may have claimed unanswered: those claims go back to pending.
    // Run from the worker's `exit` listener: whatever it throws is said, never left to escape the event loop.
    const worker = new OffLoop({ file: this.path, identity, self: this.self }, log, () => {
      try {
        retryInBackground(() => this.unclaimAll(), () => true, log)
      } catch (error: unknown) {
        log(`handing back this process's claims after its store worker stopped failed: ${String(error)}`)
      }
    })
    this.offLoop = worker
    worker.start()
  }

  /** {@link runOffLoop} with `runner` in place of a worker thread (the crash schedules answer its transitions as steps). */
  runOffLoopWith(runner: OffLoopRunner): void {
    this.offLoop ??= runner
  }

  postOffLoop(message: NewMessage): Promise<PostOutcome> {
    return this.offLoopRun('post', [message], () => this.post(message))
  }

  claimOffLoop(sessionId: string): Promise<StoredMessage[]> {
    return this.offLoopRun('claim', [sessionId], () => this.claim(sessionId))
  }

  recordAllOffLoop(places: readonly LogPlace[], answered?: { readonly sessionId: string, readonly turnEndSeq: number }): Promise<void> {
    return this.offLoopRun('recordAll', answered === undefined ? [places] : [places, answered], () => this.recordAll(places, answered))
  }

  /** The worker connection's transactions (for the bench); `undefined` while no worker is open. */
  async offLoopTimes(): Promise<TransactionTimes | undefined> {
    return await this.offLoop?.times()
  }

  private offLoopRun<T>(method: OffLoopMethod, args: readonly unknown[], here: () => T): Promise<T> {
    return this.offLoop === undefined ? onTheLoop(here) : this.offLoop.run(method, args, here)
  }

  override close(): void {
    this.offLoop?.close()
    super.close()
  }

  join(longLived: boolean): void {
    this.tx(() => {
      this.sql('INSERT OR REPLACE INTO processes (pid, start, long_lived, joined_at) VALUES (?, ?, ?, ?)')
        .run(this.self.pid, this.self.start, longLived ? 1 : 0, this.now())
    })
  }

  leave(how: LetGo): void {
    this.tx(() => {
      const { pid, start } = this.self
      this.sql('UPDATE messages SET state = \'pending\', claimer_pid = NULL, claimer_start = NULL, updated_at = ? '
        + 'WHERE state = \'claimed\' AND claimer_pid = ? AND claimer_start = ?').run(this.now(), pid, start)
      this.sql('UPDATE holders SET pid = NULL, start = NULL, state = \'free\', woke = 0, let_go = ?, let_go_pid = ?, let_go_at = ? '
        + 'WHERE pid = ? AND start = ?').run(how, pid, this.now(), pid, start)
      this.sql('DELETE FROM processes WHERE pid = ? AND start = ?').run(pid, start)
    })
  }

  private hold(sessionId: string, state: 'waking' | 'live'): HoldOutcome {
    return this.tx(() => {
      const row = this.row(sessionId)
      const living = this.livingHolder(row)
      if (living !== undefined && !sameTag(living, this.self)) return { ok: false, holder: holderOf(row!, living) }
      const already = living !== undefined
      const previous = already ? undefined : lastLetGo(row, this.alive)
      // A dead holder is replaced here, in the transaction that installs this one; its claims return to pending.
      if (!already) this.revertDeadClaims(sessionId)
      const woke = state === 'waking' || (already && row!.woke === 1) ? 1 : 0
      const next = already && row!.state === 'live' ? 'live' : state
      this.sql(`INSERT INTO holders (session_id, pid, start, state, woke, since, let_go, let_go_pid, let_go_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (session_id) DO UPDATE SET pid = excluded.pid, start = excluded.start, state = excluded.state,
          woke = excluded.woke, since = excluded.since,
          let_go = excluded.let_go, let_go_pid = excluded.let_go_pid, let_go_at = excluded.let_go_at`)
        .run(sessionId, this.self.pid, this.self.start, next, woke, this.now(), previous?.how ?? null, previous?.pid ?? null,
          previous?.at ?? null)
      return previous === undefined ? { ok: true, already } : { ok: true, already, previous }
    })
  }

  acquire(sessionId: string): HoldOutcome {
    return this.hold(sessionId, 'waking')
  }

  markLive(sessionId: string): HoldOutcome {
    return this.hold(sessionId, 'live')
  }

  release(sessionId: string, how: LetGo): void {
    this.tx(() => {
      const { pid, start } = this.self
      // A wake that failed wrote nothing to the log: the row keeps what it knew of the holder before.
      const changed = how === 'wake-failed'
        ? this.sql('UPDATE holders SET pid = NULL, start = NULL, state = \'free\', woke = 0 WHERE session_id = ? AND pid = ? AND start = ?')
            .run(sessionId, pid, start)
        : this.sql('UPDATE holders SET pid = NULL, start = NULL, state = \'free\', woke = 0, let_go = ?, let_go_pid = ?, let_go_at = ? '
          + 'WHERE session_id = ? AND pid = ? AND start = ?').run(how, pid, this.now(), sessionId, pid, start)
      if (Number(changed.changes) === 0) return
      this.sql('UPDATE messages SET state = \'pending\', claimer_pid = NULL, claimer_start = NULL, updated_at = ? WHERE target = ? '
        + 'AND state = \'claimed\' AND claimer_pid = ? AND claimer_start = ?').run(this.now(), sessionId, pid, start)
    })
  }

  view(sessionId: string) {
    const row = this.row(sessionId)
    const living = this.livingHolder(row)
    if (living !== undefined) return { holder: holderOf(row!, living) }
    const letGo = lastLetGo(row, this.alive)
    return letGo === undefined ? {} : { lastLetGo: letGo }
  }

  board(): Board {
    const elsewhere = new Map<string, ReturnType<typeof holderOf>>()
    const verdicts = new Map<string, boolean>()
    for (const row of this.sql('SELECT * FROM holders WHERE pid IS NOT NULL').all() as unknown as HolderRow[]) {
      const tag = holderTag(row)!
      if (sameTag(tag, this.self)) continue
      // One liveness probe per distinct process, however many sessions it holds.
      const key = `${tag.pid}.${tag.start}`
      let alive = verdicts.get(key)
      if (alive === undefined) verdicts.set(key, alive = this.alive(tag))
      if (alive) elsewhere.set(row.session_id, holderOf(row, tag))
    }
    return { elsewhere }
  }

  corpus(): CorpusRows {
    return storeCorpusRows({ sql: text => this.sql(text), tx: work => this.tx(work) })
  }

  /** When and where an unreadable store was moved aside before this one was made (`home/store-open.ts`), if it was. */
  rebuilt(): { readonly at: number, readonly aside: string } | undefined {
    const row = this.sql('SELECT value FROM meta WHERE key = \'rebuilt\'').get() as { value: string } | undefined
    try {
      const value = row === undefined ? undefined : JSON.parse(row.value) as { at?: unknown, aside?: unknown }
      return typeof value?.at === 'number' && typeof value.aside === 'string' ? { at: value.at, aside: value.aside } : undefined
    } catch {
      return undefined
    }
  }

  isLongLived(tag: ProcessTag): boolean | undefined {
    const row = this.sql('SELECT long_lived FROM processes WHERE pid = ? AND start = ?').get(tag.pid, tag.start)
    return row === undefined ? undefined : (row as { long_lived?: unknown }).long_lived === 1
  }

  longLivedHost(): ProcessTag | undefined {
    const rows = this.sql('SELECT pid, start FROM processes WHERE long_lived = 1 ORDER BY joined_at')
      .all() as Array<{ pid: number, start: number }>
    return rows.map(row => ({ pid: row.pid, start: row.start })).find(tag => !sameTag(tag, this.self) && this.alive(tag))
  }
}
