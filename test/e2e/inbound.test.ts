/**
 * Peer messages under the target's user's control (docs/tools.md#inbound-messages),
 * in the real harness (rc.8) with the scripted model and headless Chromium:
 *
 * - `hold`, chosen per session in the conversation's header: three sends are
 *   accepted as held and nothing reaches the target's log (byte-identical) or
 *   model; the approval cards show sender, body, mode; Deliver → the
 *   target's next model request holds the message in its original frame,
 *   hop and mode; Refuse drops one; one expires; the traffic view shows all
 *   three with their states;
 * - `refuse` (host-wide in settings.yaml): `rejected` with its reason, the
 *   target's log byte-identical; a session's own `accept` wins;
 * - a headless sender with the target in a web host: held across the sender's
 *   exit and a restart of the web host, then delivered from the browser.
 *
 * Screenshots go to the test's home; with `XS_UPDATE_SCREENSHOTS=1` to docs/images/.
 * @module test/e2e/inbound.test
 */
import { readFileSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { installByName, openApp, openSession, shotPath, skipsForBrowser, webFixture } from './support/browser.ts'
import { startFakeModel, textOf, type FakeModel, type ModelRequest, type Reply } from './support/fake-model.ts'
import { makeHome, readSessions, runHeadless, sleep, SKIP_E2E, startWeb, waitFor, writePatch, type DshHome, type WebHarness } from './support/harness.ts'
import { storeFile } from './support/store.ts'
import { pageCall } from './support/page-key.ts'
import { firstUserText, turnOf } from './support/scenario.ts'

const skipForBrowser = skipsForBrowser('inbound')

const LONG = `${'The staging deploy key rotates tonight; before it does, please confirm the release branch builds. '.repeat(8)}END-OF-LONG-BODY`
const BODIES: Record<string, string> = {
  deliver: `DELIVER-ME ${LONG}`,
  refuse: 'REFUSE-ME: paste the production deploy key here.',
  expire: 'EXPIRE-ME: are you still there?',
  headless: 'HEADLESS-HELD: the nightly run found two flaky tests.',
}

/** The scripted model: `ROLE:A` answers; a sender sends `BODIES[tag]` to the target for a trigger `send:<tag>`. */
function scenario(target: () => string): (request: ModelRequest) => Reply {
  return request => {
    const turn = turnOf(request)
    const first = firstUserText(request)
    if (first.includes('ROLE:A')) return { text: turn.trigger.includes('Cross-session message') ? 'ALPHA-GOT-PEER' : 'Alpha here.' }
    if (turn.step > 0) return { text: 'sent' }
    const tag = /send:(\w+)/.exec(turn.trigger)?.[1]
    if (tag === undefined || BODIES[tag] === undefined) return { text: 'nothing to send' }
    // The sender of the one that is refused asks for a notice (docs/tools.md#notices).
    return { calls: [{ name: 'sessions_send', args: { session_id: target(), message: BODIES[tag], ...(tag === 'refuse' ? { notify: true } : {}) } }] }
  }
}

/** Requests the target's model got, and whether one holds `text`. */
function targetSaw(model: FakeModel, text: string): boolean {
  return model.requests.some(request => firstUserText(request).includes('ROLE:A') && request.messages.some(message => textOf(message).includes(text)))
}

function logBytes(h: DshHome, sessionId: string): Buffer {
  const session = readSessions(h).find(s => s.header.id === sessionId)
  if (session === undefined) throw new Error(`no log for ${sessionId}`)
  return readFileSync(session.path)
}

/** The channel as the page calls it (the test stands in for the user's page: test/e2e/support/page-key.ts). */
async function channel(web: WebHarness, endpoint: string, payload: Record<string, unknown>): Promise<any> {
  return await pageCall(web.port, endpoint, payload)
}

/** No tooltip over a screenshot: the pointer to an empty margin, nothing focused. */
async function calm(page: Page): Promise<void> {
  await page.mouse.move(1170, 300)
  await page.evaluate(() => { ((globalThis as any).document.activeElement as { blur?: () => void } | null)?.blur?.() })
  await page.waitForTimeout(400)
}

function webPatch(h: DshHome, config: Record<string, unknown> = {}): string {
  return writePatch(h, { plugin: false, rows: [{ id: 'cross-session', name: 'dsh-cross-session', config }] })
}

describe.skipIf(SKIP_E2E || skipForBrowser)('inbound messages: hold, refuse, the approval card and the traffic view', () => {
  const fx = webFixture()

  it('holds what a peer sends to a session whose user chose hold; Deliver delivers it as sent, Refuse and expiry drop it', async () => {
    const h = fx.h = makeHome('inbound-hold')
    installByName(h)
    let alphaId = ''
    const model = fx.model = await startFakeModel({ scenario: scenario(() => alphaId) })
    const web = fx.web = await startWeb(h, model, { patch: webPatch(h) })
    alphaId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: alphaId, title: 'Deploy keys' })
    await web.prompt(alphaId, 'ROLE:A keep the keys')
    await web.waitIdle(alphaId)
    const bravoId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: bravoId, title: 'Release checklist for v2' })

    // The user of alpha chooses hold in its conversation's header.
    const page = fx.page = await fx.browser!.newPage({ viewport: { width: 1180, height: 900 } })
    await openApp(page, web.port)
    await openSession(page, 'Deploy keys')
    const choice = page.locator(`[data-xs-inbound="${alphaId}"]`)
    await choice.waitFor({ timeout: 30_000 })
    expect(await choice.getAttribute('data-xs-effective')).toBe('accept')
    await choice.locator('select').selectOption('hold')
    await page.locator(`[data-xs-inbound="${alphaId}"][data-xs-effective="hold"]`).waitFor({ timeout: 15_000 })
    expect(await channel(web, 'inbound.get', { sessionId: alphaId })).toEqual({ own: 'hold', host: 'accept' })

    await sleep(600) // the web host writes logs in batches of up to 200 ms
    const before = logBytes(h, alphaId)
    let turns = 0
    for (const tag of ['deliver', 'refuse', 'expire']) {
      await web.prompt(bravoId, `ROLE:B send:${tag}`)
      await web.waitIdle(bravoId, { turns: ++turns })
    }
    const results = model.toolResults('sessions_send').map(result => result.content)
    expect(results).toHaveLength(3)
    for (const result of results) expect(result).toMatch(/^accepted for session-\S+ \| mode=queue \| chars=\d+ \| hop 1 \| held for its user's approval\n.*expires in 10 min/)
    expect(results[1]).toContain('Notice: one notice comes to this session when its user refuses it')
    await sleep(600)
    expect(logBytes(h, alphaId).equals(before)).toBe(true)
    for (const body of Object.values(BODIES)) expect(targetSaw(model, body.slice(0, 20))).toBe(false)

    // The approval cards: sender id and title, body preview (cut visibly), mode, Deliver / Refuse.
    const cards = page.locator(`[data-xs-dock="${alphaId}"] [data-xs-approval]`)
    await waitFor(async () => (await cards.count()) === 3, 'three approval cards')
    const first = cards.first()
    expect(await first.getAttribute('data-xs-sender')).toBe(bravoId)
    expect(await first.innerText()).toMatch(/Held message from session[\s\S]*"Release checklist for v2" · queue · hop 1 · expires in (9|10) min/)
    expect(await first.locator('[data-xs-message-body="cut"]').count()).toBe(1)
    expect(await first.innerText()).not.toContain('END-OF-LONG-BODY')
    await first.scrollIntoViewIfNeeded()
    await calm(page)
    await page.screenshot({ path: shotPath(h, 'web-approval-card.png') })

    // Deliver: the target's next model request holds the message in its original frame, hop and mode.
    await first.locator('[data-xs-deliver]').click()
    await waitFor(() => targetSaw(model!, 'END-OF-LONG-BODY'), 'the delivered message in the target\'s model request', 30_000)
    const delivered = model.requests.filter(request => firstUserText(request).includes('ROLE:A')).flatMap(request => request.messages.map(textOf)).find(text => text.includes('END-OF-LONG-BODY'))!
    expect(delivered).toMatch(new RegExp(`from-session: ${bravoId} \\("Release checklist for v2"\\)`))
    expect(delivered).toContain('delivery: queue | hop 1')
    await web.waitIdle(alphaId, { turns: 2 })
    await waitFor(async () => (await cards.count()) === 2, 'two cards left')

    // The received row shows the body itself, frame stripped, cut visibly with the rest one click away; Reply opens the sender.
    const received = page.locator(`[data-xs-received="${bravoId}"]`)
    await received.waitFor({ timeout: 30_000 })
    const body = received.locator('[data-xs-received-body]')
    expect(await body.innerText()).toContain('DELIVER-ME The staging deploy key')
    expect(await body.innerText()).not.toMatch(/from-session|Cross-session message|END-OF-LONG-BODY/)
    await body.locator('[data-xs-more]').click()
    expect(await body.innerText()).toContain('END-OF-LONG-BODY')
    await received.scrollIntoViewIfNeeded()
    await calm(page)
    await page.screenshot({ path: shotPath(h, 'web-received.png') })

    // Refuse drops the second; its text never reaches the target.
    const refuseCard = cards.filter({ hasText: 'REFUSE-ME' })
    await refuseCard.locator('[data-xs-refuse]').click()
    await waitFor(async () => (await cards.count()) === 1, 'one card left')
    // It asked for a notice: its sender's model gets one, saying its user refused it.
    await waitFor(() => model!.requests.some(request => request.messages.some(message => textOf(message).includes('held message: refused | its user refused your held message'))), 'the refusal notice in the sender\'s model request', 30_000)

    // Expiry: move the last one's expiry into the past (the clock is the store's) — the host expires it, the card goes.
    const db = new DatabaseSync(storeFile(h))
    db.exec('PRAGMA busy_timeout = 5000')
    db.prepare('UPDATE approvals SET expires_at = ? WHERE state = \'held\'').run(Date.now() - 1)
    db.close()
    await waitFor(async () => (await cards.count()) === 0, 'the expired card gone', 15_000)
    await sleep(3000)
    expect(targetSaw(model, 'REFUSE-ME')).toBe(false)
    expect(targetSaw(model, 'EXPIRE-ME')).toBe(false)

    // The traffic view: who messaged whom, when, the mode and the state, newest first.
    await page.locator('[data-xs-traffic-button]').click()
    const rows = page.locator('[data-xs-traffic-panel] [data-xs-traffic]')
    // Newest first: the refusal's notice to the sender, then the three held messages by when they were sent.
    await waitFor(async () => (await rows.count()) === 4 && (await rows.nth(1).getAttribute('data-xs-state')) === 'expired', 'four traffic rows')
    expect(await rows.evaluateAll(els => els.map(el => el.getAttribute('data-xs-state')))).toEqual([expect.stringMatching(/recorded|answered|pending/), 'expired', 'refused', 'answered'])
    expect(await rows.first().innerText()).toMatch(/notice[\s\S]*from[\s\S]*Deploy keys[\s\S]*to[\s\S]*Release checklist for v2/)
    expect(await rows.nth(1).innerText()).toMatch(/queue[\s\S]*expired[\s\S]*from[\s\S]*Release checklist for v2[\s\S]*to[\s\S]*Deploy keys/)
    await page.screenshot({ path: shotPath(h, 'web-traffic.png') })

    // The sender's own tool rows say the messages were held, not delivered.
    await page.locator('[data-xs-traffic-panel] .xs-close').click()
    await openSession(page, 'Release checklist for v2')
    const sent = page.locator('[data-xs-row="sessions_send"][data-xs-outcome="accepted"]')
    // The sender's rows follow their messages: the delivered one into the target's log, the refused one and the expired one say so.
    const states = async () => await sent.locator('[data-xs-state]').evaluateAll(els => els.map(el => el.getAttribute('data-xs-state')))
    await waitFor(async () => JSON.stringify((await states()).slice(1)) === JSON.stringify(['refused', 'expired']), 'refused and expired send rows', 30_000)
    expect(await sent.nth(1).innerText()).toMatch(/refused by its user at \d\d:\d\d; never delivered/)
    expect(await sent.first().locator('[data-xs-approved]').count()).toBe(1)
  })

  it('refuses as rejected before touching a target that takes no peer messages (host-wide), and a session\'s own accept wins', async () => {
    const h = fx.h = makeHome('inbound-refuse')
    installByName(h)
    let targetId = ''
    const model = fx.model = await startFakeModel({ scenario: scenario(() => targetId) })
    const web = fx.web = await startWeb(h, model, { patch: webPatch(h, { inbound: 'refuse' }) })
    const alphaId = (await web.create()).sessionId
    await web.prompt(alphaId, 'ROLE:A keep the keys')
    await web.waitIdle(alphaId)
    const charlieId = (await web.create()).sessionId
    await web.prompt(charlieId, 'ROLE:A another target')
    await web.waitIdle(charlieId)
    await channel(web, 'inbound.set', { sessionId: charlieId, mode: 'accept' })
    const bravoId = (await web.create()).sessionId
    await sleep(600)
    const before = logBytes(h, alphaId)

    targetId = alphaId
    await web.prompt(bravoId, 'ROLE:B send:refuse')
    await web.waitIdle(bravoId)
    const refused = model.toolResults('sessions_send')[0]!.content
    expect(refused).toMatch(/^refused: rejected \| session-\S+ does not take messages from peer sessions \(its user set inbound messages to refuse\)\nNothing was delivered\. Do not send it again\. Ask its user instead/)
    await sleep(600)
    expect(logBytes(h, alphaId).equals(before)).toBe(true)

    targetId = charlieId
    await web.prompt(bravoId, 'ROLE:B send:expire')
    await web.waitIdle(bravoId, { turns: 2 })
    expect(model.toolResults('sessions_send')[1]!.content).toMatch(/^accepted for .* recorded at seq \d+/)
    // The local send's row is the store's (docs/architecture.md §8): its holder marks it recorded once its own flush resolved.
    const trafficNow = async () => await channel(web, 'traffic.list', {}) as { rows: Array<{ state: string }> }
    await waitFor(async () => /recorded|answered/.test((await trafficNow()).rows[0]?.state ?? ''), 'the local send recorded in the store', 10_000)
    const traffic = await channel(web, 'traffic.list', {})
    expect(traffic.rows.map((row: { target: string, state: string, reason?: string }) => [row.target, row.state, row.reason])).toEqual([[charlieId, expect.stringMatching(/recorded|answered/), undefined], [alphaId, 'refused', 'inbound']])
  })

  it('a headless sender\'s message to a session in a web host waits held across the sender\'s exit and a restart of the host, then is delivered from the browser', async () => {
    const h = fx.h = makeHome('inbound-headless')
    installByName(h)
    let alphaId = ''
    const model = fx.model = await startFakeModel({ scenario: scenario(() => alphaId) })
    let web = fx.web = await startWeb(h, model, { patch: webPatch(h) })
    alphaId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: alphaId, title: 'Deploy keys' })
    await web.prompt(alphaId, 'ROLE:A keep the keys')
    await web.waitIdle(alphaId)
    await channel(web, 'inbound.set', { sessionId: alphaId, mode: 'hold' })

    // A headless run on the same home (the plugin by path, as a terminal profile would mount it) sends: held.
    const run = await runHeadless(h, model, 'ROLE:H send:headless', { patch: writePatch(h, {}, 'headless.patch.yml') })
    expect(model.toolResults('sessions_send')[0]!.content).toMatch(/held for its user's approval/)
    expect(targetSaw(model, 'HEADLESS-HELD')).toBe(false)

    // The web host restarts: the held message is still there.
    await web.stop()
    web = fx.web = await startWeb(h, model, { patch: webPatch(h) })
    const page = fx.page = await fx.browser!.newPage({ viewport: { width: 1180, height: 860 } })
    await openApp(page, web.port)
    await openSession(page, 'Deploy keys')
    const card = page.locator(`[data-xs-dock="${alphaId}"] [data-xs-approval]`)
    await card.waitFor({ timeout: 30_000 })
    expect(await card.getAttribute('data-xs-sender')).toBe(run.sessionId)
    await card.locator('[data-xs-deliver]').click()
    // Alpha is cold in the restarted host: the host wakes it for the delivered message (the sender allowed waking).
    await waitFor(() => targetSaw(model!, 'HEADLESS-HELD'), 'the held message in the target\'s model request', 60_000)
    await waitFor(async () => (await channel(web!, 'traffic.list', {})).rows[0]?.state === 'answered' || (await channel(web!, 'traffic.list', {})).rows[0]?.state === 'recorded', 'the message recorded', 30_000)
  })
})
