/**
 * `npm run web`: try the plugin in a browser with one command. Starts
 * `dsh web` (the harness rc.8 under e2e/) with this package installed by
 * name on a fresh `DSH_HOME`, the scripted model of the end-to-end suite on
 * 127.0.0.1 (no API key, no network), and a few seeded sessions:
 *
 * - "Fix the reasoning-effort config" (alpha) and "Release checklist for v2"
 *   (bravo): bravo lists, reads and messages alpha, which answers;
 * - "Deploy keys (holds peer messages)" (charlie): its inbound choice is
 *   `hold`, and bravo's message to it waits on an approval card.
 *
 * Then it prints the URL and the home, and runs until Ctrl-C. In any
 * session the scripted model understands `list`, `read <session id>`, and
 * `send <session id> <text>` (it calls the tool), and echoes anything else.
 *
 * Options: `--port N` (default: a free port), `--keep` (keep the home on exit).
 * @module scripts/web
 */
import { createServer } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { byNamePatch, installByName } from '../test/e2e/support/browser.ts'
import { startFakeModel, type ModelRequest, type Reply } from '../test/e2e/support/fake-model.ts'
import { assertPrerequisites, makeHome, startWeb, type DshHome } from '../test/e2e/support/harness.ts'
import { pageCall } from '../test/e2e/support/page-key.ts'
import { firstUserText, turnOf } from '../test/e2e/support/scenario.ts'
import { outsideTemp } from '../test/support/outside-temp.ts'

const args = process.argv.slice(2)
const portArg = args.indexOf('--port')
const keep = args.includes('--keep')
const ids: Record<string, string> = {}

/** This checkout (the web home lies under its `.tmp/`, or under `~/.cache` when the checkout is under a temp root). */
const CHECKOUT = resolve(dirname(fileURLToPath(import.meta.url)), '..')

const HELP = 'Try: `list`, `read <session id>`, `send <session id> <text>`.'

/** The scripted model: seeded roles first, then the small command language. */
function answer(request: ModelRequest): Reply {
  const turn = turnOf(request)
  const first = firstUserText(request)
  // The whole result, so a terminal run prints what `list` or `read` found (a headless run prints the final answer only).
  if (turn.step > 0) return { text: `Done:\n${turn.results[0]?.content ?? ''}` }
  const trigger = turn.trigger.trim()
  if (trigger.includes('Cross-session message')) return { text: 'A peer session wrote to me (above). Noted; I will take it from here.' }
  if (first.includes('ROLE:BRAVO') && trigger.includes('ROLE:BRAVO')) {
    return { calls: [{ name: 'sessions_send', args: { session_id: ids.alpha, message: 'Did the reasoning-effort fix land on main? The release checklist needs it.' } }] }
  }
  if (first.includes('ROLE:ALPHA') && trigger.includes('ROLE:ALPHA')) return { text: 'Alpha here: the fix is on a branch, waiting for review.' }
  if (first.includes('ROLE:CHARLIE') && trigger.includes('ROLE:CHARLIE')) return { text: 'Charlie here: I hold the deploy keys, and my user approves what peers send me.' }
  if (trigger.includes('ROLE:ASK-CHARLIE')) {
    return { calls: [{ name: 'sessions_send', args: { session_id: ids.charlie, message: 'Please rotate the staging deploy key and paste the new one here.\n\n(Sent from the release checklist session.)' } }] }
  }
  const [command, target, ...rest] = trigger.split(/\s+/)
  if (command === 'list') return { calls: [{ name: 'sessions_list', args: {} }] }
  if (command === 'read' && target !== undefined) return { calls: [{ name: 'sessions_read', args: { session_id: target } }] }
  if (command === 'send' && target !== undefined && rest.length > 0) return { calls: [{ name: 'sessions_send', args: { session_id: target, message: rest.join(' ') } }] }
  return { text: `(scripted model) You said: ${trigger.slice(0, 200)}\n\n${HELP}` }
}

/** `--port N` as given, or `undefined`; a value that is not a port ends the run with one line. */
function askedPort(): number | undefined {
  if (portArg < 0) return undefined
  const port = Number(args[portArg + 1])
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`--port takes a port number (1–65535); got ${args[portArg + 1] ?? 'nothing'}`)
  return port
}

/** Refuse a port something already listens on, at once and in one line (dsh web would wait and then print a stack). */
async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(new Error(error.code === 'EADDRINUSE' ? `port ${port} is in use; pick another with -- --port N, or leave it out for a free one` : `port ${port} cannot be used (${error.code ?? error.message})`))
    })
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()))
  })
}

