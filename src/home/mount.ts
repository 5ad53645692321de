/**
 * Wire the home into one plugin activation: open the store and start the
 * runtime (one per process and home, shared by every activation in the
 * process), observe `agent/created` / `agent/disposed` / `session/event` on
 * the host context, and wrap the two ports.
 *
 * If the store cannot be used (locked past the wait, full, an I/O error, a
 * symlinked directory, a newer release's schema), the process fails closed
 * (docs/architecture.md §8, "When the store fails"): it keeps retrying in
 * the background (`home/store-supervisor.ts`), lists and reads work
 * without presence, and every send is refused with the reason
 * (`home/fail-closed.ts`); once the store opens, coordination is on.
 *
 * @module dsh-cross-session/home/mount
 */

import { sessionFlush, type HostAgents, type HostSessionQuery } from '../harness/host.js'
import type { Approval, ApprovalStore, ControllerPort, SessionQueryPort, WithdrawStore } from '../ports.js'
import type { CorpusRows } from '../index/shared-rows.js'
import { guardController } from './guard.js'
import { resolveHome } from '../harness/dsh-home.js'
import { withPresence } from './query.js'
import { HomeRuntime } from './runtime.js'
import type { StoreSupervisor } from './store-supervisor.js'
import { chooseStore } from './store-choice.js'
import { failClosed, unavailableInbound } from './fail-closed.js'
import { isHeadlessRun, isLongLivedHost, persistedEvents } from './host-events.js'
import { listenToHost } from './host-listeners.js'
import type { MachinesHome } from './pg/machines-home.js'
import { RunTaskGate } from './run-hold.js'
import { topLevelOnly } from './adoption.js'
import { approvalDecided } from './approval-notices.js'
import { serveChannel, type WebServerRoutes } from './channel.js'
import { ChangeFeed, storeVersion } from './change-feed.js'
import { HomeReach } from './home-reach.js'
import type { InboundMode, Settings } from '../settings/resolve.js'

/** The slice of the Cordis context this module reads. */
interface HomeMountContext {
  readonly agents: HostAgents
  readonly sessionQuery: HostSessionQuery
  get(name: string): unknown
  on?(name: string, listener: (...args: unknown[]) => void, options?: { global?: boolean }): unknown
  effect(execute: () => () => void, label?: string): unknown
  inject?(deps: string[],
    callback: (ctx: { get(name: string): unknown, effect(execute: () => () => void, label?: string): unknown }) => void): unknown
}

interface Shared {
  runtime: HomeRuntime
  supervisor: StoreSupervisor
  /** Whether session shells can write the home (the temp roots at start, each session's workspace). */
  reach: HomeReach
  /** What the channel pushes to its pages (./change-feed.ts). */
  feed: ChangeFeed
  users: number
  /** The gate of a headless run's own task session (./run-hold.ts). */
  runTask: RunTaskGate
  /** Close what the store's choice opened beside it (./store-choice.ts). */
  closeAlso: () => void
  /** On a shared store: how to start, and then, the other machines' side of this process (./pg/machines-home.ts). */
  startMachines?: (local: SessionQueryPort, inbound: () => InboundMode) => MachinesHome
  machines?: MachinesHome
  /** The `store` and `machine` settings it started with. */
  where?: StoreSettings
}

// One runtime per process and home, even if two copies of this module load.
const REGISTRY_KEY = Symbol.for('dsh-cross-session.home-runtimes')
function registry(): Map<string, Shared> {
  const holder = globalThis as unknown as Record<symbol, Map<string, Shared> | undefined>
  holder[REGISTRY_KEY] ??= new Map()
  return holder[REGISTRY_KEY]
}

/** Which store the home uses (the `store` and `machine` settings, read when the home starts: docs/tools.md#settings). */
export interface StoreSettings {
  readonly store: string
  readonly machine: string
}

function startRuntime(
  ctx: HomeMountContext, home: string, log: (level: 'info' | 'warn', message: string) => void, where: StoreSettings,
): Omit<Shared, 'users' | 'reach' | 'feed'> {
  const warn = (message: string): void => log('warn', message)
  // Each SQLite store opened runs a message's transitions on a worker thread of its own (docs/architecture.md §8,
  // "Off the event loop"); a PostgreSQL one runs every transition on its worker thread (`home/pg/pg-sync.ts`).
  const chosen = chooseStore(home, where.store, where.machine, warn)
  if (chosen.shown !== undefined) log('info', `the cross-session store is the PostgreSQL server at ${chosen.shown}`)
  const { supervisor, watch } = chosen
  // What arrives for a headless run's own task waits; the terminal is told on stderr (docs/tools.md "A headless run's own task").
  const runTask = new RunTaskGate(supervisor.store, () => isHeadlessRun(ctx), line => void process.stderr.write(line))
  const runtime = new HomeRuntime(supervisor.store, watch, {
    agents: ctx.agents,
    log: message => log('warn', message),
    longLived: () => isLongLivedHost(ctx),
    // Read per call, as the guard's open-turn check does.
    listEvents: async sessionId => await persistedEvents(ctx)?.(sessionId) ?? [],
    flush: sessionFlush(ctx),
    admits: sessionId => runTask.admits(sessionId),
  })
  supervisor.listen(() => runtime.rejoin()) // opened after a time without, or moved to a replaced file
  chosen.onLeaseLost(() => runtime.rejoin()) // judged gone by other machines for a while: its holds are marked again
  try {
    runtime.start()
  } catch (error: unknown) {
    runtime.stop()
    chosen.closeAlso()
    throw error
  }
  return { runtime, supervisor, runTask, closeAlso: chosen.closeAlso, ...(chosen.machines === undefined ? {} : {
    startMachines: chosen.machines }) }
}

