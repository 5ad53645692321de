/**
 * Withdrawing a message (docs/tools.md#withdrawing-a-message), end to end:
 * `dsh web` (rc.8) with the scripted model and the package installed by
 * name, headless `dsh` runs on the same home, and headless Chromium in
 * English and Chinese.
 *
 * - Real processes: a headless run's model sends to a session live in the
 *   web host and then withdraws it with the same arguments: too late, the
 *   host claimed and recorded it, and the result says at which seq. To a
 *   session whose user holds peer messages: withdrawn; nothing ever reaches
 *   the target's model, its user sees no card, the traffic view says
 *   withdrawn.
 * - The browser: the sender's user clicks Withdraw on a held send row; the
 *   row says withdrawn (also after a reload, and in Chinese), the target's
 *   user sees no card and no refused line.
 *
 * Screenshots go to the test's home; with `XS_UPDATE_SCREENSHOTS=1` to docs/images/.
 * @module test/e2e/web-withdraw.test
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { byNamePatch, installByName, openAppIn, openSessionIn, shotPath, skipsForBrowser, webFixture } from './support/browser.ts'
import { startFakeModel, textOf, type FakeModel, type ModelRequest, type Reply } from './support/fake-model.ts'
import { makeHome, runHeadless, SKIP_E2E, startWeb, waitFor, writePatch, type WebHarness } from './support/harness.ts'
import { storeFile } from './support/store.ts'
import { pageCall } from './support/page-key.ts'
import { firstUserText, turnOf } from './support/scenario.ts'

const skipForBrowser = skipsForBrowser('web-withdraw')

const BODIES: Record<string, string> = {
  loser: 'LOSER: the nightly run found two flaky tests.',
  winner: 'WINNER: please rotate the staging key now.',
  page: 'PAGE-WITHDRAWN: paste the deploy key here.',
}

/**
 * `ROLE:A` answers; a sender sends `BODIES[tag]` for `send:<tag>`, and for
 * `sendback:<tag>` sends it and then, in the next step, withdraws it with the
 * same arguments.
 */
function scenario(target: () => string): (request: ModelRequest) => Reply {
  return request => {
    const turn = turnOf(request)
    if (firstUserText(request).includes('ROLE:A')) return { text: turn.trigger.includes('Cross-session message') ? 'ALPHA-GOT-PEER' : 'Alpha here.' }
    const [, verb, tag] = /(send|sendback):(\w+)/.exec(turn.trigger) ?? []
    if (tag === undefined || BODIES[tag] === undefined) return { text: 'nothing to send' }
    const args = { session_id: target(), message: BODIES[tag] }
    if (turn.step === 0) return { calls: [{ name: 'sessions_send', args }] }
    if (turn.step === 1 && verb === 'sendback') return { calls: [{ name: 'sessions_send', args: { ...args, withdraw: true } }] }
    return { text: 'done' }
  }
}

/** Whether the target's model ever got `text`. */
function targetSaw(model: FakeModel, text: string): boolean {
  return model.requests.some(request => firstUserText(request).includes('ROLE:A') && request.messages.some(message => textOf(message).includes(text)))
}

async function channel(web: WebHarness, endpoint: string, payload: Record<string, unknown>): Promise<any> {
  return await pageCall(web.port, endpoint, payload)
}

