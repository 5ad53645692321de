/**
 * The cross-process guard and the home runtime (issue 8) on a temporary
 * home, with a real second process standing in for "another dsh process"
 * (its pid and start time) and in-memory agents built like rc.8's
 * (`test/support/fake-host.ts`).
 */
import { mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { acquireLease, claim, guardController, HomeRuntime, isAlive, listMailbox, newMessageId, postMessage, PresencePublisher, writeReceipt, type ControllerPort, type HostAgents } from '../../src/testing.js'
import { useOtherProcess } from '../support/other-process.js'
import { fakeAgent, type FakeAgent } from '../support/fake-host.js'

/** A real other process, alive until killed. */
const otherTag = useOtherProcess()

const runtimes: HomeRuntime[] = []
afterEach(() => {
  for (const runtime of runtimes.splice(0)) runtime.stop()
})

function world(options: { openTurnAgeMs?: number } = {}) {
  const live = new Map<string, FakeAgent>()
  const agents: HostAgents = {
    get: id => live.get(id),
    resume: async () => { throw new Error('not used') },
    list: () => [...live.values()],
  }
  const runtime = new HomeRuntime(mkdtempSync(join(tmpdir(), 'xs-guard-')), agents, () => {})
  runtime.start([])
  runtimes.push(runtime)
  const calls: string[] = []
  const inner: ControllerPort = {
    async resolve(sessionId, { mayWake }) {
      calls.push(`resolve ${sessionId} mayWake=${mayWake}`)
      if (live.has(sessionId)) return { ok: true, value: { sessionId, woke: false, running: false } }
      if (!mayWake) return { ok: false, reason: 'not live' }
      const agent = fakeAgent({ id: sessionId, createdAt: 1 })
      live.set(sessionId, agent)
      runtime.track(agent)
      return { ok: true, value: { sessionId, woke: true, running: false } }
    },
    async admit(target, prompt) {
      calls.push(`admit ${target.sessionId}`)
      live.get(target.sessionId)!.followup({ id: prompt.requestId, role: 'user', content: [{ type: 'text', text: prompt.text }], source: { kind: 'user' } })
      return { ok: true, value: { mode: prompt.mode, running: false } }
    },
    async releaseWoken() {
      return 'released'
    },
    async waitRecorded() {
      return undefined
    },
  }
  const now = Date.now()
  const listEvents = async () => options.openTurnAgeMs === undefined ? [] : [{ type: 'turn/start', time: now - options.openTurnAgeMs }]
  const guarded = guardController(inner, runtime, id => live.has(id), listEvents)
  return { live, runtime, guarded, calls }
}

const signal = new AbortController().signal
const prompt = (requestId: string) => ({ requestId, mode: 'queue' as const, text: `framed ${requestId}`, provenance: { senderSessionId: 's-b', hop: 1 }, signal })

describe('guard: a session live in another process', () => {
  it('is never woken here: the message goes to the mailbox and the receipt is read back', async () => {
    const { runtime, guarded, calls } = world()
    new PresencePublisher(runtime.layout.presence, otherTag).publish('session-a')
    const resolved = await guarded.resolve('session-a', { mayWake: true, signal })
    expect(resolved).toEqual({ ok: true, value: { sessionId: 'session-a', woke: false, running: false, remote: { pid: otherTag.pid } } })
    expect(calls).toEqual([])
    if (!resolved.ok) return
    const admitted = await guarded.admit(resolved.value, prompt('cross-session:s-b:c1'))
    const [entry] = listMailbox(runtime.layout.mailbox)
    // The posted message's id comes back with the admission (no map shared with waitRecorded).
    expect(admitted).toEqual({ ok: true, value: { mode: 'queue', running: false, mailboxMessageId: entry?.messageId } })
    if (!admitted.ok) return
    expect(entry?.sessionId).toBe('session-a')
    // The owner (simulated) claims it and writes its receipt while the sender waits.
    setTimeout(() => {
      claim(runtime.layout.mailbox, entry!, otherTag)
      writeReceipt(runtime.layout.receipts, { v: 1, messageId: entry!.messageId, stage: 'conversation', seq: 12, running: true, at: Date.now() })
    }, 50)
    expect(await guarded.waitRecorded(resolved.value, 'cross-session:s-b:c1', { timeoutMs: 5000, signal, settleForInbox: false, mailboxMessageId: admitted.value.mailboxMessageId })).toEqual({ seq: 12, stage: 'conversation', running: true })
    expect(readdirSync(runtime.layout.receipts)).toEqual([])
  })

  it('says pending when nobody claimed it by the bound, claimed when it was claimed without a receipt', async () => {
    const { runtime, guarded } = world()
    new PresencePublisher(runtime.layout.presence, otherTag).publish('session-a')
    const resolved = await guarded.resolve('session-a', { mayWake: false, signal })
    if (!resolved.ok) throw new Error('expected a remote target')
    const first = await guarded.admit(resolved.value, prompt('r1'))
    if (!first.ok) throw new Error('expected an admission')
    expect(await guarded.waitRecorded(resolved.value, 'r1', { timeoutMs: 150, signal, settleForInbox: false, mailboxMessageId: first.value.mailboxMessageId })).toEqual({ stage: 'pending' })
    const second = await guarded.admit(resolved.value, prompt('r2'))
    if (!second.ok) throw new Error('expected an admission')
    const secondEntry = listMailbox(runtime.layout.mailbox).find(entry => entry.state === 'pending' && entry.messageId !== listMailbox(runtime.layout.mailbox)[0]!.messageId)!
    claim(runtime.layout.mailbox, secondEntry, otherTag)
    expect(await guarded.waitRecorded(resolved.value, 'r2', { timeoutMs: 150, signal, settleForInbox: false, mailboxMessageId: second.value.mailboxMessageId })).toEqual({ stage: 'claimed' })
  })
})

describe('guard: waking a cold session', () => {
  it('refuses nothing it may not wake: with allowResume off the inner port decides', async () => {
    const { guarded, calls } = world()
    expect(await guarded.resolve('session-a', { mayWake: false, signal })).toEqual({ ok: false, reason: 'not live' })
    expect(calls).toEqual(['resolve session-a mayWake=false'])
  })

  it('goes to the mailbox when another living process holds the wake lease', async () => {
    const { runtime, guarded, calls } = world()
    expect(acquireLease(runtime.layout.leases, 'session-a', otherTag, isAlive).ok).toBe(true)
    const resolved = await guarded.resolve('session-a', { mayWake: true, signal })
    expect(resolved.ok && resolved.value.remote).toEqual({ pid: otherTag.pid })
    expect(calls).toEqual([])
  })

  it('refuses a log that ends in a recent open turn, and leaves no lease behind', async () => {
    const { runtime, guarded, calls } = world({ openTurnAgeMs: 2000 })
    const resolved = await guarded.resolve('session-a', { mayWake: true, signal })
    expect(resolved.ok).toBe(false)
    expect(!resolved.ok && resolved.reason).toMatch(/still open \(last written 2 s ago\)/)
    expect(calls).toEqual([])
    expect(readdirSync(runtime.layout.leases)).toEqual([])
  })

  it('wakes under the lease, publishes it, and delivers pending messages before the new one', async () => {
    const { runtime, guarded, live } = world()
    // A message left for session-a while nobody held it (e.g. its owner was killed).
    postMessage(runtime.layout.mailbox, { v: 1, messageId: newMessageId(), sessionId: 'session-a', requestId: 'old-request', fromSessionId: 's-x', hop: 2, mode: 'queue', text: 'OLD', createdAt: 1 })
    const resolved = await guarded.resolve('session-a', { mayWake: true, signal })
    expect(resolved.ok && resolved.value.woke).toBe(true)
    if (!resolved.ok) return
    await guarded.admit(resolved.value, prompt('new-request'))
    expect(live.get('session-a')!.received.map(entry => entry.message.id)).toEqual(['old-request', 'new-request'])
    // The owner delivers with the sender's recorded provenance as the relay source (issue 11 §5), never a bare user source.
    expect(live.get('session-a')!.received[0]!.message.source).toEqual({ kind: 'plugin', plugin: 'dsh-cross-session', form: 'relay', senderSessionId: 's-x', hop: 2 })
    expect(readdirSync(runtime.layout.leases)).toEqual(['session-a.lease'])
    expect(readdirSync(runtime.layout.presence)).toEqual([`session-a@${runtime.self.pid}.${runtime.self.start}`])
    // The receipt of the old message is written once it is recorded.
    await new Promise(resolve => setTimeout(resolve, 100))
    expect(readdirSync(runtime.layout.receipts)).toHaveLength(1)
    expect(listMailbox(runtime.layout.mailbox)).toEqual([])
    runtime.untrack('session-a')
    expect(readdirSync(runtime.layout.leases)).toEqual([])
    expect(readdirSync(runtime.layout.presence)).toEqual([])
  })

  it('never delivers a re-claimed message twice (its request id is already in the log)', async () => {
    const { runtime, live } = world()
    const agent = fakeAgent({ id: 'session-a', createdAt: 1 }, [{ seq: 0, type: 'user/message', data: { id: 'dup-request' } }])
    live.set('session-a', agent)
    postMessage(runtime.layout.mailbox, { v: 1, messageId: newMessageId(), sessionId: 'session-a', requestId: 'dup-request', fromSessionId: 's-x', hop: 1, mode: 'queue', text: 'DUP', createdAt: 1 })
    runtime.track(agent)
    await runtime.drain('session-a')
    expect(agent.received).toEqual([])
    await new Promise(resolve => setTimeout(resolve, 100))
    expect(readdirSync(runtime.layout.receipts)).toHaveLength(1)
  })

  it('two sends in one process to one cold session: one wake, and the second waits for the first\'s checks', async () => {
    const woken = world()
    const [a, b] = await Promise.all([woken.guarded.resolve('session-a', { mayWake: true, signal }), woken.guarded.resolve('session-a', { mayWake: true, signal })])
    expect([a.ok && a.value.woke, b.ok && b.value.woke].sort()).toEqual([false, true])
    expect(woken.calls.filter(call => call.startsWith('resolve')).length).toBe(2) // one wake, one local resolve
    const refused = world({ openTurnAgeMs: 1000 })
    const both = await Promise.all([refused.guarded.resolve('session-b', { mayWake: true, signal }), refused.guarded.resolve('session-b', { mayWake: true, signal })])
    expect(both.map(result => result.ok)).toEqual([false, false])
    expect(refused.calls).toEqual([])
  })

  it('refuses planted mailbox entries (a symlink, a malformed file) without delivering anything', async () => {
    const { runtime, live } = world()
    const agent = fakeAgent({ id: 'session-a', createdAt: 1 })
    live.set('session-a', agent)
    const target = join(runtime.layout.root, 'secret.json')
    writeFileSync(target, JSON.stringify({ v: 1, messageId: 'x', sessionId: 'session-a', requestId: 'r', fromSessionId: 's', hop: 1, mode: 'queue', text: 'FROM A LINK', createdAt: 1 }))
    symlinkSync(target, join(runtime.layout.mailbox, 'session-a~0000000aa-01-aa.msg'))
    writeFileSync(join(runtime.layout.mailbox, 'session-a~0000000ab-01-ab.msg'), '{"v":1,"text":42}')
    runtime.track(agent)
    await runtime.drain('session-a')
    expect(agent.received).toEqual([])
    expect(listMailbox(runtime.layout.mailbox)).toEqual([])
    const receipts = readdirSync(runtime.layout.receipts).map(name => JSON.parse(readFileSync(join(runtime.layout.receipts, name), 'utf8')) as { stage: string, reason: string })
    expect(receipts.map(receipt => receipt.stage)).toEqual(['refused', 'refused'])
    expect(receipts.map(receipt => receipt.reason).sort()).toEqual([
      'the message file does not match the mailbox schema',
      'the message file is missing, not a regular file, or too large',
    ])
  })
})