/** The commands a second terminal runs to join this home (printed in the banner; docs in the README). */
function secondTerminal(home: string, workspace: string, modelUrl: string): string {
  const repo = CHECKOUT
  const path = [dirname(process.execPath), join(repo, 'e2e', 'node_modules', '.bin')].join(':')
  return [
    'A second terminal on the same home (a headless dsh beside this web host):',
    `  export DSH_HOME=${home}`,
    `  export DEEPSEEK_BASE_URL=${modelUrl}   # the scripted model`,
    '  export DEEPSEEK_API_KEY=offline   # any value: the scripted model checks none',
    '  export DSH_TELEMETRY_DISABLED=1',
    `  export PATH="${path}:$PATH"   # Node 22, and dsh and pnpm from e2e/`,
    `  cd ${workspace}   # a run's workspace is the folder it starts in (what visibility: workspace compares)`,
    `  dsh plugin --profile headless add link:${repo}   # once per home`,
    '  dsh --profile headless "list"   # or "read <session id>", "send <session id> <text>"',
  ].join('\n')
}

async function main(): Promise<void> {
  assertPrerequisites()
  const port = askedPort()
  if (port !== undefined) await assertPortFree(port)
  // Outside /tmp and the temp dir, which every session's shell may write: a home there earns the settings card's warning.
  const h = makeHome('web', 'dsh-cross-session-', outsideTemp(CHECKOUT, 'web'))
  try {
    await serve(h, port)
  } catch (error: unknown) {
    // Nothing started is left behind: the home goes with a failed start (unless --keep).
    if (!keep) h.cleanup()
    throw error
  }
}

async function serve(h: DshHome, port: number | undefined): Promise<void> {
  console.log('Starting dsh web and seeding three sessions (about 20 s)…')
  installByName(h)
  const model = await startFakeModel({ scenario: answer, maxRequests: 100_000, lifetimeMs: 7 * 24 * 3600_000 })
  const patch = byNamePatch(h)
  const web = await startWeb(h, model, { patch, timeoutMs: 7 * 24 * 3600_000, ...(port === undefined ? {} : { port }) })
  // Seeding stands in for the user's page: it calls the channel as the page does (docs/tools.md, "Who can decide a held message").
  const channel = async (endpoint: string, payload: Record<string, unknown>): Promise<void> => {
    await pageCall(web.port, endpoint, payload)
  }
  const seed = async (key: string, title: string, prompt: string): Promise<string> => {
    const { sessionId } = await web.create()
    ids[key] = sessionId
    await web.rpc('session.rename', { sessionId, title })
    await web.prompt(sessionId, prompt)
    await web.waitIdle(sessionId)
    return sessionId
  }
  await seed('alpha', 'Fix the reasoning-effort config', 'ROLE:ALPHA fix the config')
  const charlie = await seed('charlie', 'Deploy keys (holds peer messages)', 'ROLE:CHARLIE keep the deploy keys')
  await channel('inbound.set', { sessionId: charlie, mode: 'hold' })
  const bravo = await seed('bravo', 'Release checklist for v2', 'ROLE:BRAVO check with your peer')
  await web.waitIdle(ids.alpha!, { turns: 2 })
  await web.prompt(bravo, 'ROLE:ASK-CHARLIE ask charlie for the key')
  await web.waitIdle(bravo, { turns: 2 })
  console.log(`\ndsh web with dsh-cross-session: http://127.0.0.1:${web.port}/`)
  console.log(`DSH_HOME: ${h.home}${keep ? ' (kept on exit)' : ' (deleted on exit; --keep keeps it)'}`)
  console.log('Seeded:')
  console.log(`  "Fix the reasoning-effort config"    ${ids.alpha}`)
  console.log(`  "Release checklist for v2"           ${bravo}`)
  console.log(`  "Deploy keys (holds peer messages)"  ${charlie} (one message waits on its approval card)`)
  console.log('In any session the scripted model understands: list · read <session id> · send <session id> <text>.\n')
  console.log(secondTerminal(h.home, h.workspace, model.url))
  console.log('\nCtrl-C stops.\n')
  // Ctrl-C reaches this process twice (from the terminal's process group and
  // forwarded by scripts/node22.mjs): every signal is caught, the first stops.
  let stopping = false
  const stop = async (): Promise<void> => {
    if (stopping) return
    stopping = true
    try {
      await web.stop()
      await model.close()
    } finally {
      if (!keep) h.cleanup()
      console.log(keep ? `stopped; DSH_HOME kept: ${h.home}` : 'stopped; DSH_HOME deleted')
      process.exit(0)
    }
  }
  process.on('SIGINT', () => { void stop() })
  process.on('SIGTERM', () => { void stop() })
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error))
  process.exit(1)
})
