/**
 * The read side across machines (docs/architecture.md §8 "Several
 * machines"): wraps this machine's session query port so that the
 * sessions other machines published on the shared store are listed,
 * looked up and read as well, each marked with its machine.
 *
 * - **List**: this machine's rows, and every other machine's published
 *   rows (`home/pg/directory-cache.ts`); the list tool filters, searches and
 *   orders them all alike. While the store cannot be reached, the list has
 *   this machine's rows only, and says so once in the log.
 * - **Read**: a session of another machine is read by a process of that
 *   machine (`home/pg/remote-read.ts`); this process then makes the same
 *   window, cursor, filters and markers of it as of a local read.
 * - **Visibility `workspace`**: a path names a directory of its own
 *   machine only, so no session of another machine shares the caller's
 *   workspace: with `workspace`, other machines' sessions do not exist for
 *   the tools.
 * - A session id this machine has is this machine's session.
 *
 * @module dsh-cross-session/home/pg/machines-query
 */

import type { NewestRows, SessionQueryPort, SessionRecordView } from '../../ports.js'
import type { MachineView, SessionHeaderView, Visibility } from '../../model/sessions.js'
import { headerPasses } from '../../model/list-filter.js'
import { storeFaultWhy } from '../store-fault.js'
import type { DirectoryCache, DirectoryReading } from './directory-cache.js'
import type { RemoteSession } from './directory-rows.js'
import type { RemoteRead } from './remote-read.js'

/** What a read of another machine's session came to (`home/pg/remote-read.ts`). */
export type RemoteSurface = RemoteRead

/** What the wrapper needs besides the local port. */
export interface MachinesQueryDeps {
  readonly directory: DirectoryCache
  /** Ask `machine` for the surface of its session `sessionId`, waiting a bounded time. */
  readonly askSurface: (machine: string, sessionId: string, signal: AbortSignal) => Promise<RemoteSurface>
  /** The `visibility` setting now (read per call). */
  readonly visibility: () => Visibility
  readonly log: (message: string) => void
}

/**
 * A thrown failure the tools show by its code (`core/failure-kinds.ts` `MACHINE_CODES`). An expected condition (a
 * machine not running), not a fault of this code: the host log gets its one line, without a stack.
 */
function machineFailure(code: string, message: string): Error {
  const error = Object.assign(new Error(message), { code, name: 'MachineFailure' })
  error.stack = `MachineFailure: ${message}`
  return error
}

const REMOTE_FAILURES = {
  'unanswered': 'machine/unanswered',
  'failed': 'machine/read-failed',
  'too-large': 'machine/too-large',
} as const

/**
 * A published session as the tools read a corpus row. Live only while its machine is reachable: a machine none of
 * whose processes holds a lease runs no session, whatever it last published (a process that ended does not publish).
 */
export function remoteRecord(session: RemoteSession): SessionRecordView {
  const machine = { name: session.machineName, reachable: session.reachable }
  return { header: session.header, live: session.live && session.reachable, persisted: true, machine }
}

