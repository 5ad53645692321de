/**
 * End to end: how the plugin is mounted, judged by the tool catalog the
 * harness really sends the model (docs/architecture.md §1).
 *
 * - host row: the three schemas as the harness serialises them (size printed);
 * - `enabled: false`: none of the three reaches the model;
 * - per preset: a row in `$DSH_HOME/.agent-presets/<id>/agent.cordis.yml`
 *   gives the tools to sessions of that preset only (web profile);
 * - packaging: `dsh plugin --profile web add link:<package>` (rc.8 forwards to
 *   pnpm, pinned in e2e/) adds the package's own `cordis.patch.yml` as a
 *   profile bundle layer, and a plain `dsh web` then offers the tools.
 * @module test/e2e/mounting
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startFakeModel, type FakeModel, type WireTool } from './support/fake-model.ts'
import { homeFixture, E2E_DIR, makeHome, nodeBinary, pluginRow, readLog, ROOT, runDsh, runHeadless, startWeb, writePatch, SKIP_E2E } from './support/harness.ts'
import { router, says, steps } from './support/scenario.ts'

const TOOLS = ['sessions_list', 'sessions_read', 'sessions_send']

/** The catalog of the first main-turn request whose first user text has `marker`. */
function catalogOf(model: FakeModel, marker: string): WireTool[] {
  const request = model.requests.find(r => !r.isTitle && r.allUserText.includes(marker))
  if (request === undefined) throw new Error(`no model request for ${marker}`)
  return request.tools
}

