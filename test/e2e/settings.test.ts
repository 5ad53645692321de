/**
 * End to end: live settings through the harness's settings service (docs/architecture.md §6).
 *
 * A `dsh web` host runs with the plugin row. Edits of
 * `$DSH_HOME/settings.yaml` (the file the harness watches) and writes
 * through the host's settings API (`settings.mutate` with the revision read
 * from `settings.describe`, as the web UI's settings page writes) apply to
 * the next tool call with no restart: `maxListResults`, `allowResume: false`
 * (refused `resume-disabled`, the cold session's log byte-identical) and
 * `enabled` (the next model request offers none of the three tools, then
 * all three again). A hostile `settings.yaml` still boots with the tools.
 * A host row and a preset row together register the namespace once, and
 * the preset's sessions follow the host section; a preset row alone
 * registers nothing and uses its own row config.
 * @module test/e2e/settings
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startFakeModel, type FakeModel, type WireTool } from './support/fake-model.ts'
import { homeFixture, makeHome, pluginRow, readLog, readSession, runHeadless, SKIP_E2E, startWeb, waitFor, writePatch, type DshHome, type WebHarness } from './support/harness.ts'
import { router, says, steps } from './support/scenario.ts'

const TOOLS = ['sessions_list', 'sessions_read', 'sessions_send']
const NS = 'cross-session'

interface NamespaceView { ns: string, value: Record<string, unknown>, revision: number, user?: Record<string, unknown> }

/** The `cross-session` view the host's settings API serves (what the web UI reads). */
async function describeSection(web: WebHarness): Promise<NamespaceView | undefined> {
  const { namespaces } = await web.rpc<{ namespaces: NamespaceView[] }>('settings.describe', {})
  return namespaces.find(view => view.ns === NS)
}

/** Write the user's settings document and wait until the host has resolved it. */
async function writeSettings(h: DshHome, web: WebHarness, yaml: string, applied: (value: Record<string, unknown>) => boolean): Promise<void> {
  writeFileSync(join(h.home, 'settings.yaml'), yaml)
  await waitFor(async () => {
    const view = await describeSection(web)
    return view !== undefined && applied(view.value)
  }, `settings.yaml to apply: ${yaml}`)
}

function catalogOf(model: FakeModel, marker: string): string[] {
  const request = model.requests.find(r => !r.isTitle && r.allUserText.includes(marker))
  if (request === undefined) throw new Error(`no model request for ${marker}`)
  return request.tools.map((tool: WireTool) => tool.function.name)
}

function ours(names: string[]): string[] {
  return names.filter(name => TOOLS.includes(name)).sort()
}

function listRows(text: string | undefined): string[] {
  return (text ?? '').split('\n').filter(line => line.startsWith('- '))
}