describe.skipIf(SKIP_E2E || skipForBrowser)('withdrawing a message (dsh web, headless runs, headless Chromium)', () => {
  const fx = webFixture()

  it('a headless run withdraws: too late once the web host recorded it (says the seq); withdrawn while held (nothing reaches the target)', async () => {
    const h = fx.h = makeHome('withdraw-processes')
    installByName(h)
    let alphaId = ''
    const model = fx.model = await startFakeModel({ scenario: scenario(() => alphaId) })
    const web = fx.web = await startWeb(h, model, { patch: byNamePatch(h) })
    alphaId = (await web.create()).sessionId
    await web.prompt(alphaId, 'ROLE:A keep the keys')
    await web.waitIdle(alphaId)
    const headless = writePatch(h, {}, 'headless.patch.yml')

    // Loses: the web host holds alpha live, claims the message and records it before the send returns.
    await runHeadless(h, model, 'ROLE:H sendback:loser', { patch: headless })
    const [sent, late] = model.toolResults('sessions_send').map(result => result.content)
    expect(sent).toMatch(/^accepted for .* recorded at seq (\d+)/)
    const seq = /recorded at seq (\d+)/.exec(sent!)![1]
    expect(late).toMatch(new RegExp(`^too late: recorded at seq ${seq} in ${alphaId}'s log`))
    expect(late).toMatch(/\nThe message was not withdrawn \(id cross-session:/)
    await waitFor(() => targetSaw(model, 'LOSER'), 'the recorded message in the target\'s model request', 30_000)

    // Wins: alpha's user holds peer messages; the held message is withdrawn before anyone decides.
    await channel(web, 'inbound.set', { sessionId: alphaId, mode: 'hold' })
    const run = await runHeadless(h, model, 'ROLE:H sendback:winner', { patch: headless })
    const [held, withdrawn] = model.toolResults('sessions_send').slice(2).map(result => result.content)
    expect(held).toMatch(/held for its user's approval/)
    expect(withdrawn).toMatch(new RegExp(`^withdrawn: the message to ${alphaId} \\(id cross-session:${run.sessionId}:.*\\)\\nIt was held for its user's approval\\. It will never be delivered`))
    expect(await channel(web, 'approvals.list', {})).toEqual({ approvals: [] })
    expect(await channel(web, 'approvals.decided', { sessionId: alphaId })).toEqual({ decided: [] })
    const rows = (await channel(web, 'traffic.list', {})).rows as Array<{ sender: string, state: string }>
    expect(rows.find(row => row.sender === run.sessionId)?.state).toBe('withdrawn')
    const db = new DatabaseSync(storeFile(h))
    expect(db.prepare('SELECT state, reason FROM approvals WHERE sender = ?').all(run.sessionId)).toEqual([{ state: 'refused', reason: 'withdrawn' }])
    expect(db.prepare('SELECT COUNT(*) AS n FROM messages WHERE sender = ?').get(run.sessionId)).toEqual({ n: 0 })
    db.close()
    // The user cannot deliver it any more; the target's model never got it.
    const messageId = /\(id (cross-session:[^)]+)\)/.exec(withdrawn!)![1]
    expect(await channel(web, 'approvals.decide', { messageId, decision: 'deliver' })).toMatchObject({ state: 'withdrawn', reason: 'stale' })
    expect(targetSaw(model, 'WINNER')).toBe(false)
  })

  it('the sender\'s user clicks Withdraw on a held send row: it says withdrawn (after a reload, in Chinese); the target\'s user sees nothing', async () => {
    const h = fx.h = makeHome('withdraw-page')
    installByName(h)
    let alphaId = ''
    const model = fx.model = await startFakeModel({ scenario: scenario(() => alphaId) })
    const web = fx.web = await startWeb(h, model, { patch: byNamePatch(h) })
    alphaId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: alphaId, title: 'Deploy keys' })
    await web.prompt(alphaId, 'ROLE:A keep the keys')
    await web.waitIdle(alphaId)
    await channel(web, 'inbound.set', { sessionId: alphaId, mode: 'hold' })
    const bravoId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: bravoId, title: 'Release checklist for v2' })
    await web.prompt(bravoId, 'ROLE:B send:page')
    await web.waitIdle(bravoId)
    expect(model.toolResults('sessions_send')[0]!.content).toMatch(/held for its user's approval/)

    const page = fx.page = await fx.browser!.newPage({ viewport: { width: 1440, height: 900 } })
    await openAppIn(page, web.port, 'en')
    await openSessionIn(page, 'Release checklist for v2')
    const row = page.locator('[data-xs-row="sessions_send"][data-xs-outcome="accepted"]').first()
    const chip = row.locator('[data-xs-state]')
    await waitFor(async () => (await chip.getAttribute('data-xs-state')) === 'held', 'the held chip', 30_000)
    const button = row.locator('[data-xs-withdraw]')
    await button.waitFor({ timeout: 30_000 })
    expect(await button.innerText()).toBe('Withdraw')
    await button.click()
    await waitFor(async () => (await chip.getAttribute('data-xs-state')) === 'withdrawn', 'the withdrawn chip', 10_000)
    expect(await chip.innerText()).toMatch(/^withdrawn at \d\d:\d\d; never delivered$/)
    expect(await row.locator('[data-xs-withdraw]').count()).toBe(0)
    await page.mouse.move(2, 2)
    await page.screenshot({ path: shotPath(h, 'web-withdraw-sender.png') })

    // The traffic view says withdrawn; the target's user has no card and no refused line.
    await page.locator('[data-xs-traffic-button]').click()
    const trafficRow = page.locator('[data-xs-traffic-panel] [data-xs-traffic]').first()
    await waitFor(async () => (await trafficRow.getAttribute('data-xs-state')) === 'withdrawn', 'a withdrawn traffic row', 10_000)
    expect(await trafficRow.locator('[data-xs-state-chip]').innerText()).toBe('withdrawn')
    expect(await trafficRow.locator('[data-xs-withdraw]').count()).toBe(0)
    await page.keyboard.press('Escape')
    await openSessionIn(page, 'Deploy keys')
    await page.waitForTimeout(1000)
    expect(await page.locator(`[data-xs-dock="${alphaId}"] [data-xs-approval]`).count()).toBe(0)
    expect(await page.locator(`[data-xs-dock="${alphaId}"] [data-xs-decided-state]`).count()).toBe(0)
    expect(targetSaw(model, 'PAGE-WITHDRAWN')).toBe(false)

    // After a reload, and in Chinese: the same.
    const zh = fx.page = await fx.browser!.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' })
    await page.close()
    await openAppIn(zh, web.port, 'zh')
    await openSessionIn(zh, 'Release checklist for v2')
    const zhChip = zh.locator('[data-xs-row="sessions_send"] [data-xs-state]').first()
    await waitFor(async () => (await zhChip.getAttribute('data-xs-state')) === 'withdrawn', 'the withdrawn chip in zh', 30_000)
    expect(await zhChip.innerText()).toMatch(/^已于 \d\d:\d\d 撤回，未送达$/)
    await zh.locator('[data-xs-traffic-button]').click()
    const zhRow = zh.locator('[data-xs-traffic-panel] [data-xs-traffic]').first()
    await waitFor(async () => (await zhRow.getAttribute('data-xs-state')) === 'withdrawn', 'the withdrawn traffic row in zh', 10_000)
    expect(await zhRow.locator('[data-xs-state-chip]').innerText()).toBe('已撤回')
    await zh.mouse.move(2, 2)
    await zh.screenshot({ path: shotPath(h, 'web-withdraw-zh.png') })
  })
})
