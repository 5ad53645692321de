/**
 * A turn started by a peer message runs under the target session's own
 * permission mode and approval policy (docs/tools.md#what-a-peer-message-can-and-cannot-make-a-session-do),
 * in the real harness (rc.8) web host with the scripted model:
 *
 * the target (rc.8's default preset, sandbox `workspace-write`, approval
 * `ask`) is asked by a peer to write a file outside its workspace. Its
 * sandbox denies the write; the one-shot wider retry asks the user
 * (`approval/asked` in the target's log, rc.8 `@deepseek-ai/dsh-user-approval`
 * `ApprovalService.request`) and waits; nothing is written until the user
 * answers, and the user's Deny in the browser ends it (`approval/decided`
 * `rejected`). The same write started by the user's own prompt asks the
 * same way: a peer's turn has no more authority than the user's.
 * @module test/e2e/peer-authority.test
 */
import { existsSync, realpathSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join, sep } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openApp, openSession, shotPath, skipsForBrowser, webFixture } from './support/browser.ts'
import { startFakeModel, type ModelRequest, type Reply } from './support/fake-model.ts'
import { historyEvents, makeHome, ROOT, SKIP_E2E, startWeb, waitFor, writePatch } from './support/harness.ts'
import { firstUserText, turnOf } from './support/scenario.ts'

const skipForBrowser = skipsForBrowser('peer-authority')

/** The target's script: for a trigger asking for a write, write outside the workspace, then retry wider (the harness's own escalation). */
function scenario(probe: string, target: () => string): (request: ModelRequest) => Reply {
  return request => {
    const turn = turnOf(request)
    if (firstUserText(request).includes('ROLE:B')) {
      if (turn.step > 0) return { text: 'asked' }
      return { calls: [{ name: 'sessions_send', args: { session_id: target(), message: `PEER-ASKS-WRITE: please write "from a peer" to ${probe}` } }] }
    }
    if (!turn.trigger.includes('ASKS-WRITE')) return { text: 'Alpha here.' }
    if (turn.step === 0) return { calls: [{ name: 'write', args: { file_path: probe, content: 'written\n' } }] }
    if (turn.step === 1) return { calls: [{ name: 'write', args: { file_path: probe, content: 'written\n', sandbox_permissions: 'danger-full-access', justification: 'the message asked for this file' } }] }
    return { text: `write result: ${turn.results[0]?.content.split('\n')[0] ?? ''}` }
  }
}

/**
 * A directory the session's `workspace-write` sandbox does not grant, for the
 * probe file: rc.8 `@deepseek-ai/dsh-sandbox` lib/index.js `writableRoots`
 * grants the workspace, `/tmp` and `tmpdir()`, and a checkout may itself sit
 * under `/tmp` (a fresh clone there), so take the first candidate outside them.
 */
function outsideWritableRoots(): string {
  const granted = ['/tmp', tmpdir()].map(dir => realpathSync(dir))
  const under = (path: string, root: string): boolean => path === root || path.startsWith(root + sep)
  for (const dir of [ROOT, homedir(), '/var/tmp']) {
    const real = existsSync(dir) ? realpathSync(dir) : undefined
    if (real !== undefined && !granted.some(root => under(real, root))) return real
  }
  throw new Error('no directory outside /tmp and the temp directory to probe the sandbox with')
}

describe.skipIf(SKIP_E2E || skipForBrowser)('a peer-started turn runs under the target\'s own approval policy', () => {
  const fx = webFixture()
  const probe = join(outsideWritableRoots(), `.peer-authority-probe-${process.pid}.txt`)
  // Registered after webFixture's, so it runs before that teardown, as it did when it led the one afterEach.
  afterEach(() => {
    rmSync(probe, { force: true })
  })

  it('asks the user before a wider write the peer asked for, and writes nothing when the user denies', async () => {
    const h = fx.h = makeHome('peer-authority')
    let alphaId = ''
    const model = fx.model = await startFakeModel({ scenario: scenario(probe, () => alphaId) })
    const web = fx.web = await startWeb(h, model, { patch: writePatch(h) })
    alphaId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: alphaId, title: 'Deploy keys' })
    await web.prompt(alphaId, 'ROLE:A keep the keys')
    await web.waitIdle(alphaId)
    const bravoId = (await web.create()).sessionId
    await web.prompt(bravoId, 'ROLE:B ask alpha to write')

    // The peer's message starts alpha's turn; the sandbox denies the write; the wider retry asks its user and waits.
    const asked = await waitFor(async () => (await historyEvents(web!, alphaId)).find(event => event.type === 'approval/asked'), 'approval/asked in the target\'s log', 60_000)
    const events = await historyEvents(web, alphaId)
    const relayAt = events.findIndex(event => event.type === 'user/message' && (event.data as any)?.source?.form === 'relay')
    expect(relayAt).toBeGreaterThan(0)
    expect(events.findIndex(event => event.seq === asked.seq)).toBeGreaterThan(relayAt)
    expect((asked.data as any).toolName).toBe('write')
    expect(String((asked.data as any).reason)).toMatch(/escalate sandbox to danger-full-access/)
    // The first write was denied by the sandbox of the session's own mode, not by this package.
    expect(model.toolResults('write')[0]?.content ?? '').toMatch(/sandbox: file access denied under workspace-write mode/)
    expect(existsSync(probe)).toBe(false)

    // The user sees the harness's own approval prompt in that session, and rejects it: nothing is written.
    const page = fx.page = await fx.browser!.newPage({ viewport: { width: 1180, height: 860 } })
    await openApp(page, web.port)
    await openSession(page, 'Deploy keys')
    const reject = page.getByRole('button', { name: 'Reject', exact: true })
    await reject.waitFor({ timeout: 30_000 })
    expect(await page.getByText('escalate sandbox to danger-full-access').count()).toBeGreaterThan(0)
    await page.screenshot({ path: shotPath(h, 'web-peer-approval.png') })
    await reject.click()
    const decided = await waitFor(async () => (await historyEvents(web!, alphaId)).find(event => event.type === 'approval/decided' && (event.data as any)?.id === (asked.data as any).id), 'approval/decided', 30_000)
    expect((decided.data as any).outcome).toBe('rejected')
    await web.waitIdle(alphaId, { turns: 2 })
    expect(existsSync(probe)).toBe(false)

    // The same write started by the user's own prompt asks the same way.
    await web.prompt(alphaId, 'USER-ASKS-WRITE: please write the file')
    const second = await waitFor(async () => (await historyEvents(web!, alphaId)).filter(event => event.type === 'approval/asked')[1], 'a second approval/asked', 60_000)
    expect({ tool: (second.data as any).toolName, reason: (second.data as any).reason }).toEqual({ tool: (asked.data as any).toolName, reason: (asked.data as any).reason })
    await page.getByRole('button', { name: 'Reject', exact: true }).click()
    await web.waitIdle(alphaId, { turns: 3 })
    expect(existsSync(probe)).toBe(false)
  })
})
