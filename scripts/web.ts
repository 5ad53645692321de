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
import { installByName } from '../test/e2e/support/browser.ts'
import { startFakeModel, type ModelRequest, type Reply } from '../test/e2e/support/fake-model.ts'
import { assertPrerequisites, makeHome, startWeb, writePatch } from '../test/e2e/support/harness.ts'
import { pageCall } from '../test/e2e/support/page-key.ts'
import { firstUserText, turnOf } from '../test/e2e/support/scenario.ts'

const args = process.argv.slice(2)
const portArg = args.indexOf('--port')
const keep = args.includes('--keep')
const ids: Record<string, string> = {}

const HELP = 'Try: `list`, `read <session id>`, `send <session id> <text>`.'

/** The scripted model: seeded roles first, then the small command language. */
function answer(request: ModelRequest): Reply {
  const turn = turnOf(request)
  const first = firstUserText(request)
  if (turn.step > 0) return { text: `Done: ${(turn.results[0]?.content ?? '').split('\n')[0]}` }
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

async function main(): Promise<void> {
  assertPrerequisites()
  const h = makeHome('web', 'dsh-cross-session-')
  installByName(h)
  const model = await startFakeModel({ scenario: answer, maxRequests: 100_000, lifetimeMs: 7 * 24 * 3600_000 })
  const patch = writePatch(h, { plugin: false, rows: [{ id: 'cross-session', name: 'dsh-cross-session', config: {} }] })
  const web = await startWeb(h, model, { patch, timeoutMs: 7 * 24 * 3600_000, ...(portArg >= 0 ? { port: Number(args[portArg + 1]) } : {}) })
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
  console.log(`Seeded: alpha ${ids.alpha}, bravo ${bravo}, charlie ${charlie} (holds peer messages: one waits for approval).`)
  console.log(`In any session the scripted model understands: list · read <session id> · send <session id> <text>. Ctrl-C stops.\n`)
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
