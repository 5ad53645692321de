/**
 * Notices and live send rows in a real browser (docs/architecture.md §7 and
 * §8 "Notices"): `dsh web` (rc.8) with the package installed by name, a
 * headless `dsh` run sending into one of its sessions with `notify: true`,
 * and headless Chromium driving the page through playwright-core.
 *
 * The headless sender's bound is 0 ms, so its result says the message was
 * not yet recorded; the send row follows the message in the target's
 * history and shows it answered, with the target's title. The sender goes
 * cold, the web host wakes it for the notice, and the notice shows as a
 * received row: "Notice from session 4b91… · finished · Open session".
 * @module test/e2e/web-notices
 */
import { describe, expect, it } from 'vitest'
import { byNamePatch, installByName, openApp, openSession, shotPath, skipsForBrowser, webFixture } from './support/browser.ts'
import { resultOf, startFakeModel } from './support/fake-model.ts'
import { makeHome, runHeadless, SKIP_E2E, startWeb, waitFor, writePatch } from './support/harness.ts'
import { firstUserText, router, steps } from './support/scenario.ts'
import { readStore } from './support/store.ts'

const skipForBrowser = skipsForBrowser('web-notices')

const NOTICE = 'Cross-session notice from the dsh-cross-session package'

describe.skipIf(SKIP_E2E || skipForBrowser)('notices and live send rows (dsh web + headless Chromium)', () => {
  const fx = webFixture()

  it('a headless send into a web session: the row follows it to answered with the target\'s title; the notice is a received row', async () => {
    const h = fx.h = makeHome('web-notice')
    installByName(h)
    let targetId = ''
    let release!: () => void
    const gate = new Promise<void>(resolve => { release = resolve })
    const model = fx.model = await startFakeModel({
      scenario: router({
        'ROLE:T': async turn => {
          if (!turn.trigger.startsWith('Cross-session message')) return { text: 'Target ready.' }
          await gate
          return { text: 'Yes, the fix is on main.' }
        },
        'ROLE:S': turn => turn.trigger.startsWith(NOTICE)
          ? { text: 'Got the notice.' }
          : steps([() => ({ name: 'sessions_send', args: { session_id: targetId, message: 'Did the fix land on main?', notify: true } })], 'Asked.')(turn),
      }),
    })
    const web = fx.web = await startWeb(h, model, { patch: byNamePatch(h) })
    targetId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: targetId, title: 'Release target' })
    await web.prompt(targetId, 'ROLE:T stay around')
    await web.waitIdle(targetId)

    // Its user opted in to having the ended run woken for a notice (noticeWakesEndedRun; off by default).
    const senderPatch = writePatch(h, { plugin: { recordWaitMs: 0, noticeWakesEndedRun: true } }, 's.patch.yml')
    const sender = await runHeadless(h, model, 'ROLE:S ask your peer', { patch: senderPatch })
    const send = resultOf(model, 'sessions_send')
    // What the call said when it returned: not yet recorded (its bound was 0 ms).
    expect(send).toMatch(/delivered through the mailbox \| (claimed by that process, not yet recorded|still pending in the mailbox) after 0 ms/)
    release()
    await web.waitIdle(targetId, { turns: 2 })
    // The web host wakes the cold sender for its notice.
    await waitFor(() => model!.requests.some(r => !r.isTitle && firstUserText(r).includes('ROLE:S') && r.lastUserText.startsWith(NOTICE)) || undefined, 'the notice to reach the sender')
    await web.waitIdle(sender.sessionId, { turns: 2 })
    await web.rpc('session.rename', { sessionId: sender.sessionId, title: 'Headless sender' })
    const delivered = readStore(h).messages.find(m => m.notice === null)!
    expect(delivered.state).toBe('recorded')

    const page = fx.page = await fx.browser!.newPage({ viewport: { width: 1180, height: 860 } })
    await openApp(page, web.port)
    await openSession(page, 'Headless sender')
    const row = page.locator('[data-xs-row="sessions_send"][data-xs-outcome="accepted"]')
    await row.waitFor({ timeout: 30_000 })
    // Where the message is now, read from the target's history: answered, with a link to the answer.
    const state = row.locator('[data-xs-state="answered"]')
    await state.waitFor({ timeout: 30_000 })
    expect(await state.getAttribute('data-xs-seq')).toBe(String(delivered.seq))
    expect(await state.innerText()).toMatch(new RegExp(`recorded at seq ${delivered.seq} · answered at seq \\d+ · Open answer`))
    expect(await row.locator('[data-xs-target-title]').innerText()).toMatch(/→ \S+… "Release target"/)
    // The notice: a received row, not the user's words.
    const notice = page.locator(`[data-xs-received="${targetId}"][data-xs-notice="completed"]`)
    await notice.waitFor({ timeout: 30_000 })
    expect(await notice.innerText()).toMatch(/Notice from session[\s\S]*…[\s\S]*finished[\s\S]*Open session/)
    await notice.scrollIntoViewIfNeeded()
    await page.screenshot({ path: shotPath(h, 'web-notice.png') })
    // Open answer opens the target.
    await row.locator(`[data-xs-open-answer="${targetId}"]`).click()
    await page.getByText('Yes, the fix is on main.').first().waitFor({ timeout: 30_000 })
  })
})
