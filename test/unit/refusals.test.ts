import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { commonRefusals, controllerRefusal, withdrawRefusals, decideSend, failureText, holdUnavailable, NEXT_BY_CONTROLLER_CODE, inboundRefusedBeforeLookup, inboundRefused, notMessageableRightAfterLookup, REFUSAL_CATALOG, REFUSAL_CODES, refusalTableMarkdown, renderRefusal, resumeDisabledBeforeResolve, SEND_CHECKS, sendRefusals, sendRefusalText, type LimitVerdict, type Refusal, type SendFacts, type TargetFact } from '../../src/testing.js'

const refusals = { ...commonRefusals, ...sendRefusals }

const live: TargetFact = { kind: 'present', header: { id: 'session-b', createdAt: 2 }, live: true }
const cold: TargetFact = { kind: 'present', header: { id: 'session-b', createdAt: 2 }, live: false }
const subagent: TargetFact = { kind: 'present', header: { id: 'child-1', createdAt: 3, parentSession: 'session-owner', origin: 'subagent' }, live: false }
const absent: TargetFact = { kind: 'absent' }
const ok: LimitVerdict = { kind: 'ok', hop: 1 }

const good: SendFacts = { callerId: 'session-a', targetId: 'session-b', body: 'hi', allowResume: true, inbound: 'accept', target: live, limits: ok }

/** Each row breaks one or more rules; the first rule in the fixed order (docs/tools.md#refusals-and-their-order) must win. */
const table: Array<[string, Partial<SendFacts>, string]> = [
  ['bad arguments beat everything', { argumentProblem: 'x', callerId: undefined, body: '', target: absent }, 'invalid-arguments'],
  ['no caller beats empty body', { callerId: undefined, body: '  ', target: absent }, 'rejected'],
  ['empty body beats self-target', { body: ' \n\t ', targetId: 'session-a' }, 'empty-body'],
  ['self-target beats not-found', { targetId: 'session-a', target: absent }, 'self-target'],
  ['self-target beats inbound refuse', { targetId: 'session-a', inbound: 'refuse' }, 'self-target'],
  ['inbound refuse beats not-found and everything after it', { inbound: 'refuse', target: absent, allowResume: false, limits: { kind: 'duplicate', agoMs: 1 } }, 'rejected'],
  ['not-found beats everything after it', { target: absent, allowResume: false, limits: { kind: 'hop-limit', hop: 9, maxHops: 4, chain: 'x' } }, 'not-found'],
  ['not-messageable beats resume-disabled', { target: subagent, allowResume: false }, 'not-messageable'],
  ['not-messageable beats limits', { target: subagent, limits: { kind: 'pair-rate', count: 9, perMinute: 6, retryInMs: 1 } }, 'not-messageable'],
  ['resume-disabled beats limits', { target: cold, allowResume: false, limits: { kind: 'duplicate', agoMs: 5 } }, 'resume-disabled'],
  ['hop limit', { limits: { kind: 'hop-limit', hop: 5, maxHops: 4, chain: 'a → b → c' } }, 'rate-limited'],
  ['pair rate', { limits: { kind: 'pair-rate', count: 6, perMinute: 6, retryInMs: 30_000 } }, 'rate-limited'],
  ['duplicate', { limits: { kind: 'duplicate', agoMs: 4000 } }, 'rate-limited'],
]

