/**
 * Which boot of which host a process runs on (docs/architecture.md §8
 * "Several machines"): a machine id is a file under `DSH_HOME`, so a home
 * copied to another host (a cloned VM or container volume, synced
 * dotfiles) carries the same id there. Processes of one machine judge each
 * other by pid + start time, which means nothing on another host, so a
 * process that finds a process of its machine id on another boot with a
 * lease running refuses to join (`home/pg/pg-holders.ts`).
 *
 * The boot is Linux's `/proc/sys/kernel/random/boot_id` (new at each boot,
 * kernel documentation `Documentation/admin-guide/sysctl/kernel.rst`),
 * else the host name.
 *
 * @module dsh-cross-session/home/pg/boot-id
 */

import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'

let cached: string | undefined

/** This boot's id (`boot:` and the kernel's), or `host:` and the host name where the kernel gives none. */
export function bootId(): string {
  if (cached !== undefined) return cached
  try {
    const id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    cached = id === '' ? `host:${hostname()}` : `boot:${id}`
  } catch {
    cached = `host:${hostname()}`
  }
  return cached
}
