/**
 * Counting around one process's home store, for the bench: port calls by
 * method and the time spent in them, and what SQLite was asked underneath —
 * transactions (each transition of the port is one `BEGIN IMMEDIATE`,
 * src/home/store-sqlite.ts) and statements prepared.
 *
 * The store is the real `SqliteHomeStore` opened by `openHomeStore` (same
 * file, pragmas and connection as in production, docs/architecture.md §8);
 * the connection it holds is wrapped on the instance, not replaced.
 *
 * @module bench/home/instrument
 */

import type { DatabaseSync } from 'node:sqlite'
import type { HomeStore } from '../../src/home/store.js'
import type { SqliteHomeStore } from '../../src/home/store-sqlite.js'

/** What one process asked of its store since the last reset. */
export interface StoreCounts {
  /** Port calls, by method. */
  calls: Record<string, number>
  /** Wall time spent inside port calls, ms. */
  ms: number
  /** `BEGIN IMMEDIATE` that took the lock (one per transition; a try that met SQLITE_BUSY is not counted). */
  transactions: number
  /** Statements prepared (`DatabaseSync.prepare`). */
  statements: number
}

/** A store seen through counters. */
export interface CountedStore {
  /** The port to hand to the runtime, the watch and the guard. */
  readonly store: HomeStore
  counts(): StoreCounts
  reset(): void
  /**
   * The longest `BEGIN IMMEDIATE` since the last {@link CountedStore.resetLongest}, ms: the
   * time this process's event loop was blocked waiting for another process's write lock
   * (a `DatabaseSync` call is synchronous; `busy_timeout` waits inside it).
   */
  longestLockWait(): number
  /** The longest `COMMIT` since the last reset, ms (with `synchronous = FULL` it syncs the WAL to disk, on the event loop). */
  longestCommit(): number
  resetLongest(): void
}

/** The connection a `SqliteHomeStore` was opened with (its private `db`). */
function connectionOf(store: SqliteHomeStore): DatabaseSync {
  const db = (store as unknown as { db?: DatabaseSync }).db
  if (db === undefined || typeof db.exec !== 'function' || typeof db.prepare !== 'function') {
    throw new Error('bench: SqliteHomeStore no longer keeps its connection as `db`; update bench/home/instrument.ts')
  }
  return db
}

/** Count what `store` does from now on. */
export function countStore(store: SqliteHomeStore): CountedStore {
  let counts: StoreCounts = { calls: {}, ms: 0, transactions: 0, statements: 0 }
  let longest = 0
  let longestCommit = 0
  const db = connectionOf(store)
  const exec = db.exec.bind(db)
  const prepare = db.prepare.bind(db)
  db.exec = (sql: string): void => {
    if (/^\s*COMMIT\b/i.test(sql)) {
      const started = performance.now()
      try {
        return exec(sql)
      } finally {
        longestCommit = Math.max(longestCommit, performance.now() - started)
      }
    }
    if (!/^\s*BEGIN IMMEDIATE\b/i.test(sql)) return exec(sql)
    const started = performance.now()
    try {
      exec(sql)
      // A transaction begun: a try that met another process's lock (SQLITE_BUSY, tried again later) is none.
      counts.transactions++
    } finally {
      longest = Math.max(longest, performance.now() - started)
    }
  }
  db.prepare = (sql: string) => {
    counts.statements++
    return prepare(sql)
  }
  const wrapped = new Map<PropertyKey, unknown>()
  const proxy = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown
      if (typeof value !== 'function' || key === 'constructor') return value
      let wrapper = wrapped.get(key)
      if (wrapper === undefined) {
        const method = value as (...args: unknown[]) => unknown
        wrapper = (...args: unknown[]): unknown => {
          const name = String(key)
          counts.calls[name] = (counts.calls[name] ?? 0) + 1
          const started = performance.now()
          try {
            return method.apply(target, args)
          } finally {
            counts.ms += performance.now() - started
          }
        }
        wrapped.set(key, wrapper)
      }
      return wrapper
    },
  })
  return {
    store: proxy,
    counts: () => ({ ...counts, calls: { ...counts.calls } }),
    reset: () => { counts = { calls: {}, ms: 0, transactions: 0, statements: 0 } },
    longestLockWait: () => longest,
    longestCommit: () => longestCommit,
    resetLongest: () => {
      longest = 0
      longestCommit = 0
    },
  }
}

/** `a - b`, method by method (counts of a window inside a longer run). */
export function minusCounts(a: StoreCounts, b: StoreCounts): StoreCounts {
  const calls: Record<string, number> = {}
  for (const [name, value] of Object.entries(a.calls)) {
    const delta = value - (b.calls[name] ?? 0)
    if (delta !== 0) calls[name] = delta
  }
  return { calls, ms: a.ms - b.ms, transactions: a.transactions - b.transactions, statements: a.statements - b.statements }
}

/** Counts divided by `n` (per message), calls sorted by name. */
export function perItem(counts: StoreCounts, n: number): StoreCounts {
  const calls = Object.fromEntries(Object.entries(counts.calls).sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) => [name, value / n]))
  return { calls, ms: counts.ms / n, transactions: counts.transactions / n, statements: counts.statements / n }
}

/** One line: `post 1, claim 1 … · 3 tx, 9 statements, 0.41 ms`. */
export function describeCounts(counts: StoreCounts): string {
  const round = (value: number): string => Number.isInteger(value) ? String(value) : value.toFixed(2)
  const calls = Object.entries(counts.calls).map(([name, value]) => `${name} ${round(value)}`).join(', ')
  return `${calls || 'no calls'} · ${round(counts.transactions)} tx, ${round(counts.statements)} statements, ${counts.ms.toFixed(2)} ms in the store`
}
