/**
 * End to end, a held message across two machines on one PostgreSQL server
 * (docs/architecture.md §8 "Several machines", docs/tools.md "Sessions of
 * other machines": `hold` is decided "on that machine's web page, as on one
 * machine"). Machine B runs `dsh web` with the package installed by name
 * (so its page has the browser half) and its user holds peer messages;
 * machine A sends from a headless run. B's page, in headless Chromium,
 * shows the approval card, and Deliver puts the message into B's session
 * exactly once: with hold chosen for the session in its header (kept in the
 * shared store), and with `inbound: hold` set for B's whole host (B
 * publishes its setting with its sessions; A applies it to them).
 *
 * Every assertion reads what really happened: the tool result A's model
 * received, what B's model was sent, B's persisted log, and the rows of the
 * shared database (schema `dsh_cross_session`).
 * @module test/e2e/machines-held
 */
import pg from 'pg'
import type { Page } from 'playwright-core'
import { afterEach, describe, expect, it } from 'vitest'
import { installByName, openAppIn, openSessionIn, skipsForBrowser, webFixture } from './support/browser.ts'
import { resultOf, startFakeModel, textOf, type FakeModel } from './support/fake-model.ts'
import { makeHome, readSession, runHeadless, SKIP_E2E, startWeb, waitFor, writePatch, type DshHome } from './support/harness.ts'
import { expectContiguous, peerMessages } from './support/logs.ts'
import { firstUserText, router, steps } from './support/scenario.ts'
import { pgUrl, testDatabase } from '../support/pg-target.ts'

const skipForBrowser = skipsForBrowser('machines-held')
const url = SKIP_E2E ? undefined : pgUrl()

const BODY = 'XM-HELD-BODY: may the laptop run the migration on the server?'
const TITLE = 'Server migrations'

/** How many of B's model requests hold `text` in a user message (the model sees a delivered message in every later request). */
function betaRequestsWith(model: FakeModel, text: string): number {
  return model.requests.filter(r => !r.isTitle && firstUserText(r).includes('ROLE:BETA') && r.messages.some(m => textOf(m).includes(text))).length
}

