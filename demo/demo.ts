/**
 * `npm run demo`: the plugin working inside the real DeepSeek Harness (rc.8),
 * offline, with a scripted local model standing in for the LLM.
 *
 * Story (three sessions, two kinds of process, one harness home — the way
 * people run dsh: terminal windows beside `dsh web`):
 * 1. Alpha runs one headless task and is persisted: it is now a cold session.
 * 2. A `dsh web` process starts. Bravo (live) lists its peers, reads Alpha's
 *    conversation, and messages Alpha, which wakes Alpha inside the web host.
 *    Alpha answers the framed message by messaging Bravo back (hop 2).
 * 3. Charlie runs in a second process (a headless terminal run on the same
 *    home) while the web host stays up: it sees Bravo live in the other
 *    process, reads it (Alpha's reply labelled with its true sender), and
 *    messages it. The message goes through the cross-session store under DSH_HOME into
 *    Bravo's live session, nothing is woken twice, and Bravo's next turn
 *    answers it.
 *
 * Every tool call the scripted model makes and every result the harness sends
 * back is printed as it happens. No key, no network: the model is a local
 * HTTP server on 127.0.0.1. The harness home is left in place for inspection.
 *
 * Run: `node scripts/node22.mjs --import tsx demo/demo.ts` (Node >= 22.19;
 * needs `node scripts/setup.mjs` once for the harness and the build).
 * @module demo/demo
 */
import { join } from 'node:path'
import { startFakeModel, type ModelRequest, type Reply } from '../test/e2e/support/fake-model.ts'
import { makeHome, missingPrerequisite, readSessions, runHeadless, sleep, startWeb, titleOf, waitFor, writePatch } from '../test/e2e/support/harness.ts'
import { firstUserText, router, steps, turnOf, type ActorScript } from '../test/e2e/support/scenario.ts'

const NAMES = ['Alpha', 'Bravo', 'Charlie'] as const
type Name = (typeof NAMES)[number]

const problem = missingPrerequisite()
if (problem !== undefined) {
  console.error(`demo: ${problem}`)
  process.exit(1)
}

// Kept after the run (no cleanup) so the persisted sessions can be inspected.
const h = makeHome('run', 'dsh-cross-session-demo-')

const ids: Record<Name, string> = { Alpha: '', Bravo: '', Charlie: '' }
/** Step 3 has begun: a framed message to Bravo not from Alpha is Charlie's. */
let charlieAsked = false
const short = (id: string) => id.replace(/^session-/, '').slice(0, 8)
const nameOf = (request: ModelRequest): Name | undefined => NAMES.find(n => firstUserText(request).startsWith(`You are ${n}`))
const indent = (text: string) => text.split('\n').map(line => `      ${line}`).join('\n')

// ── what each session's scripted model does ─────────────────────────────────

const scripts: Record<Name, ActorScript> = {
  Alpha: turn => {
    if (turn.trigger.startsWith('Cross-session message')) {
      return steps([
        { name: 'sessions_send', args: { session_id: ids.Bravo, message: 'Root cause: the login test shares one fake clock across workers. Fix: give each worker its own clock (tests/login.spec.ts, setup block).' } },
      ], 'Sent Bravo the write-up.')(turn)
    }
    return { text: 'The login test is flaky because all workers share one fake clock; a per-worker clock fixes it.' }
  },
  Bravo: turn => {
    if (turn.trigger.startsWith('Cross-session message') && charlieAsked && !turn.trigger.includes(`from-session: ${ids.Alpha} `)) {
      return { text: 'Charlie asked for status: the fix is written up and ready for review.' }
    }
    if (turn.trigger.startsWith('Cross-session message')) return { text: 'Got the write-up from Alpha, thanks.' }
    return steps([
      { name: 'sessions_list', args: {} },
      () => ({ name: 'sessions_read', args: { session_id: ids.Alpha, max_messages: 4 } }),
      () => ({ name: 'sessions_send', args: { session_id: ids.Alpha, message: 'You found the login-test flake. Please send me a two-line write-up of the root cause and the fix.' } }),
    ], 'Asked Alpha for a write-up; it will arrive in my inbox.')(turn)
  },
  Charlie: steps([
    { name: 'sessions_list', args: {} },
    () => ({ name: 'sessions_read', args: { session_id: ids.Bravo, max_messages: 3 } }),
    () => ({ name: 'sessions_send', args: { session_id: ids.Bravo, message: 'I am reporting to the user: is the login-test fix ready for review?' } }),
  ], 'Bravo has the root cause from Alpha; I asked it whether the fix is ready.'),
}

