/**
 * Pushed updates and the order of one sender's held messages in a real
 * browser (docs/architecture.md §7, "Pushed updates"; docs/tools.md#inbound-messages):
 * `dsh web` (rc.8) with the scripted model, the package installed by name,
 * headless Chromium through playwright-core, in English and in Chinese.
 *
 * - Before anything is decided: the sender's two held send rows each have
 *   Withdraw, their state chips inside the conversation column at 1440 and
 *   900 px; the receiver's later card has Deliver disabled with the reason
 *   ("decide the earlier message first").
 * - Updates are pushed: the sender's page makes no channel call and reads no
 *   history while nothing changes; when the receiver delivers the earlier
 *   message in another page, the sender's row leaves "held" and its held
 *   badge drops without a reload, and the later card's Deliver enables; when
 *   another process (a second SQLite connection to the home store) lets the
 *   later one expire, the sender's row and its open traffic view say
 *   expired, the receiver's card goes. Each wait's bound is a failure deadline, far below the 15 s poll
 *   the page keeps only while its key socket is lost.
 *
 * Screenshots go to the test's home; with `XS_UPDATE_SCREENSHOTS=1` to docs/images/.
 * @module test/e2e/web-push.test
 */
import { DatabaseSync } from 'node:sqlite'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { byNamePatch, calm, chipOverflow, installByName, openAppIn, openSessionIn, shotPath, skipsForBrowser, webFixture } from './support/browser.ts'
import { startFakeModel, type ModelRequest, type Reply } from './support/fake-model.ts'
import { makeHome, SKIP_E2E, startWeb, waitFor } from './support/harness.ts'
import { pageCall } from './support/page-key.ts'
import { firstUserText, turnOf } from './support/scenario.ts'
import { storeFile } from './support/store.ts'

const skipForBrowser = skipsForBrowser('web-push')

const BODIES: Record<string, string> = {
  first: 'FIRST: does the release branch build?',
  second: 'SECOND: and may I tag v2 after it does?',
}

/** A generous failure deadline for a pushed update, ms (the fallback poll, 15 s, would miss it). */
const PUSHED_WITHIN_MS = 5000

/** `ROLE:A` answers; the sender sends `BODIES[tag]` for a trigger `send:<tag>`. */
function scenario(target: () => string): (request: ModelRequest) => Reply {
  return request => {
    const turn = turnOf(request)
    if (firstUserText(request).includes('ROLE:A')) return { text: turn.trigger.includes('Cross-session message') ? 'ALPHA-GOT-PEER' : 'Alpha here.' }
    if (turn.step > 0) return { text: 'sent' }
    const tag = /send:(\w+)/.exec(turn.trigger)?.[1]
    if (tag === undefined || BODIES[tag] === undefined) return { text: 'noted' }
    return { calls: [{ name: 'sessions_send', args: { session_id: target(), message: BODIES[tag] } }] }
  }
}

/**
 * The page's reads that a poll would make: every channel call but the three
 * the page still polls (docs/architecture.md §7: the header's inbound choice,
 * the settings card's store line, the traffic view's process lines), and
 * session histories.
 */
function pollingReads(page: Page): string[] {
  const seen: string[] = []
  page.on('request', request => {
    const url = request.url()
    const channel = /\/cross-session\/([\w.]+)/.exec(url)?.[1]
    if ((channel !== undefined && !['inbound.get', 'store.status', 'sessions.about'].includes(channel)) || /histor/i.test(url)) seen.push(url)
  })
  return seen
}

/** The frames the host pushes on the page's key socket (src/home/change-feed.ts), parsed; listen before the page opens it. */
function keySocketPushes(page: Page): Array<Record<string, unknown>> {
  const pushes: Array<Record<string, unknown>> = []
  page.on('websocket', socket => {
    if (!socket.url().endsWith('/cross-session/key')) return
    socket.on('framereceived', frame => {
      const push = JSON.parse(String(frame.payload)) as Record<string, unknown>
      if (push.key === undefined) pushes.push(push)
    })
  })
  return pushes
}

