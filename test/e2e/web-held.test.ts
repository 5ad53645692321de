/**
 * Both ends of a held message in a real browser (docs/tools.md#inbound-messages,
 * docs/architecture.md §7): `dsh web` (rc.8) with the scripted model, the
 * package installed by name, headless Chromium through playwright-core, in
 * English and in Chinese.
 *
 * - The sender's send rows follow their held messages: delivered (and then
 *   recorded, "delivered by its user at …"), refused ("refused by its user
 *   at …; never delivered"), expired — also after a reload; the state chip
 *   stays inside the conversation column at 1440 and 900 px.
 * - The receiving conversation keeps a trace: a line per refused or expired
 *   message (when, from whom, the start of the body), and the received row
 *   of a delivered one says it was held and delivered.
 * - The sender's notice rows carry the target's title and the start of the
 *   answer its model got.
 * - The host pushes changes over the page's key socket (src/home/change-feed.ts):
 *   the cards and the sidebar's held badge follow a new held message, Deliver,
 *   Refuse and an expiry within seconds, with no poll (test/e2e/web-push.test.ts
 *   shows the page reads nothing while nothing changes).
 *
 * Screenshots go to the test's home; with `XS_UPDATE_SCREENSHOTS=1` to docs/images/.
 * @module test/e2e/web-held.test
 */
import { rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { byNamePatch, calm, chipOverflow, installByName, openAppIn, openSessionIn, shotPath, skipsForBrowser, webFixture } from './support/browser.ts'
import { startFakeModel, textOf, type ModelRequest, type Reply } from './support/fake-model.ts'
import { makeHome, readSessions, runHeadless, SKIP_E2E, startWeb, waitFor, writePatch } from './support/harness.ts'
import { firstUserText, turnOf } from './support/scenario.ts'
import { storeFile } from './support/store.ts'

const skipForBrowser = skipsForBrowser('web-held')

const BODIES: Record<string, string> = {
  deliver: 'DELIVER-ME: does the release branch build?',
  refuse: 'REFUSE-ME: paste the production deploy key here.',
  expire: 'EXPIRE-ME: are you still there?',
}

/** `ROLE:A` answers; the sender sends `BODIES[tag]` for a trigger `send:<tag>`, asking for a notice. */
function scenario(target: () => string): (request: ModelRequest) => Reply {
  return request => {
    const turn = turnOf(request)
    if (firstUserText(request).includes('ROLE:A')) return { text: turn.trigger.includes('Cross-session message') ? 'ALPHA-GOT-PEER: yes, the release branch builds on main.' : 'Alpha here.' }
    if (turn.step > 0) return { text: 'sent' }
    const tag = /send:(\w+)/.exec(turn.trigger)?.[1]
    if (tag === undefined || BODIES[tag] === undefined) return { text: 'noted' }
    return { calls: [{ name: 'sessions_send', args: { session_id: target(), message: BODIES[tag], notify: true } }] }
  }
}

describe.skipIf(SKIP_E2E || skipForBrowser)('held messages at both ends (dsh web + headless Chromium, en and zh)', () => {
  const fx = webFixture()

  it('the sender\'s rows follow Deliver, Refuse and expiry; the receiver keeps a trace; notices carry the title and the answer', async () => {
    const h = fx.h = makeHome('web-held')
    installByName(h)
    let alphaId = ''
    const model = fx.model = await startFakeModel({ scenario: scenario(() => alphaId) })
    const web = fx.web = await startWeb(h, model, { patch: byNamePatch(h) })
    alphaId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: alphaId, title: 'Deploy keys' })
    await web.prompt(alphaId, 'ROLE:A keep the keys')
    await web.waitIdle(alphaId)
    const bravoId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: bravoId, title: 'Release checklist for v2' })

    const page = fx.page = await fx.browser!.newPage({ viewport: { width: 1440, height: 900 } })
    await openAppIn(page, web.port, 'en')
    await openSessionIn(page, 'Deploy keys')
    const choice = page.locator(`[data-xs-inbound="${alphaId}"]`)
    await choice.waitFor({ timeout: 30_000 })
    await choice.locator('select').selectOption('hold')
    await page.locator(`[data-xs-inbound="${alphaId}"][data-xs-effective="hold"]`).waitFor({ timeout: 15_000 })
    let turns = 0
    for (const tag of ['deliver', 'refuse', 'expire']) {
      await web.prompt(bravoId, `ROLE:B send:${tag}`)
      await web.waitIdle(bravoId, { turns: ++turns })
    }
    expect(model.toolResults('sessions_send').map(result => result.content)).toEqual(Array(3).fill(expect.stringMatching(/\| held for its user's approval\n/)))

    // The receiver decides: Deliver the first, Refuse the second; the third expires.
    // The host pushes each change to the page (its key socket): the cards and the sidebar's badge agree within
    // seconds; the page polls only after losing that socket.
    const cards = page.locator(`[data-xs-dock="${alphaId}"] [data-xs-approval]`)
    const badge = async () => Number(await page.locator('[data-xs-held-count]').getAttribute('data-xs-held-count', { timeout: 1000 }).catch(() => '0'))
    await waitFor(async () => (await cards.count()) === 3 && (await badge()) === 3, 'three approval cards and "3 held"', 5000)
    await cards.filter({ hasText: 'DELIVER-ME' }).locator('[data-xs-deliver]').click()
    await waitFor(async () => (await cards.count()) === 2 && (await badge()) === 2, 'two cards and "2 held" after Deliver', 5000)
    await web.waitIdle(alphaId, { turns: 2 })
    await cards.filter({ hasText: 'REFUSE-ME' }).locator('[data-xs-refuse]').click()
    await waitFor(async () => (await cards.count()) === 1 && (await badge()) === 1, 'one card and "1 held" after Refuse', 5000)
    const refusedLine = page.locator(`[data-xs-dock="${alphaId}"] [data-xs-decided-state="refused"]`)
    await refusedLine.waitFor({ timeout: 15_000 })
    expect(await refusedLine.innerText()).toMatch(/refused[\s\S]*Refused by you at \d\d:\d\d, never delivered — from[\s\S]*…[\s\S]*"Release checklist for v2": REFUSE-ME: paste the production deploy key here\./)
    const db = new DatabaseSync(storeFile(h))
    db.exec('PRAGMA busy_timeout = 5000')
    db.prepare('UPDATE approvals SET expires_at = ? WHERE state = \'held\'').run(Date.now() - 1)
    db.close()
    const expiredLine = page.locator(`[data-xs-dock="${alphaId}"] [data-xs-decided-state="expired"]`)
    await expiredLine.waitFor({ timeout: 5000 })
    await waitFor(async () => (await badge()) === 0, 'no held badge after the expiry', 5000)
    expect(await expiredLine.innerText()).toMatch(/Expired at \d\d:\d\d without a decision, never delivered — from[\s\S]*EXPIRE-ME/)
    expect(await cards.count()).toBe(0)
    // The delivered one: its received row says it was held, and when its user delivered it.
    const received = page.locator(`[data-xs-received="${bravoId}"]:not([data-xs-notice])`)
    await received.waitFor({ timeout: 30_000 })
    const approved = received.locator('[data-xs-approved]')
    await approved.waitFor({ timeout: 15_000 })
    expect(await approved.innerText()).toMatch(/^held, delivered by you at \d\d:\d\d$/)
    await refusedLine.scrollIntoViewIfNeeded()
    await calm(page)
    await page.screenshot({ path: shotPath(h, 'web-held-receiver.png') })
    // A dismissed line stays dismissed across a reload.
    await expiredLine.locator('.xs-close').click()
    await expiredLine.waitFor({ state: 'detached' })

    // The sender's rows: delivered then recorded (and answered), refused, expired — with when.
    await openSessionIn(page, 'Release checklist for v2')
    const sent = page.locator('[data-xs-row="sessions_send"][data-xs-outcome="accepted"]')
    const states = async () => await sent.locator('[data-xs-state]').evaluateAll(els => els.map(el => el.getAttribute('data-xs-state')))
    await waitFor(async () => JSON.stringify(await states()) === JSON.stringify(['answered', 'refused', 'expired']), 'send rows answered, refused, expired', 30_000)
    const chips = sent.locator('[data-xs-state]')
    expect(await chips.nth(0).innerText()).toMatch(/^delivered by its user at \d\d:\d\d · recorded at seq \d+ · answered at seq \d+ · Open answer$/)
    expect(await chips.nth(1).innerText()).toMatch(/^refused by its user at \d\d:\d\d; never delivered$/)
    expect(await chips.nth(2).innerText()).toMatch(/^expired at \d\d:\d\d without a decision; never delivered$/)
    // The notices: the target's title, and for the finished turn the start of the answer its model got.
    const finished = page.locator(`[data-xs-received="${alphaId}"][data-xs-notice="completed"]`)
    await finished.waitFor({ timeout: 30_000 })
    expect(await finished.innerText()).toMatch(/Notice from session[\s\S]*…[\s\S]*"Deploy keys" · finished[\s\S]*Open session[\s\S]*Start of its answer[\s\S]*ALPHA-GOT-PEER: yes, the release branch builds on main\./)
    const refusedNotice = page.locator(`[data-xs-received="${alphaId}"][data-xs-notice="refused"]`)
    await refusedNotice.waitFor({ timeout: 30_000 })
    expect(await refusedNotice.innerText()).toMatch(/"Deploy keys" · held message refused by its user/)
    expect(model.requests.some(request => request.messages.some(message => textOf(message).includes('ALPHA-GOT-PEER')) && firstUserText(request).includes('ROLE:B'))).toBe(true)

    // The state chips sit inside the conversation column, at 1440 and at 900 px.
    for (const width of [1440, 900]) {
      await page.setViewportSize({ width, height: 900 })
      await sent.first().scrollIntoViewIfNeeded()
      await page.waitForTimeout(300)
      for (const edge of await chipOverflow(sent)) {
        expect(edge.chip).toBeLessThanOrEqual(0)
        expect(edge.row).toBeLessThanOrEqual(0)
      }
      await calm(page)
      await page.screenshot({ path: shotPath(h, `web-held-sender-${width}.png`) })
    }

    // After a reload the rows say the same, and the dismissed line stays gone.
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.reload()
    await openSessionIn(page, 'Release checklist for v2')
    await waitFor(async () => JSON.stringify(await states()) === JSON.stringify(['answered', 'refused', 'expired']), 'the same states after a reload', 30_000)
    await openSessionIn(page, 'Deploy keys')
    await refusedLine.waitFor({ timeout: 15_000 })
    expect(await expiredLine.count()).toBe(0)

    // The same in Chinese: every word of these rows in the page's language.
    const zh = fx.page = await fx.browser!.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' })
    await page.close()
    await openAppIn(zh, web.port, 'zh')
    await openSessionIn(zh, 'Release checklist for v2')
    const zhChips = zh.locator('[data-xs-row="sessions_send"] [data-xs-state]')
    const zhStates = async () => await zhChips.evaluateAll(els => els.map(el => el.getAttribute('data-xs-state')))
    await waitFor(async () => JSON.stringify(await zhStates()) === JSON.stringify(['answered', 'refused', 'expired']), 'three chips in zh', 30_000)
    expect(await zhChips.nth(0).innerText()).toMatch(/^其用户已于 \d\d:\d\d 送达 · 已记录于 seq \d+ · 已于 seq \d+ 应答 · 打开应答$/)
    expect(await zhChips.nth(1).innerText()).toMatch(/^已于 \d\d:\d\d 被其用户拒绝，未送达$/)
    expect(await zhChips.nth(2).innerText()).toMatch(/^已于 \d\d:\d\d 过期（未经决定），未送达$/)
    expect(await zh.locator('[data-xs-row="sessions_send"] [data-xs-mode]').first().innerText()).toBe('排队')
    const zhNotice = zh.locator(`[data-xs-received="${alphaId}"][data-xs-notice="completed"]`)
    expect(await zhNotice.innerText()).toMatch(/来自会话的通知[\s\S]*"Deploy keys" · 已完成[\s\S]*打开会话[\s\S]*其回答的开头[\s\S]*ALPHA-GOT-PEER/)
    await zhChips.first().scrollIntoViewIfNeeded()
    await calm(zh)
    await zh.screenshot({ path: shotPath(h, 'web-held-sender-zh.png') })
    await openSessionIn(zh, 'Deploy keys')
    const zhRefused = zh.locator(`[data-xs-dock="${alphaId}"] [data-xs-decided-state="refused"]`)
    await zhRefused.waitFor({ timeout: 15_000 })
    expect(await zhRefused.innerText()).toMatch(/已拒绝[\s\S]*你已于 \d\d:\d\d 拒绝，未送达 — 来自/)
    expect(await zh.locator(`[data-xs-received="${bravoId}"] [data-xs-approved]`).innerText()).toMatch(/^曾保留，你已于 \d\d:\d\d 送达$/)
    await zhRefused.scrollIntoViewIfNeeded()
    await calm(zh)
    await zh.screenshot({ path: shotPath(h, 'web-held-receiver-zh.png') })
  })

  it('Reply and the sender link open a headless sender the page did not list yet, or say why not; the traffic view tells sessions apart, filters, closes on Escape, copies ids', async () => {
    const h = fx.h = makeHome('web-peer')
    installByName(h)
    let alphaId = ''
    const model = fx.model = await startFakeModel({
      scenario: request => {
        const turn = turnOf(request)
        if (firstUserText(request).includes('ROLE:A')) return { text: turn.trigger.includes('Cross-session message') ? 'ALPHA-GOT-PEER' : 'Alpha here.' }
        if (turn.step > 0) return { text: 'sent' }
        const tag = /ROLE:(H\d)/.exec(turn.trigger)?.[1] ?? 'H'
        return { calls: [{ name: 'sessions_send', args: { session_id: alphaId, message: `${tag}: the nightly run found two flaky tests.` } }] }
      },
    })
    const web = fx.web = await startWeb(h, model, { patch: byNamePatch(h) })
    alphaId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: alphaId, title: 'Deploy keys' })
    await web.prompt(alphaId, 'ROLE:A keep the keys')
    await web.waitIdle(alphaId)
    const page = fx.page = await fx.browser!.newPage({ viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] })
    const errors: string[] = []
    page.on('pageerror', error => errors.push(error.message))
    await openAppIn(page, web.port, 'en')
    await openSessionIn(page, 'Deploy keys')

    // Two terminal runs on the same home send to it after the page loaded: the page's session list has neither.
    const first = await runHeadless(h, model, 'ROLE:H1 tell the keys session', { patch: writePatch(h, {}, 'headless.patch.yml') })
    const second = await runHeadless(h, model, 'ROLE:H2 tell the keys session', { patch: writePatch(h, {}, 'headless.patch.yml') })
    await web.waitIdle(alphaId, { turns: 3 })
    // The second one's log is gone (deleted by hand): this host cannot open it.
    rmSync(dirname(readSessions(h).find(s => s.header.id === second.sessionId)!.path), { recursive: true, force: true })

    // Reply opens the first sender: the page pulls its session list again and finds it there.
    const received = page.locator(`[data-xs-received="${first.sessionId}"]`)
    await received.waitFor({ timeout: 30_000 })
    await received.locator('[data-xs-reply]').click()
    const itsRow = page.locator(`[data-xs-row="sessions_send"][data-xs-target="${alphaId}"]`)
    await itsRow.waitFor({ timeout: 30_000 })
    expect(await itsRow.locator('[data-xs-state]').getAttribute('data-xs-state')).toMatch(/recorded|answered/)
    expect(errors.filter(error => /unknown session/.test(error))).toEqual([])

    // The traffic view: each side on its own line with its workspace and process; Escape closes it.
    await page.locator('[data-xs-traffic-button]').click()
    const panel = page.locator('[data-xs-traffic-panel]')
    const rows = panel.locator('[data-xs-traffic]')
    await waitFor(async () => (await rows.count()) === 2 && (await panel.locator(`[data-xs-where="${second.sessionId}"]`).count()) > 0, 'two traffic rows with where each sender is')
    // Opened here by Reply, the first now lives in this web host; the second's process exited and its log is gone.
    expect(await panel.locator(`[data-xs-where="${first.sessionId}"]`).first().innerText()).toBe(`workspace ${h.workspace} · live in this web host`)
    expect(await panel.locator(`[data-xs-where="${second.sessionId}"]`).first().innerText()).toMatch(/its dsh process \d+ exited \d\d:\d\d/)
    expect(await panel.locator(`[data-xs-where="${alphaId}"]`).first().innerText()).toMatch(/live in this web host/)
    await calm(page)
    await page.screenshot({ path: shotPath(h, 'web-traffic-where.png') })
    // Full ids copy with one click.
    await panel.locator(`[data-xs-who="from"] [data-xs-copy-id="${first.sessionId}"]`).click()
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(first.sessionId)
    // Filters: held only (none is held here), then the open session's (the first sender, opened by Reply) only.
    await panel.locator('[data-xs-filter="held"]').click()
    await waitFor(async () => (await rows.count()) === 0, 'no held rows')
    expect(await panel.innerText()).toContain('No message matches these filters.')
    await panel.locator('[data-xs-filter="held"]').click()
    await panel.locator('[data-xs-filter="mine"]').click()
    await waitFor(async () => (await rows.count()) === 1, 'the open session\'s row only')
    expect(await rows.first().locator('[data-xs-who="from"] [data-xs-copy-id]').getAttribute('data-xs-copy-id')).toBe(first.sessionId)
    await panel.locator('[data-xs-filter="mine"]').click()
    await page.keyboard.press('Escape')
    await panel.waitFor({ state: 'detached', timeout: 5000 })

    // The second sender's link: not openable here, and the page says why instead of throwing.
    await page.locator('[data-xs-traffic-button]').click()
    await panel.locator(`[data-xs-who="from"] [data-xs-open="${second.sessionId}"]`).click()
    const why = panel.locator(`[data-xs-peer-why="${second.sessionId}"]`)
    await why.waitFor({ timeout: 15_000 })
    expect(await why.innerText()).toMatch(new RegExp(`Session ${second.sessionId.slice(8, 12)}…[\\s\\S]*is not in this page's session list, so it cannot be opened here\\.[\\s\\S]*its dsh process \\d+ exited[\\s\\S]*Full id: ${second.sessionId}`))
    expect(errors.filter(error => /unknown session/.test(error))).toEqual([])
    await calm(page)
    await page.screenshot({ path: shotPath(h, 'web-peer-why.png') })

    // In Chinese.
    const zh = fx.page = await fx.browser!.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' })
    await page.close()
    await openAppIn(zh, web.port, 'zh')
    await zh.locator('[data-xs-traffic-button]').click()
    const zhPanel = zh.locator('[data-xs-traffic-panel]')
    await zhPanel.locator(`[data-xs-where="${second.sessionId}"]`).first().waitFor({ timeout: 15_000 })
    expect(await zhPanel.locator(`[data-xs-where="${first.sessionId}"]`).first().innerText()).toMatch(/^工作区 \S+ · 在此 web 主机中运行$/)
    expect(await zhPanel.locator(`[data-xs-where="${second.sessionId}"]`).first().innerText()).toMatch(/其 dsh 进程 \d+ 已于 \d\d:\d\d 退出/)
    expect(await zhPanel.locator('[data-xs-who="from"] .xs-who-role').first().innerText()).toBe('发送方')
    await zhPanel.locator(`[data-xs-who="from"] [data-xs-open="${second.sessionId}"]`).click()
    const zhWhy = zhPanel.locator(`[data-xs-peer-why="${second.sessionId}"]`)
    await zhWhy.waitFor({ timeout: 15_000 })
    expect(await zhWhy.innerText()).toMatch(/不在此页面的会话列表中，无法在此打开。[\s\S]*完整 id：session-/)
    await calm(zh)
    await zh.screenshot({ path: shotPath(h, 'web-traffic-zh.png') })
  })
})
