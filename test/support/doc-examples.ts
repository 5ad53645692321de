/**
 * The examples shown in docs/tools.md, produced by the real tool code over
 * the in-memory ports. `test/unit/docs.test.ts` fails when the docs and the
 * code drift apart; `npx tsx test/support/doc-examples.ts` prints them.
 *
 * @module test/support/doc-examples
 */

import { buildFrame, deliveryReasons, relaySource, renderAccepted, renderRefusal, sendRefusals, sessionsList, sessionsRead, sessionsSend } from '../../src/testing.js'
import { assistantEvent, makeWorld, session, toolResultEvent, userEvent } from './fakes.js'

/** Build the example corpus: two peers, a subagent, and the caller. */
function scene() {
  const w = makeWorld({ recordWaitMs: 0 })
  const me = session('session-4b91c2d0-5f3e-4a7b-9c1d-2e8f6a0b3c4d', 1_764_460_000_000, { live: true, title: 'Release checklist for v2', events: [userEvent(1, 'ask the config session whether the fix landed')] })
  const peer = session('session-e218a09e-8736-4483-9a04-2bf13608630c', 1_764_450_000_000, {
    title: 'Fix the newapi reasoning-effort config',
    header: { cwd: '/Users/dev/.dsh' },
    events: [
      userEvent(405, 'Current runtime context.\nDate: 2026-11-30', { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' }),
      userEvent(406, 'the reasoning selector is empty for every model'),
      assistantEvent(407, 'fixed. root cause: reasoningEfforts was never declared per model entry', [{ type: 'reasoning', text: 'let me look at the schema' }]),
      toolResultEvent(408, 'config.yml: 212 lines'),
      userEvent(409, buildFrame({ fromSessionId: 'session-77aa', fromTitle: 'Docs sweep', mode: 'queue', hop: 1, body: 'does the fix need a docs change?', token: () => 'Zq81LmX0pTa4' }).text, relaySource({ senderSessionId: 'session-77aa', hop: 1 })),
    ],
  })
  const child = session('019c3d96-79e0-4e6a-b7bf-ea46c224d701', 1_764_455_000_000, { title: 'Bounded completed checkpoint', header: { cwd: '/Users/dev/Soul/new-memory-system', parentSession: 'session-e218a09e-8736-4483-9a04-2bf13608630c', origin: 'subagent' } })
  w.corpus.add(me).add(peer).add(child)
  return { w, me }
}

/** A send to a session live in another dsh process, before its outcome (docs/tools.md "A session live in another dsh process"). */
const REMOTE = {
  targetId: 'session-e218a09e-8736-4483-9a04-2bf13608630c',
  mode: 'queue',
  chars: 74,
  hop: 1,
  woke: false,
  running: false,
  remote: { pid: 48213 },
  recordWaitMs: 5000,
  waitCancelled: false,
} as const

/** A send from a headless run that woke its target, before its outcome. */
const WOKEN = { ...REMOTE, remote: undefined, woke: true } as const

/** Every example, by the heading it appears under in docs/tools.md. */
export async function docExamples(): Promise<Record<string, string>> {
  const { w, me } = scene()
  const call = (callId?: string) => w.call(me, callId === undefined ? {} : { callId })
  return {
    'sessions_list': await sessionsList({ scope: 'all' }, call(), w.deps),
    'sessions_read': await sessionsRead({ session_id: 'session-e218a09e-8736-4483-9a04-2bf13608630c', max_messages: 2 }, call(), w.deps),
    'sessions_send': await sessionsSend({ session_id: 'session-e218a09e-8736-4483-9a04-2bf13608630c', message: 'Did the reasoning-effort fix land on main? The release checklist needs it.' }, call('call_01'), w.deps),
    'frame': buildFrame({ fromSessionId: 'session-4b91c2d0-5f3e-4a7b-9c1d-2e8f6a0b3c4d', fromTitle: 'Release checklist for v2', mode: 'queue', hop: 1, body: 'Did the reasoning-effort fix land on main? The release checklist needs it.', token: () => 'k3Vd9QxLm2Ta' }).text,
    'not-messageable': await sessionsSend({ session_id: '019c3d96-79e0-4e6a-b7bf-ea46c224d701', message: 'hi' }, call(), w.deps),
    'remote recorded': renderAccepted({ ...REMOTE, recorded: { seq: 27, stage: 'conversation', running: false } }),
    'remote claimed': renderAccepted({ ...REMOTE, recorded: { stage: 'claimed' } }),
    'remote pending': renderAccepted({ ...REMOTE, recorded: { stage: 'pending' } }),
    'handoff recorded': renderAccepted({ ...REMOTE, remote: { pid: 48213, handoff: true }, recorded: { seq: 31, stage: 'conversation', running: false } }),
    'woke and answered': renderAccepted({ ...WOKEN, recorded: { seq: 412, stage: 'conversation' }, answer: { ended: true, reason: 'completed', seq: 419 } }),
    'woke, still answering': renderAccepted({ ...WOKEN, recorded: { seq: 412, stage: 'conversation' }, answer: { ended: false, waitedMs: 120000 } }),
    'open turn': renderRefusal(sendRefusals.rejected(deliveryReasons.openTurn(42_000), 'resolving the target session'), 'Nothing was delivered.'),
    'invalid-arguments': await sessionsSend({ session_id: 'session-e218a09e-8736-4483-9a04-2bf13608630c', message: 'hi', priority: 'high' }, call(), w.deps),
  }
}

if (process.argv[1]?.endsWith('doc-examples.ts')) {
  for (const [name, text] of Object.entries(await docExamples())) console.log(`## ${name}\n${text}\n`)
}
