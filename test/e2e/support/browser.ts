/**
 * Headless Chromium for the web e2e: Debian's `chromium` package driven by
 * playwright-core over CDP (no bundled browser download). `.ci/run` installs
 * the package when it is missing. Without a browser the web e2e FAILS under
 * CI (`CI=true`: a browser test that silently skips would pass a run that
 * never looked at the web face); elsewhere it skips with one line saying why.
 *
 * The web UI keeps a live connection, so pages are driven by waiting for
 * selectors, never by "network idle" or a virtual time budget.
 * @module test/e2e/support/browser
 */
import { existsSync, mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Locator, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { homeFixture, ROOT, SKIP_E2E, writePatch, type DshHome, type HomeFixture } from './harness.ts'

/** Where Chromium is looked for: `CHROMIUM_PATH` alone when it is set, else the usual paths. */
function candidates(env: Record<string, string | undefined> = process.env): string[] {
  const chosen = env.CHROMIUM_PATH?.trim()
  return chosen !== undefined && chosen.length > 0 ? [chosen] : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
}

/** The Chromium executable, or undefined when none is installed. */
export function chromiumPath(env: Record<string, string | undefined> = process.env): string | undefined {
  return candidates(env).find(path => existsSync(path))
}

/** Why the browser e2e cannot run here (one line), or undefined. */
export function missingBrowser(env: Record<string, string | undefined> = process.env): string | undefined {
  return chromiumPath(env) === undefined ? `no Chromium found (${candidates(env).join(', ')}); install Debian's chromium package (.ci/run does) or set CHROMIUM_PATH` : undefined
}

/** Whether this run is a CI run (`CI` set to anything but empty, `0` or `false`, as CI services set it). */
export function isCi(env: Record<string, string | undefined> = process.env): boolean {
  const value = env.CI?.trim().toLowerCase()
  return value !== undefined && value !== '' && value !== '0' && value !== 'false'
}

/**
 * Whether a browser e2e file skips here: no Chromium outside CI (said once, naming `file`); under CI a missing
 * browser fails the run instead (each test launches it).
 */
export function skipsForBrowser(file: string): boolean {
  const missing = missingBrowser()
  const skip = missing !== undefined && !isCi()
  if (skip && !SKIP_E2E) console.warn(`${file} e2e skipped: ${missing}`)
  return skip
}

/** Launch headless Chromium (`--no-sandbox`: CI runs as root); a missing browser throws its one line. */
export function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath()
  if (executablePath === undefined) throw new Error(`web-ui e2e: ${missingBrowser()}`)
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
}

/**
 * Where a web e2e writes the screenshot `name`: the test's home (`h.base`),
 * or docs/images/ with `XS_UPDATE_SCREENSHOTS=1` (the README shows those).
 */
export function shotPath(h: DshHome, name: string): string {
  return process.env.XS_UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'images', name) : join(h.base, name)
}

/**
 * What a browser e2e test starts, set by the test as it starts each one
 * (`fx.h = makeHome(…)`, `fx.page = await fx.browser!.newPage(…)`) so that
 * `webFixture`'s hooks can close it. `browser` is set by the fixture.
 */
export interface WebFixture extends HomeFixture {
  /** Headless Chromium, launched once per describe block (undefined before its beforeAll). */
  browser: Browser | undefined
  /** The test's page. */
  page: Page | undefined
}

/**
 * The setup every browser e2e shares: `homeFixture` (check the e2e
 * prerequisites; after each test tear down its web host, model and home)
 * plus, registered inside the same `describe`: beforeAll — launch Chromium
 * (`launchBrowser`, which throws its one line when none is installed);
 * afterEach — close the test's page and clear that field (Vitest runs
 * after-hooks in reverse order, so before the teardown); afterAll — close
 * the browser. Returns the state object the tests set.
 */
export function webFixture(): WebFixture {
  const fx: WebFixture = Object.assign(homeFixture(), { browser: undefined, page: undefined })
  beforeAll(async () => { fx.browser = await launchBrowser() })
  afterAll(async () => { await fx.browser?.close() })
  afterEach(async () => {
    await fx.page?.close()
    fx.page = undefined
  })
  return fx
}

