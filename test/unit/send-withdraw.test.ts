/**
 * `sessions_send` with `withdraw: true` (src/tools/send/withdraw.ts,
 * docs/tools.md#withdrawing-a-message) over a real home store: the same
 * arguments name the message; nothing is sent; a store that cannot be used
 * withdraws nothing and says so (fail closed).
 *
 * @module test/unit/send-withdraw
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { callIdentity, requestIdFor } from '../../src/model/limits.js'
import { openHomeStore, sessionsSend, type HomeStore } from '../../src/testing.js'
import { sendDigests } from '../../src/tools/send/withdraw.js'
import { StoreUnavailableError } from '../../src/home/store-fault.js'
import { makeWorld, session } from '../support/fakes.js'

const ME = 'session-4b91c2d0-5f3e-4a7b-9c1d-2e8f6a0b3c4d'
const PEER = 'session-e218a09e-8736-4483-9a04-2bf13608630c'
const dirs: string[] = []
const opened: HomeStore[] = []
afterEach(() => {
  for (const store of opened.splice(0)) store.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function scene() {
  const home = mkdtempSync(join(tmpdir(), 'xs-send-withdraw-'))
  dirs.push(home)
  const store = openHomeStore(home, { pid: 1, start: 1 }, () => true)
  opened.push(store)
  const w = makeWorld()
  const me = session(ME, 1_764_460_000_000, { live: true })
  w.corpus.add(me).add(session(PEER, 1_764_450_000_000))
  return { store, w, me }
}

/** Post what a send with `message` (and `mode`) would have posted. */
function posted(store: HomeStore, message: string, mode?: 'queue' | 'steer'): string {
  const messageId = requestIdFor(ME, callIdentity('call_1', { session_id: PEER, message, ...(mode === undefined ? {} : { mode }) }))
  store.post({ messageId, target: PEER, sender: ME, hop: 1, mode: mode ?? 'queue', text: message, mayWake: true })
  return messageId
}

describe('sessions_send withdraw', () => {
  it('the same arguments with withdraw: true take the waiting message back; a repeat says the same; nothing is sent', async () => {
    const { store, w, me } = scene()
    const id = posted(store, 'please review')
    const deps = { ...w.deps, inbound: store }
    const first = await sessionsSend({ session_id: PEER, message: 'please review', withdraw: true }, w.call(me, { callId: 'call_9' }), deps)
    expect(first).toBe(`withdrawn: the message to ${PEER} (id ${id})\nIt was waiting in the cross-session store; no process had taken it. It will never be delivered, and no notice will come for it.`)
    expect(await sessionsSend({ session_id: PEER, message: 'please review', withdraw: true }, w.call(me, { callId: 'call_10' }), deps)).toBe(first)
    expect(store.message(id)?.state).toBe('refused')
    expect(w.controller.log).toEqual([])
    expect(w.controller.delivered.size).toBe(0)
  })

  it('a mode given now matches a send that gave it or left it out; another text matches nothing', async () => {
    const { store, w, me } = scene()
    const steered = posted(store, 'now', 'steer')
    expect(sendDigests(ME, { session_id: PEER, message: 'now', mode: 'steer' })).toContain(steered.split(':').at(-1))
    const deps = { ...w.deps, inbound: store }
    expect(await sessionsSend({ session_id: PEER, message: 'now', mode: 'steer', withdraw: true }, w.call(me), deps)).toMatch(/^withdrawn: /)
    expect(await sessionsSend({ session_id: PEER, message: 'other', withdraw: true }, w.call(me), deps)).toMatch(/^refused: nothing-to-withdraw \| no message this session sent to .* is known to the cross-session store/)
  })

  it('too late once claimed: says which process is putting it into the log', async () => {
    const { store, w, me } = scene()
    posted(store, 'hi')
    store.markLive(PEER)
    store.claim(PEER)
    expect(await sessionsSend({ session_id: PEER, message: 'hi', withdraw: true }, w.call(me), { ...w.deps, inbound: store })).toMatch(/^too late: process 1 holds .* and is putting it into its log\nThe message was not withdrawn/)
  })

  it('fails closed: a store that cannot be used withdraws nothing', async () => {
    const { w, me } = scene()
    const broken = { ...w.inbound, inboundOf: w.inbound.inboundOf.bind(w.inbound), holdForApproval: w.inbound.holdForApproval.bind(w.inbound), journal: w.inbound.journal.bind(w.inbound), withdraw: () => { throw new StoreUnavailableError('it is locked') } }
    expect(await sessionsSend({ session_id: PEER, message: 'hi', withdraw: true }, w.call(me), { ...w.deps, inbound: broken })).toMatch(/^refused: rejected \| the cross-session store is unavailable \(.*locked.*\)\nNothing was withdrawn\./)
  })
})