describe('decideSend: fixed order of checks', () => {
  it.each(table)('%s', (_label, change, code) => {
    const decision = decideSend({ ...good, ...change })
    expect(decision.kind).toBe('refuse')
    if (decision.kind === 'refuse') expect(decision.refusal.code).toBe(code)
  })

  it('goes when every check passes, for a live target or a cold one with waking allowed', () => {
    expect(decideSend(good)).toEqual({ kind: 'go', hop: 1, targetLive: true })
    expect(decideSend({ ...good, target: cold })).toEqual({ kind: 'go', hop: 1, targetLive: false })
  })

  it('holds a message for its target\'s user only once every check has passed', () => {
    expect(decideSend({ ...good, inbound: 'hold' })).toEqual({ kind: 'hold', hop: 1, targetLive: true })
    expect(decideSend({ ...good, inbound: 'hold', target: cold, allowResume: false }).kind).toBe('refuse')
    expect(decideSend({ ...good, inbound: 'hold', limits: { kind: 'duplicate', agoMs: 1 } }).kind).toBe('refuse')
    const { limits: _limits, ...early } = good
    expect(decideSend({ ...early, inbound: 'hold' })).toEqual({ kind: 'need', fact: 'limits' })
  })

  // Guarantee 3: the target's inbound choice is asked for, and refuse decided,
  // before the non-waking lookup: a refusing target is never looked up.
  it('asks for the inbound choice before the target, and refuses on it without asking for the target', () => {
    const { inbound: _inbound, target: _target, limits: _limits, ...facts } = good
    expect(decideSend(facts)).toEqual({ kind: 'need', fact: 'inbound' })
    expect(decideSend({ ...facts, inbound: 'refuse' })).toEqual({ kind: 'refuse', refusal: { code: 'rejected', reason: 'inbound-refused', targetId: 'session-b' } })
    expect(sendRefusalText({ code: 'rejected', reason: 'inbound-refused', targetId: 'session-b' }).next).toContain('Ask its user')
  })

  it('asks for the target only after arguments, caller, body, self and inbound checks pass', () => {
    const { target: _target, limits: _limits, ...facts } = good
    expect(decideSend(facts)).toEqual({ kind: 'need', fact: 'target' })
    expect(decideSend({ ...facts, body: '' }).kind).toBe('refuse')
    expect(decideSend({ ...facts, targetId: 'session-a' }).kind).toBe('refuse')
  })

  it('asks for limits only once the target is known, top-level and reachable', () => {
    const { limits: _limits, ...facts } = good
    expect(decideSend(facts)).toEqual({ kind: 'need', fact: 'limits' })
    expect(decideSend({ ...facts, target: subagent }).kind).toBe('refuse')
    expect(decideSend({ ...facts, target: cold, allowResume: false }).kind).toBe('refuse')
  })

  // Guarantee 1: resume-disabled is decided before anything resolves the
  // target — "go" (the only path to resolve) is never reached for a cold target
  // with waking off, whatever the other facts.
  it('never says go for a cold target when waking is off', () => {
    for (const limits of [ok, undefined]) {
      const decision = decideSend({ ...good, target: cold, allowResume: false, ...(limits === undefined ? {} : { limits }) })
      expect(decision).toMatchObject({ kind: 'refuse', refusal: { code: 'resume-disabled' } })
    }
  })

  // Guarantee 2: not-messageable is decided right after the non-waking
  // lookup, before liveness, limits or resolution; the refusal names the owner.
  it('refuses a subagent before asking for anything else, naming its owner', () => {
    const { limits: _limits, ...facts } = good
    const decision = decideSend({ ...facts, target: subagent, allowResume: false })
    expect(decision.kind).toBe('refuse')
    if (decision.kind === 'refuse') {
      expect(decision.refusal).toEqual({ code: 'not-messageable', targetId: 'session-b', owner: 'session-owner' })
      expect(sendRefusalText(decision.refusal).cause).toContain('owned by session-owner')
    }
  })
})

