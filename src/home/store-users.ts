/**
 * One store for every process of a home (docs/architecture.md §8 "One
 * store per home"): each process of this package records, in its home's
 * SQLite store, which store it coordinates on (the `store` setting: `sqlite`,
 * or a PostgreSQL server's URL without its password), keyed by its pid and
 * start time. A process whose choice differs from a living process's
 * refuses to coordinate: two processes of one home on two stores would each
 * hold and deliver the same sessions without seeing the other. Pure.
 *
 * @module dsh-cross-session/home/store-users
 */

import type { ProcessTag } from '../harness/dsh-home.js'

/** The `meta` key prefix of a process's choice: `store-user:<pid>:<start>`. */
export const STORE_USER_PREFIX = 'store-user:'

/** The `meta` key of `tag`'s choice. */
export function storeUserKey(tag: ProcessTag): string {
  return `${STORE_USER_PREFIX}${tag.pid}:${tag.start}`
}

/** The process a `meta` key names, or `undefined` for a key that is not a choice. */
export function storeUserOf(key: string): ProcessTag | undefined {
  const match = /^store-user:(\d+):(\d+)$/.exec(key)
  return match === null ? undefined : { pid: Number(match[1]), start: Number(match[2]) }
}

/** What the recorded choices say of `choice`: the rows of dead processes to drop, and another living process's other choice. */
export function judgeChoices(rows: ReadonlyArray<{ readonly key: string, readonly value: string }>, choice: string, self: ProcessTag,
  alive: (tag: ProcessTag) => boolean): { readonly dead: string[], readonly other?: string } {
  const dead: string[] = []
  let other: string | undefined
  for (const row of rows) {
    const tag = storeUserOf(row.key)
    if (tag === undefined || (tag.pid === self.pid && tag.start === self.start)) continue
    if (!alive(tag)) dead.push(row.key)
    else if (row.value !== choice) other ??= row.value
  }
  return other === undefined ? { dead } : { dead, other }
}
