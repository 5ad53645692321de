/**
 * Live settings (docs/tools.md "Settings", docs/architecture.md §6) on the
 * REAL rc.8 settings service and a real Cordis root
 * (test/support/memory-settings.ts); the session services are the fake host
 * built from rc.8 (test/support/fake-host.ts).
 *
 * Layering (defaults < row < user section), a change applying to the next
 * call, `enabled` toggling the tools, a hostile section, the web UI's
 * revision-fenced write, no settings service, and per-preset mounting
 * (host and preset rows together and each alone).
 */
import type { Context } from '@deepseek-ai/cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Config, freshNotes, isScopedContext, resolveSettings, SettingsSource } from '../../src/testing.js'
import { apply } from '../../src/plugin.js'
import { MOUNT_GRACE_MS } from '../../src/testing.js'
import { FakeHost, type FakeAgent } from '../support/fake-host.js'
import { MemorySettings, realRoot, settle } from '../support/memory-settings.js'

const NS = 'cross-session' as never
const TOOLS = ['sessions_list', 'sessions_read', 'sessions_send']

/** The defaults as docs/tools.md "Settings" documents them (written out, not read from `DEFAULT_SETTINGS`). */
const DOCUMENTED_DEFAULTS = {
  enabled: true, defaultSendMode: 'queue', allowResume: true, frameMessages: true, includeInjectedByDefault: false,
  maxListResults: 25, maxReadMessages: 12, maxMessageChars: 1200, maxSendChars: 4000, visibility: 'all',
  maxSendsPerMinute: 6, maxHops: 4, recordWaitMs: 5000, answerWaitMs: 120000, notifyByDefault: false, noticeTtlMs: 43200000, noticeWakesEndedRun: false,
  inbound: 'accept', holdExpiryMs: 600000, store: 'sqlite', machine: '',
}

afterEach(() => {
  vi.useRealTimers()
})

/** The fake session services, provided on a real root. */
function provideSessions(root: Context, host: FakeHost): void {
  for (const name of ['tools', 'sessionQuery', 'agents', 'agentDefaultModel']) {
    root.provide(name)
    root.set(name, host.services[name])
  }
}

/**
 * A context tagged the way rc.8 `@deepseek-ai/dsh-scope` `createScope` tags
 * a preset's standing scope: `ctx.extend({ [kScope]: { agentPreset } })`
 * with a module-private `Symbol('dsh.scope')`.
 */
function presetScope(root: Context, presetId: string): Context {
  return root.extend({ [Symbol('dsh.scope')]: { agentPreset: presetId } })
}

function mount(ctx: Context, config: unknown): void {
  ctx.plugin({ name: 'dsh-cross-session', Config, apply } as never, config as never)
}

async function scene(options: { settings?: Record<string, unknown>, row?: unknown } = {}) {
  const { root, logs } = await realRoot({ settings: {}, ...options })
  const host = new FakeHost()
  provideSessions(root, host)
  for (let i = 0; i < 5; i++) host.persist(`session-${i}`, 1000 + i)
  const me = host.goLive('session-me', 9000)
  mount(root, options.row ?? {})
  await settle()
  const settings = root.get('settings') as MemorySettings | undefined
  return { root, logs, host, me, settings }
}

function rows(text: string): number {
  return text.split('\n').filter(line => line.startsWith('- ')).length
}

describe('layering: schema defaults < row config < the user section', () => {
  it('resolves each key from the highest layer that sets it', async () => {
    const { settings } = await scene({ row: { maxHops: 3, maxListResults: 10 }, settings: { [NS]: { maxListResults: 2 } } })
    expect(settings?.get(NS)).toEqual({ ...DOCUMENTED_DEFAULTS, maxHops: 3, maxListResults: 2 })
  })

  it('Config fills defaults and lets every value through for resolveSettings to judge', () => {
    expect(Config({})).toEqual(DOCUMENTED_DEFAULTS)
    const hostile = { maxListResults: 'ten', maxHops: 999, visibility: 7, surprise: true }
    const passed = Config(structuredClone(hostile) as never)
    expect(passed).toMatchObject(hostile)
    const { settings, notes } = resolveSettings(passed)
    expect(settings).toMatchObject({ maxListResults: 25, maxHops: 32, visibility: 'all' })
    expect(notes).toEqual([
      'maxListResults: expected an integer 1–200, got "ten"; using 25',
      'visibility: expected one of all | workspace, got number 7; using all',
      'maxHops: 999 is outside 1–32 or not an integer; using 32',
      'unknown setting "surprise" ignored',
    ])
    // An inherited name is not a setting either (an own-key check, not `in`).
    expect(resolveSettings(JSON.parse('{"constructor": 1, "toString": 2}')).notes).toEqual([
      'unknown setting "constructor" ignored',
      'unknown setting "toString" ignored',
    ])
  })

  it('freshNotes logs a note once, not again on every later change', () => {
    expect(freshNotes(['a', 'b'], ['b', 'c'])).toEqual(['c'])
  })

  it('reads the current value in O(1): the same object until the source changes', () => {
    let raw: unknown = { maxHops: 2 }
    const source = new SettingsSource({}, () => {})
    source.setSource(() => raw, 'settings')
    const first = source.current
    expect(source.current).toBe(first)
    raw = { maxHops: 5 }
    expect(source.current.maxHops).toBe(5)
  })
})