describe('refusal texts', () => {
  const all = [
    refusals.invalidArguments('argument "x" is wrong', 'sessions_send'),
    refusals.noCaller(),
    refusals.notFound('session-zzz'),
    refusals.notMessageable('child-1', 'session-owner'),
    refusals.notMessageable('child-2', undefined),
    refusals.resumeDisabled('session-b'),
    refusals.emptyBody(),
    refusals.selfTarget('session-a'),
    refusals.hopLimit(5, 4, 'a → b → c'),
    refusals.pairRate('session-b', 6, 6, 12_000),
    refusals.duplicate('session-b', 3000),
    refusals.rejected('session/agent-busy: busy', 'admitting the message'),
    inboundRefused('session-b'),
  ]
  it.each(all.map(refusal => [refusal.code, refusal] as const))('%s says what happened and what to do next', (code, refusal) => {
    const text = renderRefusal(refusal, 'Nothing was delivered.')
    expect(text.startsWith(`refused: ${code} | `)).toBe(true)
    expect(text).toContain('Nothing was delivered.')
    expect(refusal.next.length).toBeGreaterThan(10)
    expect(text.split('\n')).toHaveLength(2)
  })

  it('uses the contract\'s "what the model should do" wording', () => {
    expect(refusals.notFound('x').next).toContain('Re-run sessions_list')
    expect(refusals.notMessageable('x', 'o').next).toContain('owned by another agent')
    expect(refusals.resumeDisabled('x').next).toContain('left untouched')
    expect(refusals.emptyBody().next).toContain('Supply a body')
    expect(refusals.hopLimit(5, 4, 'c').next).toContain('report to your user')
  })

  it('clips a huge id in not-found', () => {
    expect(refusals.notFound('x'.repeat(100_000)).cause.length).toBeLessThan(200)
  })
})

describe('the three ordering guarantees, as properties of the order of checks', () => {
  it('hold for the order decideSend walks', () => {
    expect(resumeDisabledBeforeResolve()).toBe(true)
    expect(notMessageableRightAfterLookup()).toBe(true)
    expect(inboundRefusedBeforeLookup()).toBe(true)
  })

  it('fail for an order that breaks them', () => {
    const steps = (names: string[]) => names.map(step => SEND_CHECKS.find(check => check.step === step)!)
    const all = SEND_CHECKS.map(check => check.step)
    // resolve moved before the wake check; the lookup separated from the top-level check.
    expect(resumeDisabledBeforeResolve(steps(['arguments', 'caller', 'body', 'self', 'inbound', 'exists', 'top-level', 'resolve', 'wake-allowed', 'limits', 'hold', 'admit']))).toBe(false)
    expect(notMessageableRightAfterLookup(steps(['arguments', 'caller', 'body', 'self', 'inbound', 'exists', 'wake-allowed', 'top-level', 'limits', 'hold', 'resolve', 'admit']))).toBe(false)
    // inbound moved after the lookup, or dropped.
    expect(inboundRefusedBeforeLookup(steps(['arguments', 'caller', 'body', 'self', 'exists', 'inbound', 'top-level', 'wake-allowed', 'limits', 'hold', 'resolve', 'admit']))).toBe(false)
    expect(inboundRefusedBeforeLookup(steps(['arguments', 'caller', 'body', 'self', 'exists', 'top-level', 'wake-allowed', 'limits', 'hold', 'resolve', 'admit']))).toBe(false)
    expect(all).toEqual(['arguments', 'caller', 'body', 'self', 'inbound', 'exists', 'top-level', 'wake-allowed', 'limits', 'hold', 'resolve', 'admit'])
  })
})

describe('the refusal catalog', () => {
  it('holds the contract\'s five codes and this package\'s own, each with a cause and a next step', () => {
    expect(REFUSAL_CODES.filter(code => REFUSAL_CATALOG[code].contract).sort()).toEqual(['empty-body', 'not-found', 'not-messageable', 'rejected', 'resume-disabled'])
    expect(REFUSAL_CODES.filter(code => !REFUSAL_CATALOG[code].contract).sort()).toEqual(['invalid-arguments', 'nothing-to-withdraw', 'rate-limited', 'self-target'])
  })

  it('every refusal the send checks produce renders with a catalog code', () => {
    const produced = table.map(([, change]) => decideSend({ ...good, ...change })).flatMap(decision => decision.kind === 'refuse' ? [sendRefusalText(decision.refusal)] : [])
    expect(new Set(produced.map(refusal => refusal.code))).toEqual(new Set(table.map(([, , code]) => code)))
    for (const refusal of produced) expect(REFUSAL_CODES).toContain(refusal.code)
  })
})