describe.skipIf(SKIP_E2E)('live settings (dsh web)', () => {
  const fx = homeFixture()

  it('settings.yaml edits and the web UI\'s revision-fenced writes apply to the next call', async () => {
    fx.h = makeHome('settings-live')
    let coldId = ''
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:COLD': says('cold session done'),
        'ROLE:LIST': steps([{ name: 'sessions_list', args: {} }], 'listed'),
        'ROLE:SEND': steps([() => ({ name: 'sessions_send', args: { session_id: coldId, message: 'wake up please' } })], 'sent'),
        'ROLE:API': steps([{ name: 'sessions_list', args: {} }], 'listed via api'),
        'ROLE:TOGGLE': says('toggled'),
        'ROLE:': says('ok'),
      }),
    })
    const patch = writePatch(fx.h, { logLevel: 3 })
    // A cold session: persisted by a headless run, not live in the web host.
    coldId = (await runHeadless(fx.h, fx.model, 'ROLE:COLD take a nap', { patch })).sessionId
    fx.web = await startWeb(fx.h, fx.model, { patch })
    const view = await waitFor(() => describeSection(fx.web!), 'the cross-session namespace to be registered')
    expect(view.value).toMatchObject({ maxListResults: 25, allowResume: true, enabled: true })
    for (let i = 0; i < 3; i++) await fx.web.create()

    // 1. maxListResults: 2 in settings.yaml: the next sessions_list shows at most 2 rows.
    await writeSettings(fx.h, fx.web, `${NS}:\n  maxListResults: 2\n`, value => value.maxListResults === 2)
    const lister = await fx.web.create()
    await fx.web.prompt(lister.sessionId, 'ROLE:LIST who is here?')
    await fx.web.waitIdle(lister.sessionId)
    const list = fx.model.toolResults('sessions_list')[0]?.content
    expect(listRows(list), list).toHaveLength(2)

    // 2. allowResume: false: a send to the cold session is refused and its log is untouched.
    await writeSettings(fx.h, fx.web, `${NS}:\n  maxListResults: 2\n  allowResume: false\n`, value => value.allowResume === false)
    const coldPath = readSession(fx.h, coldId).path
    const before = readFileSync(coldPath)
    const sender = await fx.web.create()
    await fx.web.prompt(sender.sessionId, 'ROLE:SEND wake the cold one')
    await fx.web.waitIdle(sender.sessionId)
    const refused = fx.model.toolResults('sessions_send')[0]?.content ?? ''
    expect(refused).toMatch(/^refused: resume-disabled/)
    expect(readFileSync(coldPath).equals(before)).toBe(true)

    // 3. enabled: false: the next model request of a running conversation offers none of the three; true brings them back.
    const toggler = await fx.web.create()
    await fx.web.prompt(toggler.sessionId, 'ROLE:TOGGLE TURN-1')
    await fx.web.waitIdle(toggler.sessionId)
    expect(ours(catalogOf(fx.model, 'TURN-1'))).toEqual(TOOLS)
    await writeSettings(fx.h, fx.web, `${NS}:\n  enabled: false\n`, value => value.enabled === false)
    await waitFor(() => readLog(fx.h!).some(l => l.name === 'cross-session' && /enabled: false; .* unregistered/.test(l.text)), 'the tools to be unregistered')
    await fx.web.prompt(toggler.sessionId, 'TURN-2 anyone?')
    await fx.web.waitIdle(toggler.sessionId, { turns: 2 })
    expect(catalogOf(fx.model, 'TURN-2').length).toBeGreaterThan(5) // the harness's own tools remain
    expect(ours(catalogOf(fx.model, 'TURN-2'))).toEqual([])
    await writeSettings(fx.h, fx.web, `${NS}:\n  enabled: true\n`, value => value.enabled === true)
    await waitFor(() => readLog(fx.h!).filter(l => l.name === 'cross-session' && /^registered sessions_list/.test(l.text)).length >= 2, 'the tools to be registered again')
    await fx.web.prompt(toggler.sessionId, 'TURN-3 anyone?')
    await fx.web.waitIdle(toggler.sessionId, { turns: 3 })
    expect(ours(catalogOf(fx.model, 'TURN-3'))).toEqual(TOOLS)

    // 4. The web UI's write: settings.mutate with the revision it read; a stale revision is refused.
    const current = (await describeSection(fx.web))!
    await fx.web.rpc('settings.mutate', { ns: NS, ops: [{ op: 'set', path: ['maxListResults'], value: 1 }], expectedRevision: current.revision })
    await expect(fx.web.rpc('settings.mutate', { ns: NS, ops: [{ op: 'set', path: ['maxListResults'], value: 7 }], expectedRevision: current.revision })).rejects.toThrow(/SETTINGS_CONFLICT|changed since it was read|conflict/i)
    const written = readFileSync(join(fx.h.home, 'settings.yaml'), 'utf8')
    expect(written).toMatch(/maxListResults: 1/)
    const viaApi = await fx.web.create()
    await fx.web.prompt(viaApi.sessionId, 'ROLE:API list again')
    await fx.web.waitIdle(viaApi.sessionId)
    expect(listRows(fx.model.toolResults('sessions_list')[1]?.content)).toHaveLength(1)
    const afterMutate = (await describeSection(fx.web))!
    await fx.web.rpc('settings.mutate', { ns: NS, ops: [{ op: 'set', path: ['enabled'], value: false }], expectedRevision: afterMutate.revision })
    await waitFor(() => readLog(fx.h!).filter(l => l.name === 'cross-session' && /enabled: false; .* unregistered/.test(l.text)).length >= 2, 'the API write to unregister the tools')
    const apiOff = await fx.web.create()
    await fx.web.prompt(apiOff.sessionId, 'ROLE:APIOFF anyone?')
    await fx.web.waitIdle(apiOff.sessionId)
    expect(ours(catalogOf(fx.model, 'ROLE:APIOFF'))).toEqual([])
  })

  it('boots with a hostile settings.yaml: tools registered, values clamped or defaulted, each change logged', async () => {
    fx.h = makeHome('settings-hostile')
    fx.model = await startFakeModel({ scenario: router({ 'ROLE:LIST': steps([{ name: 'sessions_list', args: { limit: 200 } }], 'listed'), 'ROLE:': says('ok') }) })
    writeFileSync(join(fx.h.home, 'settings.yaml'), `${NS}:\n  maxListResults: 9000\n  maxHops: many\n  allowResume: [1, 2]\n  frobnicate: true\n`)
    const patch = writePatch(fx.h, { logLevel: 3 })
    fx.web = await startWeb(fx.h, fx.model, { patch })
    const lister = await fx.web.create()
    await fx.web.prompt(lister.sessionId, 'ROLE:LIST who is here?')
    await fx.web.waitIdle(lister.sessionId)
    expect(ours(catalogOf(fx.model, 'ROLE:LIST'))).toEqual(TOOLS)
    expect(fx.model.toolResults('sessions_list')[0]?.content).not.toMatch(/^refused/)
    const notes = readLog(fx.h).filter(l => l.name === 'cross-session' && l.text.startsWith('settings: ')).map(l => l.text)
    expect(notes).toEqual(expect.arrayContaining([
      'settings: allowResume: expected true or false, got an array; using true',
      'settings: maxListResults: 9000 is outside 1–200 or not an integer; using 200',
      'settings: maxHops: expected an integer 1–32, got "many"; using 4',
      'settings: unknown setting "frobnicate" ignored',
    ]))
    await fx.web.stop()

    // A section that is not a map of keys: the row config alone, and the log says why.
    writeFileSync(join(fx.h.home, 'settings.yaml'), `${NS}: 7\n`)
    fx.web = await startWeb(fx.h, fx.model, { patch: writePatch(fx.h, { logLevel: 3, plugin: { maxListResults: 1 } }) })
    const second = await fx.web.create()
    await fx.web.prompt(second.sessionId, 'ROLE:LIST once more')
    await fx.web.waitIdle(second.sessionId)
    expect(listRows(fx.model.toolResults('sessions_list')[1]?.content)).toHaveLength(1)
    expect(readLog(fx.h).some(l => l.name === 'cross-session' && l.text.startsWith('settings: the "cross-session" section was not registered'))).toBe(true)
  })

  it('a host row and a preset row together: one registration; the preset\'s sessions follow the host section', async () => {
    fx.h = makeHome('settings-preset')
    const presetDir = join(fx.h.home, '.agent-presets', 'xs-peers')
    mkdirSync(presetDir, { recursive: true })
    writeFileSync(join(presetDir, 'preset.yml'), 'name: Cross-session peers\ndescription: e2e preset that mounts dsh-cross-session\norder: 9\n')
    writeFileSync(join(presetDir, 'agent.cordis.yml'), `- ${JSON.stringify(pluginRow({ maxListResults: 5 }))}\n`)
    writeFileSync(join(fx.h.home, 'settings.yaml'), `${NS}:\n  maxListResults: 1\n`)
    fx.model = await startFakeModel({ scenario: router({ 'ROLE:P': steps([{ name: 'sessions_list', args: {} }], 'listed'), 'ROLE:': says('ok') }) })
    fx.web = await startWeb(fx.h, fx.model, { patch: writePatch(fx.h, { logLevel: 3 }) })
    for (let i = 0; i < 2; i++) await fx.web.create()
    const peer = await fx.web.create({ agentPreset: 'xs-peers' })
    await fx.web.prompt(peer.sessionId, 'ROLE:P who else is here?')
    await fx.web.waitIdle(peer.sessionId)
    expect(listRows(fx.model.toolResults('sessions_list')[0]?.content)).toHaveLength(1)
    const log = readLog(fx.h)
    expect(log.some(l => /already registered/.test(l.text)), JSON.stringify(log.filter(l => l.type !== 'info'))).toBe(false)
    expect(log.filter(l => l.name === 'cross-session' && /^settings: section "cross-session" registered/.test(l.text))).toHaveLength(1)
    expect(log.some(l => l.name === 'cross-session' && /^settings: preset row/.test(l.text))).toBe(true)
  })

  it('a preset row alone registers nothing and uses its own row config', async () => {
    fx.h = makeHome('settings-preset-alone')
    const presetDir = join(fx.h.home, '.agent-presets', 'xs-peers')
    mkdirSync(presetDir, { recursive: true })
    writeFileSync(join(presetDir, 'preset.yml'), 'name: Cross-session peers\ndescription: e2e preset that mounts dsh-cross-session\norder: 9\n')
    writeFileSync(join(presetDir, 'agent.cordis.yml'), `- ${JSON.stringify(pluginRow({ maxListResults: 2 }))}\n`)
    writeFileSync(join(fx.h.home, 'settings.yaml'), `${NS}:\n  maxListResults: 1\n`)
    fx.model = await startFakeModel({ scenario: router({ 'ROLE:P': steps([{ name: 'sessions_list', args: {} }], 'listed'), 'ROLE:': says('ok') }) })
    fx.web = await startWeb(fx.h, fx.model, { patch: writePatch(fx.h, { logLevel: 3, plugin: false }) })
    for (let i = 0; i < 3; i++) await fx.web.create()
    const peer = await fx.web.create({ agentPreset: 'xs-peers' })
    await fx.web.prompt(peer.sessionId, 'ROLE:P who else is here?')
    await fx.web.waitIdle(peer.sessionId)
    expect(listRows(fx.model.toolResults('sessions_list')[0]?.content)).toHaveLength(2)
    expect(await describeSection(fx.web)).toBeUndefined()
    expect(readLog(fx.h).some(l => l.name === 'cross-session' && /^settings: preset row/.test(l.text))).toBe(true)
  })
})