describe.skipIf(SKIP_E2E)('mounting', () => {
  const fx = homeFixture()

  it('host row registers three fixed schemas; enabled: false registers none', async () => {
    fx.h = makeHome('catalog')
    fx.model = await startFakeModel({ scenario: () => ({ text: 'ok' }) })
    await runHeadless(fx.h, fx.model, 'ROLE:ON hello', { patch: writePatch(fx.h) })
    await runHeadless(fx.h, fx.model, 'ROLE:OFF hello', { patch: writePatch(fx.h, { plugin: { enabled: false } }, 'off.patch.yml') })

    const on = catalogOf(fx.model, 'ROLE:ON').filter(t => TOOLS.includes(t.function.name))
    expect(on.map(t => t.function.name).sort()).toEqual(TOOLS)
    // Size as the harness serialises each entry into the request body.
    const sizes = Object.fromEntries(on.map(t => [t.function.name, Buffer.byteLength(JSON.stringify(t))]))
    const total = Object.values(sizes).reduce((a, b) => a + b, 0)
    console.log(`tool catalog cost (bytes of JSON in the request): ${JSON.stringify(sizes)} total=${total}`)
    // The budget of docs/tools.md "Tool schemas": the three together at most 1,400 bytes as the model receives them.
    expect(total).toBeLessThanOrEqual(1400)
    for (const tool of on) {
      const parameters = tool.function.parameters as { type: string, additionalProperties: unknown, required?: string[] }
      expect(parameters.type).toBe('object')
      expect(parameters.additionalProperties).toBe(false)
    }
    const required = (name: string) => (on.find(t => t.function.name === name)!.function.parameters as { required?: string[] }).required ?? []
    expect(required('sessions_read')).toEqual(['session_id'])
    expect(required('sessions_send').sort()).toEqual(['message', 'session_id'])

    const off = catalogOf(fx.model, 'ROLE:OFF').map(t => t.function.name)
    expect(off.length).toBeGreaterThan(5) // the harness's own tools are still there
    for (const name of TOOLS) expect(off).not.toContain(name)
    expect(readLog(fx.h).some(l => l.name === 'cross-session' && /enabled: false/.test(l.text))).toBe(true)
  })

  it('a preset row gives the tools to sessions of that preset only', async () => {
    fx.h = makeHome('preset')
    const presetDir = join(fx.h.home, '.agent-presets', 'xs-peers')
    mkdirSync(presetDir, { recursive: true })
    writeFileSync(join(presetDir, 'preset.yml'), 'name: Cross-session peers\ndescription: e2e preset that mounts dsh-cross-session\norder: 9\n')
    // The preset composition is just the plugin row: its sessions see only these three tools.
    writeFileSync(join(presetDir, 'agent.cordis.yml'), `- ${JSON.stringify(pluginRow({}))}\n`)
    fx.model = await startFakeModel({
      scenario: router({
        'ROLE:P': steps([{ name: 'sessions_list', args: {} }], 'listed'),
        'ROLE:S': says('standard ok'),
      }),
    })
    fx.web = await startWeb(fx.h, fx.model, { patch: writePatch(fx.h, { plugin: false }) })
    const standard = await fx.web.create()
    expect(standard.agentPreset).toBe('standard')
    await fx.web.prompt(standard.sessionId, 'ROLE:S hello')
    await fx.web.waitIdle(standard.sessionId)
    const peer = await fx.web.create({ agentPreset: 'xs-peers' })
    expect(peer.agentPreset).toBe('xs-peers')
    await fx.web.prompt(peer.sessionId, 'ROLE:P who else is here?')
    await fx.web.waitIdle(peer.sessionId)

    const peerTools = catalogOf(fx.model, 'ROLE:P').map(t => t.function.name)
    expect(peerTools.sort()).toEqual(TOOLS)
    const standardTools = catalogOf(fx.model, 'ROLE:S').map(t => t.function.name)
    expect(standardTools).toContain('read') // a full preset catalog…
    for (const name of TOOLS) expect(standardTools).not.toContain(name) // …without ours
    // And the preset's tools work: the list shows the standard session, the caller last.
    const list = fx.model.toolResults('sessions_list')[0]?.content ?? ''
    const rows = list.split('\n').filter(l => l.startsWith('- '))
    expect(rows[0]).toContain(standard.sessionId)
    expect(rows.at(-1)).toContain(peer.sessionId)
  })

  it('dsh plugin --profile web add <package> mounts the package through its own cordis.patch.yml', async () => {
    // XS_PACKAGE_DIR lets a developer point this at a staged copy; CI uses the package root.
    const packageDir = process.env.XS_PACKAGE_DIR ?? ROOT
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { name: string, dsh?: { bundle?: { patch?: string } } }
    expect(manifest.dsh?.bundle?.patch, 'package.json must declare "dsh": {"bundle": {"patch": "./cordis.patch.yml"}}').toBe('./cordis.patch.yml')
    expect(existsSync(join(packageDir, 'cordis.patch.yml'))).toBe(true)

    fx.h = makeHome('plugin-add')
    fx.model = await startFakeModel({ scenario: router({ 'ROLE:W': steps([{ name: 'sessions_list', args: {} }], 'listed') }) })
    // `dsh plugin` runs `pnpm` from PATH; pnpm's own shebang needs a node on PATH too.
    const path = [dirname(nodeBinary()), join(E2E_DIR, 'node_modules', '.bin'), process.env.PATH].join(':')
    const add = await runDsh(['plugin', '--profile', 'web', 'add', `link:${packageDir}`], {
      h: fx.h, model: fx.model, timeoutMs: 60_000, env: { PATH: path, npm_config_store_dir: join(fx.h.home, '.pnpm-store'), npm_config_update_notifier: 'false' },
    })
    expect(add.code, `${add.stdout}\n${add.stderr}`).toBe(0)
    const profile = JSON.parse(readFileSync(join(fx.h.home, 'profiles', 'web', 'package.json'), 'utf8'))
    expect(profile.dsh.profile.bundles).toEqual(['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app', manifest.name])

    // No --patch row for the plugin: only the logger. The tools come from the bundle layer.
    fx.web = await startWeb(fx.h, fx.model, { patch: writePatch(fx.h, { plugin: false }) })
    const session = await fx.web.create()
    await fx.web.prompt(session.sessionId, 'ROLE:W anyone there?')
    await fx.web.waitIdle(session.sessionId)
    const tools = catalogOf(fx.model, 'ROLE:W').map(t => t.function.name)
    for (const name of TOOLS) expect(tools).toContain(name)
    expect(fx.model.toolResults('sessions_list')[0]?.content).toContain(`${session.sessionId} [live, top-level]`)
  })
})