/** Arguments for each of the catalog's model texts, by name (every text must have a row). */
const SAMPLE_ARGS: Readonly<Record<string, readonly unknown[]>> = {
  invalidArguments: ['session_id: must be a string', 'sessions_send'],
  notFound: ['session-x'],
  notMessageable: ['child-1', 'session-owner'],
  resumeDisabled: ['session-x'],
  emptyBody: [],
  selfTarget: ['session-a'],
  hopLimit: [5, 4, 'a → b'],
  pairRate: ['session-x', 6, 6, 30_000],
  duplicate: ['session-x', 4000],
  noCaller: [],
  backend: ['listing sessions', 'the backend timed out', 'sessions_list'],
  storeUnavailable: ['SQLITE_BUSY'],
  rejected: ['the session went cold', 'admitting the message'],
  controller: ['session/agent-busy', 'busy', 'admitting the message'],
  inboundRefused: ['session-x'],
  holdUnavailable: ['session-x', 'no store'],
  nothingToWithdraw: ['session-x'],
  withdrawStoreUnavailable: ['SQLITE_BUSY'],
}

describe('one source per refusal: the catalog entry writes the model\'s text', () => {
  const texts = REFUSAL_CODES.flatMap(code => Object.entries(REFUSAL_CATALOG[code].texts)
    .map(([name, text]) => ({ code, name, text: text as (...args: unknown[]) => Refusal })))

  it('every code has at least one text, and every text refuses with its own entry\'s code', () => {
    for (const code of REFUSAL_CODES) expect(texts.filter(text => text.code === code).length).toBeGreaterThan(0)
    expect(texts.map(text => text.name).sort()).toEqual(Object.keys(SAMPLE_ARGS).sort())
    for (const { code, name, text } of texts) {
      const refusal = text(...(SAMPLE_ARGS[name] ?? []))
      expect(refusal.code).toBe(code)
      expect(refusal.cause.length).toBeGreaterThan(0)
      expect(refusal.next.length).toBeGreaterThan(0)
    }
  })

  it('every refusal the tools render is a catalog text, not a second copy', () => {
    const catalogTexts = new Set<unknown>(texts.map(text => text.text))
    const built = {
      ...refusals, inboundRefused, holdUnavailable,
      withdrawNothing: withdrawRefusals.nothing, withdrawStoreUnavailable: withdrawRefusals.storeUnavailable,
    }
    const notInCatalog = Object.entries(built).filter(([name, text]) => name !== 'backend' && !catalogTexts.has(text)).map(([name]) => name)
    expect(notInCatalog).toEqual([])
    // The read-side backend refusal only renders the failure kind through the failure table first.
    expect(commonRefusals.backend('listing sessions', 'timeout', 'sessions_list'))
      .toEqual(REFUSAL_CATALOG.rejected.texts.backend('listing sessions', failureText('timeout'), 'sessions_list'))
  })

  it('a controller refusal takes its code\'s next step from the catalog, else the generic one', () => {
    for (const [code, next] of Object.entries(NEXT_BY_CONTROLLER_CODE)) {
      expect(controllerRefusal(code, 'busy', 'session-x', 'admitting the message')).toEqual({ code: 'rejected', cause: 'admitting the message failed: busy', next })
    }
    expect(controllerRefusal('toString', 'x', 'session-x', 'resolving').next).toBe(sendRefusals.rejected('x', 'resolving').next)
    expect(controllerRefusal('session/not-found', 'x', 'session-x', 'resolving')).toEqual(commonRefusals.notFound('session-x'))
  })
})

describe('docs/tools.md', () => {
  it('prints the refusal table from the catalog', () => {
    const page = readFileSync(new URL('../../docs/tools.md', import.meta.url), 'utf8')
    expect(page).toContain(`\n${refusalTableMarkdown()}\n`)
    // Each row names its code once: a code missing from the catalog would be missing here.
    for (const code of REFUSAL_CODES) expect(page).toContain(`| \`${code}\` | ${REFUSAL_CATALOG[code].contract ? 'contract' : 'added'} |`)
  })
})