describe('a change applies to the next call, with no restart', () => {
  it('maxListResults from the settings document caps the next sessions_list', async () => {
    const { host, me, settings } = await scene()
    expect(rows(await host.run('sessions_list', {}, me))).toBe(6)
    settings!.push({ [NS]: { maxListResults: 2 } })
    expect(rows(await host.run('sessions_list', {}, me))).toBe(2)
  })

  it('enabled: false unregisters the three tools; true registers them again', async () => {
    const { host, logs, settings } = await scene()
    expect([...host.registered.keys()]).toEqual(TOOLS)
    settings!.push({ [NS]: { enabled: false } })
    await settle()
    expect(host.registered.size).toBe(0)
    settings!.push({ [NS]: { enabled: true } })
    await settle()
    expect([...host.registered.keys()]).toEqual(TOOLS)
    expect(logs.filter(line => /enabled: false; .* unregistered|^registered sessions_list/.test(line.text)).map(line => line.text.slice(0, 30)))
      .toEqual(['registered sessions_list, sess', 'enabled: false; sessions_list,', 'registered sessions_list, sess'])
  })

  it('the web UI\'s write (settings.mutate with the revision it read) applies; a stale revision is refused', async () => {
    const { host, me, settings } = await scene()
    const revision = settings!.describe().find(view => view.ns === NS)!.revision
    await settings!.mutate(NS, [{ op: 'set', path: ['maxListResults'], value: 3 }], revision)
    expect(rows(await host.run('sessions_list', {}, me))).toBe(3)
    await expect(settings!.mutate(NS, [{ op: 'set', path: ['maxListResults'], value: 4 }], revision)).rejects.toMatchObject({ code: 'SETTINGS_CONFLICT' })
    expect(rows(await host.run('sessions_list', {}, me))).toBe(3)
  })
})

describe('a hostile settings section never stops the boot', () => {
  it('wrong types, out-of-range numbers and unknown keys: tools registered, values defaulted or clamped, each logged', async () => {
    const { host, logs } = await scene({ settings: { [NS]: { maxListResults: 'lots', maxHops: -3, allowResume: 'no', extra: 1 } } })
    expect([...host.registered.keys()]).toEqual(TOOLS)
    expect(logs.filter(line => line.level === 'warn').map(line => line.text)).toEqual([
      'settings: allowResume: expected true or false, got "no"; using true',
      'settings: maxListResults: expected an integer 1–200, got "lots"; using 25',
      'settings: maxHops: -3 is outside 1–32 or not an integer; using 1',
      'settings: unknown setting "extra" ignored',
    ])
  })

  it('a section that is not a map: tools registered with the row config, and the log says why', async () => {
    const { host, me, logs, settings } = await scene({ row: { maxListResults: 4 }, settings: { [NS]: 'loud' } })
    expect([...host.registered.keys()]).toEqual(TOOLS)
    expect(settings?.get(NS)).toBeUndefined()
    expect(rows(await host.run('sessions_list', {}, me))).toBe(4)
    expect(logs.some(line => line.level === 'warn' && line.text.startsWith('settings: the "cross-session" section was not registered (settings section "cross-session" must be an object of keys)'))).toBe(true)
  })

  it('a bad live edit keeps the values in force and logs the change', async () => {
    const { host, me, logs, settings } = await scene({ settings: { [NS]: { maxListResults: 3 } } })
    settings!.push({ [NS]: { maxListResults: 0 } })
    expect(rows(await host.run('sessions_list', {}, me))).toBe(1)
    expect(logs.map(line => line.text)).toContain('settings: maxListResults: 0 is outside 1–200 or not an integer; using 1')
  })
})

describe('registration is all three or none', () => {
  it('a registry that refuses one tool leaves none registered and says why', () => {
    const host = new FakeHost()
    const tools = host.services.tools as { register(definition: { name: string }): () => void }
    const register = tools.register.bind(tools)
    host.services.tools = {
      register(definition: { name: string }) {
        if (definition.name === 'sessions_send') throw new Error('tool "sessions_send" is already registered')
        return register(definition)
      },
    }
    apply(host.context(), {})
    expect(host.registered.size).toBe(0)
    expect(host.logs).toContainEqual({ level: 'warn', message: 'could not register the tools: tool "sessions_send" is already registered' })
  })
})