/** What {@link mountHome} gives the plugin. */
export interface Mounted {
  readonly sessions: SessionQueryPort
  readonly controller: ControllerPort
  /** The target's own inbound choice, held messages, the journal (throws while the store cannot be used). */
  readonly inbound: Pick<ApprovalStore, 'inboundOf' | 'holdForApproval' | 'journal'> & WithdrawStore
  /** The store's shared corpus rows now (`undefined` while it cannot be used). */
  readonly corpus?: () => CorpusRows | undefined
  readonly runtime?: HomeRuntime
}

/**
 * Start (or join) the home runtime and wrap the ports.
 * @returns the wrapped ports, the inbound port and the store's shared corpus
 *   rows; when the home could not be started at all, ports that refuse
 *   every send (never uncoordinated).
 */
export function mountHome(ctx: HomeMountContext, ports: { sessions: SessionQueryPort, controller: ControllerPort },
  log: (level: 'info' | 'warn', message: string) => void, settings: () => Pick<Settings, 'inbound' | 'visibility'>,
  where: StoreSettings = { store: 'sqlite', machine: '' }): Mounted {
  const inbound = (): InboundMode => settings().inbound
  const home = resolveHome()
  const runtimes = registry()
  let shared = runtimes.get(home)
  if (shared === undefined) {
    try {
      const started = startRuntime(ctx, home, log, where)
      const feed = new ChangeFeed(() => storeVersion(started.runtime.store))
      shared = { ...started, users: 0, reach: new HomeReach(home, message => log('warn', message)), feed, where }
    } catch (error: unknown) {
      // Never uncoordinated: without a runtime every send is refused (lists and reads still work).
      log('warn', `the cross-session home could not be started: ${String(error)}; sends to other sessions are refused`)
      return { ...ports, controller: failClosed(ports.controller, true), inbound: unavailableInbound('the home could not be started') }
    }
    runtimes.set(home, shared)
  }
  if (shared.where !== undefined && (shared.where.store !== where.store || shared.where.machine !== where.machine))
    log('warn', 'the store or machine setting changed while another activation of this process keeps the home: '
    + 'it applies once they all start again')
  const { runtime, supervisor, reach, feed } = shared
  shared.users++
  const warn = (message: string): void => log('warn', message)
  const decided = (approval: Approval): void => approvalDecided(runtime.store, approval, message => log('info', message))
  runtime.expired = decided
  const here = withPresence(ports.sessions, runtime.store)
  // On a shared store, once per process: this machine's sessions published, other machines' reads answered.
  if (shared.users === 1 && shared.startMachines !== undefined) shared.machines = shared.startMachines(here, inbound)
  const sessions = shared.machines === undefined ? here : shared.machines.wrap(here, () => settings().visibility)
  // The browser half's channel (held messages, inbound choices, traffic), where the host serves a web UI; once per process.
  if (shared.users === 1) {
    ctx.inject?.(['webServer'], inner => {
      const webServer = inner.get('webServer') as WebServerRoutes | undefined
      const own = (register: () => () => void): void => { inner.effect(register, 'cross-session: channel') }
      if (webServer !== undefined) {
        serveChannel(webServer, own,
          { runtime, sessions, inbound, decided, log: warn, home: () => reach.view(), status: () => supervisor.status(), feed,
            ...(shared.machines === undefined ? {} : { elsewhere: shared.machines.elsewhere }) })
      }
    })
  }
  listenToHost(ctx, { runtime, reach, feed, warn, ...(shared.machines === undefined ? {} : { changed: shared.machines.poke }) })
  ctx.effect(() => () => {
    const entry = runtimes.get(home)
    if (entry === undefined || --entry.users > 0) return
    runtimes.delete(home)
    entry.machines?.stop()
    entry.closeAlso()
    entry.runtime.stop()
  }, 'cross-session.home')
  const listEvents = persistedEvents(ctx)
  if (listEvents === undefined)
    log('info', 'the host has no sessionPersistence.readFrom: a session mid-turn in a process without this package cannot be detected')
  const controller = failClosed(guardController(ports.controller, runtime, {
    isLocal: sessionId => ctx.agents.get(sessionId) !== undefined,
    keeps: sessionId => shared.runTask.keeps(sessionId),
    agentOf: sessionId => ctx.agents.get(sessionId),
    listEvents,
    log: warn,
    machineOf: sessionId => sessions.machineOf?.(sessionId),
  }))
  if (runtime.adopt !== undefined) runtime.adopt = topLevelOnly(runtime.adopt, ports.sessions, runtime.store)
  return { corpus: () => supervisor.corpus(), runtime, inbound: runtime.store, sessions, controller }
}
