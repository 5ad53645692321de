/**
 * The PostgreSQL store of one process (docs/architecture.md §8 "Several
 * machines"), its halves stacked as the SQLite store's are: the holder
 * half (`home/pg/pg-holders.ts`), the message transitions
 * (`home/pg/pg-messages.ts`) and reads (`home/pg/pg-message-reads.ts`), the
 * notice half (`home/pg/pg-notices.ts`), the approval half
 * (`home/pg/pg-approvals.ts`), the withdraw (`home/pg/pg-withdraw.ts`),
 * the directory of every machine's sessions (`home/pg/pg-directory.ts`) and
 * reads asked of another machine (`home/pg/pg-reads.ts`).
 * Every transition is one transaction, every read one statement, and each
 * answers later (a promise); `home/pg/pg-sync.ts` runs it on a worker
 * thread for a caller that must have the answer now.
 *
 * @module dsh-cross-session/home/pg/pg-store
 */

import { PgReads } from './pg-reads.js'

/** The PostgreSQL store's transitions and reads. Faults of the server throw as store faults (`home/store-fault.ts`). */
export class PgStore extends PgReads {
  /** Bytes the store's tables and their indexes take on the server (for the bench). */
  async bytes(): Promise<number> {
    const [row] = await this.read<{ bytes: string | null }>(`SELECT sum(pg_total_relation_size(c.oid)) AS bytes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`, [this.s])
    return Number(row?.bytes ?? 0)
  }
}