/** Wrap `inner` (this machine's port) with the sessions of other machines. */
export function withMachines(inner: SessionQueryPort, deps: MachinesQueryDeps): SessionQueryPort {
  let down = false
  const none: DirectoryReading = { sessions: [], byId: new Map() }
  /** Other machines' sessions now; none with visibility `workspace`, none (said once) while the store cannot be reached. */
  const others = async (): Promise<DirectoryReading> => {
    if (deps.visibility() === 'workspace') return none
    try {
      const reading = await deps.directory.get()
      if (down) deps.log('other machines\' sessions are listed again: the shared store answers')
      down = false
      return reading
    } catch (error: unknown) {
      const why = storeFaultWhy(error)
      if (why === undefined) throw error
      if (!down) deps.log(`other machines' sessions are not listed while the shared store cannot be reached (${why})`)
      down = true
      return none
    }
  }
  /** The published session `sessionId` of another machine, or `undefined`. @throws `machine/store-down` while unknown. */
  const other = async (sessionId: string): Promise<RemoteSession | undefined> => {
    if (deps.visibility() === 'workspace') return undefined
    try {
      return (await deps.directory.get()).byId.get(sessionId)
    } catch (error: unknown) {
      const why = storeFaultWhy(error)
      if (why === undefined) throw error
      throw machineFailure('machine/store-down', `the shared store cannot be reached: ${why}`)
    }
  }
  /** The session as last read (for the synchronous questions asked right after a list, lookup or read). */
  const known = (sessionId: string): RemoteSession | undefined =>
    deps.visibility() === 'workspace' ? undefined : deps.directory.known()?.byId.get(sessionId)
  return {
    ...inner,
    async listSessions(signal) {
      const [here, there] = await Promise.all([inner.listSessions(signal), others()])
      return there.sessions.length === 0 ? here : [...here, ...there.sessions.map(remoteRecord)]
    },
    ...(inner.listNewest === undefined ? {} : {
      async listNewest(request, signal): Promise<NewestRows | undefined> {
        const [here, there] = await Promise.all([inner.listNewest!(request, signal), others()])
        if (here === undefined) return undefined
        const passing = there.sessions.filter(session => headerPasses(request.filter, session.header)).map(remoteRecord)
        return { rows: [...here.rows, ...passing], considered: here.considered + passing.length }
      },
    }),
    async readTitles(sessionIds, signal, options) {
      const { byId } = await others()
      const titles = await inner.readTitles(sessionIds.filter(id => !byId.has(id)), signal, options)
      for (const id of sessionIds) if (byId.has(id)) titles.set(id, byId.get(id)?.title)
      return titles
    },
    async readSurface(sessionId, signal) {
      const here = await inner.readSurface(sessionId, signal)
      if (here !== undefined) return here
      const session = await other(sessionId)
      if (session === undefined) return undefined
      // No process of that machine holds a lease: none would answer, so the reader is not kept waiting for nothing.
      if (!session.reachable) throw machineFailure('machine/unreachable', `machine ${session.machineName} is not reachable`)
      const read = await deps.askSurface(session.machine, sessionId, signal)
      if (read.kind === 'surface') return read.surface
      if (read.kind === 'not-found') return undefined
      if (read.kind === 'cancelled') throw Object.assign(new Error('the read was cancelled'), { name: 'AbortError' })
      throw machineFailure(REMOTE_FAILURES[read.kind], `reading ${sessionId} on machine ${session.machineName}: ${read.kind}`)
    },
    async lookup(sessionId, signal) {
      const here = await inner.lookup(sessionId, signal)
      if (here !== undefined) return here
      const session = await other(sessionId)
      return session === undefined ? undefined : remoteRecord(session)
    },
    ...(inner.recheck === undefined ? {} : {
      async recheck(sessionIds, signal) {
        const { byId } = await others()
        const checked: Map<string, SessionHeaderView | undefined> = await inner.recheck!(sessionIds.filter(id => !byId.has(id)), signal)
        for (const id of sessionIds) if (byId.has(id)) checked.set(id, byId.get(id)?.header)
        return checked
      },
    }),
    isLive: sessionId => inner.isLive(sessionId) || (known(sessionId)?.live === true && known(sessionId)?.reachable === true),
    // A holder on another machine is that machine's process, not another dsh process of this home.
    liveElsewhere: sessionId => known(sessionId) === undefined ? inner.liveElsewhere?.(sessionId) : undefined,
    // Another machine's sessions follow that machine's `inbound` setting, not this one's; one it never published
    // (another release) holds the message for that machine's user rather than decide by this machine's setting.
    // A store that cannot be read throws its own fault: the send is refused with that reason (tools/send/gather.ts).
    hostInboundOf: async sessionId => {
      if (deps.visibility() === 'workspace') return undefined
      const session = (await deps.directory.get()).byId.get(sessionId)
      return session === undefined ? undefined : session.hostInbound ?? 'hold'
    },
    machineOf(sessionId): MachineView | undefined {
      const session = known(sessionId)
      return session === undefined ? undefined : { name: session.machineName, reachable: session.reachable }
    },
  }
}