describe('a row config that is not a map', () => {
  it('is refused by Cordis at load with its invalid config error (the loader validates the row with Config)', async () => {
    const { root } = await realRoot()
    const host = new FakeHost()
    provideSessions(root, host)
    const fiber = root.plugin({ name: 'dsh-cross-session', Config, apply } as never, 5 as never) as unknown as { _error?: Error }
    await settle()
    expect(host.registered.size).toBe(0)
    expect(String(fiber._error)).toMatch(/invalid config:\n {2}- expected object but got 5/)
  })
})

describe('without a settings service', () => {
  it('the row config alone applies, with one info line', async () => {
    vi.useFakeTimers()
    const host = new FakeHost()
    apply(host.context(), { maxListResults: 1 })
    vi.advanceTimersByTime(MOUNT_GRACE_MS)
    expect(host.logs.filter(line => line.message.startsWith('settings:'))).toEqual([
      { level: 'info', message: 'settings: no settings service in this composition; the row config alone applies' },
    ])
    host.persist('session-a', 1)
    host.persist('session-b', 2)
    expect(rows(await host.run('sessions_list', {}, host.goLive('session-me', 3)))).toBe(1)
  })
})

describe('per-preset mounting', () => {
  async function presetScene(options: { hostRow: boolean, settings?: Record<string, unknown> }) {
    const { root, logs } = await realRoot({ settings: options.settings ?? {} })
    const hostTools = new FakeHost()
    const presetTools = new FakeHost()
    provideSessions(root, hostTools)
    for (let i = 0; i < 5; i++) hostTools.persist(`session-${i}`, 1000 + i)
    if (options.hostRow) mount(root, { maxListResults: 4 })
    await settle()
    // The preset's own `tools` registry (rc.8 gives each scope its own view).
    const preset = presetScope(root, 'xs-peers')
    const scoped = preset.isolate('tools')
    scoped.provide('tools')
    scoped.set('tools', presetTools.services.tools)
    mount(scoped, { maxListResults: 2 })
    await settle()
    const settings = root.get('settings') as MemorySettings
    const me = hostTools.goLive('session-me', 9000)
    const run = (host: FakeHost, agent: FakeAgent) => async (tool: string) => host.run(tool, {}, agent)
    return { root, logs, settings, hostTools, presetTools, me, listHost: run(hostTools, me), listPreset: run(presetTools, me), preset }
  }

  it('the tag of a preset scope is recognised, the host plane is not', async () => {
    const { root } = await realRoot()
    expect(isScopedContext(root)).toBe(false)
    expect(isScopedContext(presetScope(root, 'x').extend({}))).toBe(true)
  })

  it('host and preset rows together: one registration; the preset row reads the host section live', async () => {
    const { settings, logs, listHost, listPreset, presetTools } = await presetScene({ hostRow: true })
    expect(settings.describe().map(view => view.ns)).toEqual([NS])
    expect(logs.some(line => /already registered/.test(line.text))).toBe(false)
    expect(rows(await listHost('sessions_list'))).toBe(4)
    expect(rows(await listPreset('sessions_list'))).toBe(4) // the host section (base: the host row), not the preset row's 2
    settings.push({ [NS]: { maxListResults: 3 } })
    expect(rows(await listHost('sessions_list'))).toBe(3)
    expect(rows(await listPreset('sessions_list'))).toBe(3)
    settings.push({ [NS]: { enabled: false } })
    await settle()
    expect(presetTools.registered.size).toBe(0)
    settings.push({ [NS]: {} })
    await settle()
    expect([...presetTools.registered.keys()]).toEqual(TOOLS)
  })

  it('a preset row alone: registers nothing and uses its own row config', async () => {
    const { settings, listPreset, presetTools, logs } = await presetScene({ hostRow: false, settings: { [NS]: { maxListResults: 5 } } })
    expect(settings.describe()).toEqual([])
    expect([...presetTools.registered.keys()]).toEqual(TOOLS)
    expect(rows(await listPreset('sessions_list'))).toBe(2)
    expect(logs.map(line => line.text)).toContain('settings: preset row; reads the host plane\'s "cross-session" section when one is registered, else its row config')
  })

  it('a host row alone registers the section', async () => {
    const { settings, listHost } = await presetScene({ hostRow: true, settings: { [NS]: { maxListResults: 5 } } })
    expect(settings.describe().map(view => view.ns)).toEqual([NS])
    expect(rows(await listHost('sessions_list'))).toBe(5)
  })
})