/**
 * Make the package resolvable by name from the harness home, as an installed
 * plugin is: the web host serves a plugin's browser half only for a loader
 * entry whose name resolves to a package declaring `dsh.client` (rc.8
 * dsh-client-modules lib/index.js `resolveMeta`, resolved from the profile
 * directory under `DSH_HOME`). A path entry (the other e2e tests) gets no
 * browser half.
 */
export function installByName(h: DshHome): void {
  mkdirSync(join(h.home, 'node_modules'), { recursive: true })
  symlinkSync(ROOT, join(h.home, 'node_modules', 'dsh-cross-session'), 'dir')
}

/** A patch that mounts the package by name (after {@link installByName}), the way a user's `dsh plugin add` does. */
export function byNamePatch(h: DshHome): string {
  return writePatch(h, { plugin: false, rows: [{ id: 'cross-session', name: 'dsh-cross-session', config: {} }] })
}

/**
 * Open the app and dismiss the "Internal Testing Notice" a fresh home shows on
 * first load. The notice can arrive after the sidebar renders (it makes the
 * page inert until dismissed), so wait for it rather than for the sidebar;
 * a page that never shows it costs the wait and goes on.
 */
export async function openApp(page: Page, port: number): Promise<void> {
  await page.goto(`http://127.0.0.1:${port}/`)
  await page.getByText('Workspaces').first().waitFor({ timeout: 30_000 })
  const notice = page.getByRole('button', { name: 'Continue' })
  if (await notice.waitFor({ timeout: 15_000 }).then(() => true, () => false)) await notice.click()
  await notice.waitFor({ state: 'detached', timeout: 15_000 }).catch(() => undefined)
}

/** Open a session from the sidebar by its title. */
export async function openSession(page: Page, title: string): Promise<void> {
  const row = page.getByRole('treeitem').filter({ hasText: title })
  if (!(await row.first().isVisible().catch(() => false))) await page.getByText('Ungrouped').first().click()
  await row.first().click()
  await page.locator('header, [role=tablist]').getByText(title).first().waitFor({ timeout: 30_000 }).catch(() => undefined)
}

/** Open Settings → Plugins → Plugin configuration. */
export async function openPluginSettings(page: Page): Promise<void> {
  await page.getByText('Settings', { exact: true }).last().click()
  await page.getByText('Plugins', { exact: true }).first().click()
}

/** Open the app in `lang`; dismiss the first-load notice ("Continue" / "继续") when it shows. */
export async function openAppIn(page: Page, port: number, lang: 'en' | 'zh'): Promise<void> {
  await page.goto(`http://127.0.0.1:${port}/`)
  await page.locator('[data-xs-traffic-button]').waitFor({ timeout: 30_000 })
  const notice = page.getByRole('button', { name: lang === 'zh' ? '继续' : 'Continue' })
  if (await notice.waitFor({ timeout: 10_000 }).then(() => true, () => false)) await notice.click()
  await notice.waitFor({ state: 'detached', timeout: 15_000 }).catch(() => undefined)
}

/** Open a session from the sidebar by its title, unfolding the "Ungrouped" ("未分组") bucket when its rows do not show (the page may still be listing). */
export async function openSessionIn(page: Page, title: string): Promise<void> {
  const row = page.getByRole('treeitem').filter({ hasText: title }).first()
  if (!(await row.waitFor({ timeout: 5000 }).then(() => true, () => false))) await page.getByText(/^(Ungrouped|未分组)$/).first().click()
  await row.click()
}

/** No tooltip over a screenshot: the pointer to an empty corner, nothing focused. */
export async function calm(page: Page): Promise<void> {
  await page.mouse.move(2, 2)
  await page.evaluate(() => { ((globalThis as any).document.activeElement as { blur?: () => void } | null)?.blur?.() })
  await page.waitForTimeout(300)
}

/** How far each send row's state chip reaches past its row (px; ≤ 0 is inside), and the row's right edge against the viewport. */
export async function chipOverflow(rows: Locator): Promise<Array<{ chip: number, row: number }>> {
  return await rows.evaluateAll(els => els.map(el => {
    const row = el.getBoundingClientRect()
    const chip = el.querySelector('[data-xs-state]')!.getBoundingClientRect()
    return { chip: Math.round(chip.right - row.right), row: Math.round(row.right - (globalThis as any).innerWidth) }
  }))
}
