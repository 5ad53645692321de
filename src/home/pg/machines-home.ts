/**
 * What a process on a shared PostgreSQL store runs for the other machines
 * (docs/architecture.md §8 "Several machines"), once per process and home:
 *
 * - the publisher of this machine's sessions (`home/pg/directory-publisher.ts`);
 * - the answerer of reads other machines ask of this one (`home/pg/read-answerer.ts`);
 * - the directory of other machines' sessions (`home/pg/directory-cache.ts`),
 *   which {@link MachinesHome.wrap} adds to a session query port
 *   (`home/pg/machines-query.ts`).
 *
 * @module dsh-cross-session/home/pg/machines-home
 */

import type { SessionQueryPort } from '../../ports.js'
import type { Visibility } from '../../model/sessions.js'
import type { InboundMode } from '../../settings/resolve.js'
import { DirectoryCache } from './directory-cache.js'
import { DirectoryPublisher } from './directory-publisher.js'
import { withMachines } from './machines-query.js'
import type { PgHomeStore } from './pg-home-store.js'
import type { PgEvent } from './pg-sync-protocol.js'
import { ReadAnswerer } from './read-answerer.js'
import { askSurface, type ReadStore } from './remote-read.js'

/** How often the `inbound` setting is looked at for a change to publish, ms. */
const INBOUND_LOOK_MS = 500

/** The other machines' side of one process. */
export interface MachinesHome {
  /** `local` with the sessions of other machines (`visibility` read per call). */
  wrap(local: SessionQueryPort, visibility: () => Visibility): SessionQueryPort
  /**
   * Whether a session is not this machine's, for the web page's decisions (`home/channel-machines.ts`): another
   * machine published it, or this machine has no such session. Whatever the `visibility` setting. @throws a store
   * fault while the directory cannot be read.
   */
  elsewhere(sessionId: string, signal: AbortSignal): Promise<boolean>
  /** A session of this process changed (made, ended, its log written): publish it soon. */
  poke(): void
  stop(): void
}

/**
 * Start publishing `local`'s sessions and answering reads of them.
 * @param store - the supervised store (a {@link PgHomeStore} while one is open; its calls throw store faults otherwise).
 * @param listen - hears every store's events (`home/pg/pg-site.ts`).
 * @param local - this machine's sessions, with presence (`home/query.ts`).
 * @param inbound - this machine's `inbound` setting now (published for other machines' senders).
 */
export function startMachines(store: Pick<PgHomeStore, 'machines'>, listen: (listener: (event: PgEvent) => void) => () => void,
  local: SessionQueryPort, inbound: () => InboundMode, log: (message: string) => void): MachinesHome {
  const onChange = (listener: () => void): (() => void) => listen(event => 'changed' in event && listener())
  // Reads asked and answered on whichever store is open now; their calls throw store faults while none is.
  const reads: ReadStore = {
    callAsync: async <T>(method: string, args: readonly unknown[]): Promise<T> =>
      await (store.machines as (method: string, ...args: readonly unknown[]) => Promise<unknown>)(method, ...args) as T,
    listen,
  }
  const directory = new DirectoryCache(async () => await store.machines('directory'), onChange)
  const publisher = new DirectoryPublisher(local, {
    published: async () => await store.machines('published'),
    publish: async (change, mode) => await store.machines('publish', change, mode),
  }, log, inbound)
  const answerer = new ReadAnswerer({
    store: reads, log, readSurface: async (sessionId, signal) => await local.readSurface(sessionId, signal),
  })
  publisher.start()
  answerer.start()
  // A lease taken again: other machines may have listed this one as not reachable; its rows are published again.
  const unlisten = listen(event => 'leaseLost' in event && publisher.poke())
  // A change of this machine's `inbound` setting is published within a second or so: other machines' senders apply it.
  let lastInbound = inbound()
  const watchInbound = setInterval(() => {
    if (inbound() === lastInbound) return
    lastInbound = inbound()
    publisher.poke()
  }, INBOUND_LOOK_MS)
  watchInbound.unref?.()
  return {
    wrap: (inner, visibility) => withMachines(inner, {
      directory, visibility, log,
      askSurface: async (machine, sessionId, signal) => await askSurface(reads, machine, sessionId, { signal }),
    }),
    elsewhere: elsewhereOf(directory, local),
    poke: () => publisher.poke(),
    stop() {
      clearInterval(watchInbound)
      unlisten()
      publisher.stop()
      void answerer.stop()
    },
  }
}

/** {@link MachinesHome.elsewhere}: published by another machine (any visibility), or no session of this machine. */
export function elsewhereOf(directory: Pick<DirectoryCache, 'get'>, local: Pick<SessionQueryPort, 'lookup'>): MachinesHome['elsewhere'] {
  return async (sessionId, signal) => (await directory.get()).byId.has(sessionId) || await local.lookup(sessionId, signal) === undefined
}