const titles: Record<Name, string> = { Alpha: 'Investigate flaky login test', Bravo: 'Coordinate the login fix', Charlie: 'Status check on login work' }

// ── the scripted model, printing every call and result as it happens ───────

const printed = new Set<string>()
let frameShown = false
const route = router(Object.fromEntries(NAMES.map(n => [`You are ${n}`, scripts[n]])))
const model = await startFakeModel({
  title: request => titles[NAMES.find(n => request.allUserText.includes(`You are ${n}`)) ?? 'Alpha'],
  scenario: async request => {
    const who = nameOf(request) ?? '?'
    for (const result of request.toolResults) {
      if (printed.has(result.callId)) continue
      printed.add(result.callId)
      console.log(`   ◀ ${who} got:\n${indent(result.content)}`)
    }
    const turn = turnOf(request)
    if (turn.step === 0) {
      const label = `\n● ${who} (${ids[who as Name] ? short(ids[who as Name]) : 'new session'}) receives`
      // The first cross-session message is shown whole, so the frame is seen once.
      if (turn.trigger.startsWith('Cross-session message') && !frameShown) {
        frameShown = true
        console.log(`${label} (the framed message exactly as its model sees it):\n${indent(turn.trigger)}`)
      } else {
        const lines = turn.trigger.split('\n')
        const head = lines.slice(0, 2).join(' / ')
        console.log(`${label}: ${head.length > 110 || lines.length > 2 ? `${head.slice(0, 110)}…` : head}`)
      }
    }
    const reply: Reply = await route(request)
    if ('calls' in reply) for (const call of reply.calls) console.log(`   ▶ ${who} calls ${call.name} ${JSON.stringify(call.args)}`)
    else console.log(`   ✎ ${who} answers: ${reply.text}`)
    return reply
  },
})

// ── run ─────────────────────────────────────────────────────────────────────

const started = Date.now()
console.log(`dsh-cross-session demo: DeepSeek Harness rc.8, scripted model at ${model.url}, DSH_HOME=${h.home}`)
const patch = writePatch(h)

console.log('(◀ lines print when the model next hears from that session, so a send\'s result can appear after the turn it started elsewhere.)')
console.log('\n── 1. Alpha works alone (headless run; afterwards it is a cold, persisted session)')
ids.Alpha = (await runHeadless(h, model, 'You are Alpha. Find out why the login test is flaky.', { patch })).sessionId

console.log('\n── 2. A web host starts. Bravo discovers Alpha, reads it and messages it; the message wakes Alpha, which replies (hop 2)')
const web = await startWeb(h, model, { patch })
try {
  ids.Bravo = (await web.create()).sessionId
  await web.prompt(ids.Bravo, 'You are Bravo. Find out what other sessions learned about the flaky login test and ask them for a write-up.')
  await web.waitIdle(ids.Bravo)

  await waitFor(() => model.toolResults('sessions_send').length >= 2, 'Alpha to reply', 30_000)
  await web.waitIdle(ids.Alpha)
  await web.waitIdle(ids.Bravo, { turns: 2 })

  console.log('\n── 3. Charlie, in a second dsh process on the same home (another terminal window), checks on everyone and messages Bravo in the web host')
  charlieAsked = true
  ids.Charlie = (await runHeadless(h, model, 'You are Charlie. Check what the other sessions are doing about the login test.', { patch })).sessionId
  // Delivered through the mailbox into Bravo's live session in the web host: its next turn answers.
  await web.waitIdle(ids.Bravo, { turns: 3 })
  await sleep(300)
} finally {
  await web.stop()
  await model.close()
}

console.log(`\n── persisted sessions (${join(h.home, 'sessions')})`)
for (const session of readSessions(h)) {
  const name = NAMES.find(n => ids[n] === session.header.id) ?? '?'
  console.log(`   ${name.padEnd(8)} ${session.header.id}  "${titleOf(session) ?? ''}"  ${session.events.length} events`)
  console.log(`            ${session.path}`)
}
console.log(`\ndone in ${((Date.now() - started) / 1000).toFixed(1)} s; ${model.requests.length} model requests, all answered locally. Inspect or delete ${h.base}.`)