describe.skipIf(SKIP_E2E || skipForBrowser || url === undefined)('a message held on another machine, delivered from that machine\'s page', () => {
  const fx = webFixture()
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  /** A database of this test's own on the shared server, and an admin pool on it. */
  async function database(): Promise<{ url: string, admin: pg.Pool }> {
    const made = await testDatabase(url!, 'xs_mheld')
    cleanups.push(made.drop)
    return made
  }

  /**
   * B: a `dsh web` on machine `server-b` with the package by name (its page's browser half) and plugin config
   * `config`, one live session titled {@link TITLE} that answered once and is published; A: a home on `laptop-a`
   * whose headless run sends {@link BODY} to it.
   */
  async function twoMachines(db: { url: string, admin: pg.Pool }, config: Record<string, unknown>) {
    let betaId = ''
    const model = fx.model = await startFakeModel({
      scenario: router({
        'ROLE:BETA': turn => ({ text: turn.trigger.startsWith('Cross-session message') ? 'BETA-GOT-HELD' : 'BETA-READY' }),
        'ROLE:ALPHA': steps([() => ({ name: 'sessions_send', args: { session_id: betaId, message: BODY } })], 'ALPHA sent'),
      }),
    })
    const b: DshHome = fx.h = makeHome('mheld-b')
    installByName(b)
    const patchB = writePatch(b, { plugin: false, rows: [{ id: 'cross-session', name: 'dsh-cross-session', config: { store: db.url, machine: 'server-b', ...config } }] })
    const web = fx.web = await startWeb(b, model, { patch: patchB })
    betaId = (await web.create()).sessionId
    await web.rpc('session.rename', { sessionId: betaId, title: TITLE })
    await web.prompt(betaId, 'ROLE:BETA keep the server')
    await web.waitIdle(betaId)
    await waitFor(async () => (await db.admin.query('SELECT 1 FROM dsh_cross_session.directory WHERE session_id = $1 AND title = $2', [betaId, TITLE])).rows.length === 1,
      'B publishes its session with its title')
    const a = makeHome('mheld-a')
    cleanups.push(async () => a.cleanup())
    const patchA = writePatch(a, { plugin: { store: db.url, machine: 'laptop-a' } })
    return { model, b, web, betaId, a, patchA }
  }

  /** B's page in headless Chromium, on B's session's conversation. */
  async function openOnB(port: number): Promise<Page> {
    const page = fx.page = await fx.browser!.newPage({ viewport: { width: 1440, height: 900 } })
    await openAppIn(page, port, 'en')
    await openSessionIn(page, TITLE)
    return page
  }

  /**
   * What is common to both ways B's user holds: A's send is held (its result says so, and nothing reached B's model),
   * B's page shows one card for it, Deliver puts it into B's session once and the rows end `delivered` / `recorded`.
   */
  async function heldThenDelivered(db: { url: string, admin: pg.Pool }, parts: Awaited<ReturnType<typeof twoMachines>>, opened?: Page) {
    const { model, b, web, betaId, a, patchA } = parts
    const alpha = await runHeadless(a, model, 'ROLE:ALPHA ask the server', { patch: patchA })
    const send = resultOf(model, 'sessions_send')
    expect(send).toMatch(new RegExp(`^accepted for ${betaId} \\| mode=queue \\| chars=${BODY.length} \\| hop 1 \\| held for its user's approval\\n`))
    expect(send).toContain('kept in the cross-session store until it is delivered or refused in the web UI, or until it expires in 10 min')
    expect(send).toContain('Nothing has reached that session or its model yet.')
    // Held in the shared store, and nothing posted for delivery: B's model never saw it.
    const held = await db.admin.query('SELECT target, sender, state FROM dsh_cross_session.approvals')
    expect(held.rows).toEqual([{ target: betaId, sender: alpha.sessionId, state: 'held' }])
    expect((await db.admin.query('SELECT 1 FROM dsh_cross_session.messages WHERE target = $1', [betaId])).rows).toEqual([])
    expect(betaRequestsWith(model, 'XM-HELD-BODY')).toBe(0)

    // B's user: the page on B shows the card in the session's dock, naming the sender on A.
    const page = opened ?? await openOnB(web.port)
    const cards = page.locator(`[data-xs-dock="${betaId}"] [data-xs-approval]`)
    await waitFor(async () => (await cards.count()) === 1, 'one approval card on B\'s page')
    expect(await cards.first().getAttribute('data-xs-sender')).toBe(alpha.sessionId)
    expect(await cards.first().innerText()).toMatch(/Held message from session[\s\S]*queue · hop 1 · expires in (9|10) min[\s\S]*XM-HELD-BODY: may the laptop run the migration/)
    await cards.first().locator('[data-xs-deliver]').click()
    await waitFor(async () => (await cards.count()) === 0, 'the card gone after Deliver')

    // Delivered into B's live session: its model answers it, in one more turn.
    await waitFor(() => model.requests.some(r => r.reply !== undefined && 'text' in r.reply && r.reply.text === 'BETA-GOT-HELD') || undefined, 'B\'s model to answer the delivered message')
    await web.waitIdle(betaId, { turns: 2 })
    await waitFor(async () => (await db.admin.query('SELECT state FROM dsh_cross_session.messages WHERE target = $1', [betaId])).rows[0]?.state === 'recorded',
      'the delivered message recorded in the shared store')
    const framed = model.requests.filter(r => !r.isTitle && firstUserText(r).includes('ROLE:BETA')).flatMap(r => r.messages.map(textOf)).find(text => text.includes('XM-HELD-BODY'))
    expect(framed).toMatch(/^Cross-session message from another session of this harness\.\nfrom-session: /)
    expect(framed).toContain(`from-session: ${alpha.sessionId}`)
    expect(framed).toContain('delivery: queue | hop 1')
    expect(model.requests.filter(r => r.reply !== undefined && 'text' in r.reply && r.reply.text === 'BETA-GOT-HELD')).toHaveLength(1)

    // Exactly once: the store's rows, and B's persisted log once the host has written it out.
    await web.stop()
    const log = readSession(b, betaId)
    expectContiguous(log)
    const delivered = peerMessages(log, 'XM-HELD-BODY')
    expect(delivered).toHaveLength(1)
    expect(delivered[0]!.source).toEqual({ kind: 'plugin', plugin: 'dsh-cross-session', form: 'relay', senderSessionId: alpha.sessionId, hop: 1 })
    const rows = await db.admin.query('SELECT state, seq FROM dsh_cross_session.messages WHERE target = $1', [betaId])
    expect(rows.rows).toEqual([{ state: 'recorded', seq: delivered[0]!.seq }])
    expect((await db.admin.query('SELECT state FROM dsh_cross_session.approvals')).rows).toEqual([{ state: 'delivered' }])
  }

  it('B\'s user chose hold in the session\'s header: A\'s send is held, and Deliver on B\'s page delivers it into B\'s session once', async () => {
    const db = await database()
    const parts = await twoMachines(db, {})
    // The user of B's session chooses hold in its conversation header; the choice lives in the shared store.
    const page = await openOnB(parts.web.port)
    const choice = page.locator(`[data-xs-inbound="${parts.betaId}"]`)
    await choice.waitFor({ timeout: 30_000 })
    await choice.locator('select').selectOption('hold')
    await page.locator(`[data-xs-inbound="${parts.betaId}"][data-xs-effective="hold"]`).waitFor({ timeout: 15_000 })
    expect((await db.admin.query('SELECT session_id, mode FROM dsh_cross_session.inbound')).rows).toEqual([{ session_id: parts.betaId, mode: 'hold' }])
    await heldThenDelivered(db, parts, page)
  })

  /**
   * B's user set `inbound: hold` for the whole host. On one machine every process of the home reads the same setting;
   * across machines B publishes it with its sessions and A's send applies it to them (docs/architecture.md §8, "A
   * machine's `inbound` setting travels with its sessions"; `tools/send/gather.ts` `inboundOf`).
   */
  it('B holds every peer message (inbound: hold in its plugin config): A\'s send is held, and Deliver on B\'s page delivers it into B\'s session once', async () => {
    const db = await database()
    const parts = await twoMachines(db, { inbound: 'hold' })
    await heldThenDelivered(db, parts)
  })
})