describe.skipIf(SKIP_E2E || skipForBrowser)('pushed updates and one sender\'s order (dsh web + headless Chromium, en and zh)', () => {
  const fx = webFixture()

  it('Withdraw before the click, a later card waits for the earlier one; a decision in another page and an expiry in another process reach the page without polling', async () => {
    const h = fx.h = makeHome('web-push')
    installByName(h)
    let alphaId = ''
    const model = fx.model = await startFakeModel({ scenario: scenario(() => alphaId) })
    const web = fx.web = await startWeb(h, model, { patch: byNamePatch(h) })
    alphaId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: alphaId, title: 'Deploy keys' })
    await web.prompt(alphaId, 'ROLE:A keep the keys')
    await web.waitIdle(alphaId)
    await pageCall(web.port, 'inbound.set', { sessionId: alphaId, mode: 'hold' })
    const bravoId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: bravoId, title: 'Release checklist for v2' })
    let turns = 0
    for (const tag of ['first', 'second']) {
      await web.prompt(bravoId, `ROLE:B send:${tag}`)
      await web.waitIdle(bravoId, { turns: ++turns })
    }
    expect(model.toolResults('sessions_send').map(result => result.content)).toEqual(Array(2).fill(expect.stringMatching(/\| held for its user's approval\n/)))
    const pages: Page[] = []
    try {
      // The sender's page: two held rows, each with Withdraw; the chips inside the column at 1440 and 900 px.
      const sender = fx.page = await fx.browser!.newPage({ viewport: { width: 1440, height: 900 } })
      const pushes = keySocketPushes(sender)
      await openAppIn(sender, web.port, 'en')
      await openSessionIn(sender, 'Release checklist for v2')
      const sent = sender.locator('[data-xs-row="sessions_send"][data-xs-outcome="accepted"]')
      const states = async () => await sent.locator('[data-xs-state]').evaluateAll(els => els.map(el => el.getAttribute('data-xs-state')))
      await waitFor(async () => JSON.stringify(await states()) === '["held","held"]', 'two held send rows', 30_000)
      await waitFor(async () => (await sent.locator('[data-xs-withdraw]').count()) === 2, 'Withdraw on both held rows', 30_000)
      expect(await sent.locator('[data-xs-withdraw]').allInnerTexts()).toEqual(['Withdraw', 'Withdraw'])
      expect(await sent.first().locator('[data-xs-state]').innerText()).toMatch(/^held for its user's approval · expires in \d+ min$/)
      const badge = async (page: Page) => Number(await page.locator('[data-xs-held-count]').getAttribute('data-xs-held-count', { timeout: 1000 }).catch(() => '0'))
      expect(await badge(sender)).toBe(2)
      for (const width of [1440, 900]) {
        await sender.setViewportSize({ width, height: 900 })
        await sent.last().scrollIntoViewIfNeeded()
        await sender.waitForTimeout(300)
        for (const edge of await chipOverflow(sent)) {
          expect(edge.chip).toBeLessThanOrEqual(0)
          expect(edge.row).toBeLessThanOrEqual(0)
        }
        await calm(sender)
        await sender.screenshot({ path: shotPath(h, width === 1440 ? 'web-withdraw-before.png' : 'web-withdraw-before-900.png') })
      }
      await sender.setViewportSize({ width: 1440, height: 900 })

      // The receiver's page: the later card waits for the earlier one of the same sender.
      const receiver = await fx.browser!.newPage({ viewport: { width: 1440, height: 900 } })
      pages.push(receiver)
      await openAppIn(receiver, web.port, 'en')
      await openSessionIn(receiver, 'Deploy keys')
      const cards = receiver.locator(`[data-xs-dock="${alphaId}"] [data-xs-approval]`)
      await waitFor(async () => (await cards.count()) === 2, 'two approval cards', 30_000)
      // Oldest first; each card by its message id from here on.
      const ids = await cards.evaluateAll(els => els.map(el => el.getAttribute('data-xs-approval')))
      const firstCard = receiver.locator(`[data-xs-approval="${ids[0]}"]`)
      const secondCard = receiver.locator(`[data-xs-approval="${ids[1]}"]`)
      expect(await firstCard.innerText()).toContain('FIRST:')
      expect(await secondCard.innerText()).toContain('SECOND:')
      expect(await firstCard.locator('[data-xs-deliver]').isEnabled()).toBe(true)
      expect(await secondCard.locator('[data-xs-deliver]').isDisabled()).toBe(true)
      expect(await secondCard.locator('[data-xs-behind="true"]').innerText()).toBe('Decide the earlier message from this session first: one session\'s messages arrive in the order it sent them.')
      expect(await firstCard.locator('[data-xs-behind]').count()).toBe(0)
      await secondCard.scrollIntoViewIfNeeded()
      await calm(receiver)
      await receiver.screenshot({ path: shotPath(h, 'web-approval-behind.png') })

      // The same in Chinese.
      const zh = await fx.browser!.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' })
      pages.push(zh)
      await openAppIn(zh, web.port, 'zh')
      await openSessionIn(zh, 'Release checklist for v2')
      const zhSent = zh.locator('[data-xs-row="sessions_send"][data-xs-outcome="accepted"]')
      await waitFor(async () => (await zhSent.locator('[data-xs-withdraw]').count()) === 2, 'Withdraw on both held rows in zh', 30_000)
      expect(await zhSent.locator('[data-xs-withdraw]').allInnerTexts()).toEqual(['撤回', '撤回'])
      expect(await zhSent.first().locator('[data-xs-state]').innerText()).toMatch(/^等待其用户批准 · /)
      await zhSent.last().scrollIntoViewIfNeeded()
      await calm(zh)
      await zh.screenshot({ path: shotPath(h, 'web-withdraw-before-zh.png') })
      await openSessionIn(zh, 'Deploy keys')
      const zhCards = zh.locator(`[data-xs-dock="${alphaId}"] [data-xs-approval]`)
      await waitFor(async () => (await zhCards.count()) === 2, 'two approval cards in zh', 30_000)
      const zhSecond = zh.locator(`[data-xs-approval="${ids[1]}"]`)
      expect(await zhSecond.innerText()).toContain('SECOND:')
      expect(await zhSecond.locator('[data-xs-deliver]').isDisabled()).toBe(true)
      expect(await zhSecond.locator('[data-xs-deliver]').innerText()).toBe('送达')
      expect(await zhSecond.locator('[data-xs-behind="true"]').innerText()).toBe('请先处理该会话更早的消息：同一会话的消息按发送顺序送达。')
      await zhSecond.scrollIntoViewIfNeeded()
      await calm(zh)
      await zh.screenshot({ path: shotPath(h, 'web-approval-behind-zh.png') })
      await zh.close()

      // While nothing changes, the sender's page reads nothing: no poll of the views, no history.
      const reads = pollingReads(sender)
      await sender.waitForTimeout(6000)
      expect(reads).toEqual([])

      // Deliver in the receiver's page: the sender's row leaves "held" and its badge drops, no reload; the later card enables.
      const before = pushes.length
      await firstCard.locator('[data-xs-deliver]').click()
      await waitFor(async () => (await states())[0] !== 'held', 'the sender\'s first row past "held" (pushed)', PUSHED_WITHIN_MS)
      await waitFor(async () => (await badge(sender)) === 1, 'the sender\'s badge at 1 held (pushed)', PUSHED_WITHIN_MS)
      await waitFor(async () => (await cards.count()) === 1 && await secondCard.locator('[data-xs-deliver]').isEnabled(), 'the later card\'s Deliver enabled', PUSHED_WITHIN_MS)
      expect(await secondCard.locator('[data-xs-behind]').count()).toBe(0)
      expect(await sent.nth(1).locator('[data-xs-withdraw]').count()).toBe(1)
      // The delivered message goes on to be recorded and answered in alpha, as the sender's row follows without a reload.
      await waitFor(async () => (await states())[0] === 'answered', 'the sender\'s first row answered (pushed)', 30_000)
      // What told it: the host's pushes on its key socket, of the store and of alpha's log.
      expect(pushes.slice(before)).toContainEqual({ changed: 'store', version: expect.any(String) })
      expect(pushes.slice(before)).toContainEqual({ changed: 'logs', sessions: expect.arrayContaining([alphaId]) })
      expect(reads.filter(url => /histor/i.test(url)).length).toBeGreaterThan(0)

      // Another process lets the later message expire: the sender's row, its open traffic view and the receiver's card
      // follow, no reload.
      await sender.locator('[data-xs-traffic-button]').click()
      const trafficRow = sender.locator(`[data-xs-traffic-panel] [data-xs-traffic="${ids[1]}"]`)
      await waitFor(async () => (await trafficRow.getAttribute('data-xs-state', { timeout: 1000 }).catch(() => null)) === 'held', 'the held traffic row', 15_000)
      const db = new DatabaseSync(storeFile(h))
      db.exec('PRAGMA busy_timeout = 5000')
      db.prepare('UPDATE approvals SET expires_at = ? WHERE state = \'held\'').run(Date.now() - 1)
      db.close()
      await waitFor(async () => (await states())[1] === 'expired', 'the sender\'s second row expired (pushed)', PUSHED_WITHIN_MS)
      await waitFor(async () => (await trafficRow.getAttribute('data-xs-state')) === 'expired', 'the traffic row expired (pushed)', PUSHED_WITHIN_MS)
      await waitFor(async () => (await cards.count()) === 0, 'no card left (pushed)', PUSHED_WITHIN_MS)
      await waitFor(async () => (await badge(sender)) === 0, 'no held badge (pushed)', PUSHED_WITHIN_MS)
      expect(await sent.locator('[data-xs-withdraw]').count()).toBe(0)
    } finally {
      for (const page of pages) await page.close().catch(() => undefined)
    }
  })
})
