/**
 * Every text the model sees comes from src/presentation/; these
 * pin the shared lines and the per-tool consequences byte for byte (the
 * tool-level wording is pinned in docs/tools.md through test/unit/docs.test.ts).
 */
import { describe, expect, it } from 'vitest'
import {
  argumentProblems,
  commonRefusals,
  DELIVERY_UNKNOWN,
  holderRefusals,
  NOTHING_DELIVERED,
  NOTHING_LISTED,
  NOTHING_READ,
  renderAccepted,
  renderCancelled,
  renderRefusal,
  renderRetried,
  STEPS,
} from '../../src/testing.js'

describe('the shared lines', () => {
  it('a refusal: code and cause, then what was not done and what to do', () => {
    expect(renderRefusal(commonRefusals.notFound('session-x'), NOTHING_READ)).toBe(
      'refused: not-found | no session with id "session-x"\nNothing was read. Re-run sessions_list for a valid id and pass it exactly as printed.')
  })

  it('a cancellation names the step and what was not done', () => {
    expect(renderCancelled('sessions_list', STEPS.listing, NOTHING_LISTED)).toBe('cancelled | sessions_list was cancelled while listing sessions\nNothing was listed.')
    expect(renderCancelled('sessions_send', STEPS.admitting, NOTHING_DELIVERED)).toBe('cancelled | sessions_send was cancelled while admitting the message\nNothing was delivered.')
  })

  it('a backend failure shows the failure table row, never a message', () => {
    expect(renderRefusal(commonRefusals.backend(STEPS.running('sessions_send'), 'unknown', 'sessions_send'), DELIVERY_UNKNOWN)).toBe(
      'refused: rejected | running sessions_send failed: an unexpected backend error (the details are in the host log)\n'
      + 'Whether the message was delivered is unknown; check with sessions_read before sending it again. Try sessions_send again later; if it keeps failing, tell your user.')
  })

  it('argument problems name the argument, what it got and what it accepts', () => {
    expect(argumentProblems.rejected('limit', 'x'.repeat(50), { type: 'integer', minimum: 1, maximum: 200 }))
      .toBe(`argument "limit" got the string "${'x'.repeat(40)}…" (50 characters); it accepts an integer from 1 to 200`)
    expect(argumentProblems.forbiddenChar({ position: 3, codePoint: 'U+0000', kind: 'control character' }))
      .toBe('argument "message" contains a control character (U+0000) at character 3; remove it (tab and newline are fine)')
  })

  it('a holder\'s refusal and a retried call read as before', () => {
    expect(holderRefusals.misaddressed).toBe('the message names another session than the one it was claimed for')
    const first = { kind: 'accepted' as const, targetId: 'x', mode: 'queue' as const, chars: 1, hop: 1, woke: false, running: false, recordWaitMs: 5000, waitCancelled: false }
    expect(renderRetried({ kind: 'retried', first })).toBe(`${renderAccepted(first)}\n(This tool call, same id and arguments, was already delivered once; it was not delivered again.)`)
  })
})

describe('the accepted line', () => {
  it('a headless run that woke its target says how that turn ended, or that it is still running', () => {
    const woken = { targetId: 'session-b', mode: 'queue' as const, chars: 5, hop: 1, woke: true, running: false, recordWaitMs: 5000, waitCancelled: false, recorded: { seq: 9, stage: 'conversation' as const } }
    expect(renderAccepted({ ...woken, answer: { ended: true, reason: 'completed', seq: 14 } })).toBe(
      'accepted for session-b | mode=queue | chars=5 | hop 1 (woke a cold session) | recorded at seq 9 | its turn ended (completed) at seq 14\n'
      + 'The message is queued in that session\'s inbox and starts its next turn now (it was idle). Its answer is in that session\'s log, not in this result; read it with sessions_read.')
    expect(renderAccepted({ ...woken, answer: { ended: false, waitedMs: 300 } })).toContain('| still answering after 300 ms\n')
    expect(renderAccepted({ ...woken, answer: { ended: false, waitedMs: 300 } })).toContain('ends with your turn, which cuts that turn off')
  })

  it('a hand-over to a long-lived host names it', () => {
    const line = renderAccepted({ targetId: 'session-b', mode: 'steer', chars: 5, hop: 1, woke: false, running: false, recordWaitMs: 5000, waitCancelled: false, remote: { pid: 77, handoff: true }, recorded: { stage: 'pending' } })
    expect(line).toContain('| handed to the long-lived dsh process pid 77 on this home, which wakes it; delivered through the mailbox | still pending in the mailbox after 5000 ms\n')
    expect(line).toContain('steers that session in that process once it has woken it')
  })

  const base = { targetId: 'session-b', mode: 'queue' as const, chars: 5, hop: 1, woke: false, running: false, recordWaitMs: 5000, waitCancelled: false }
  it('recorded in the conversation: no durability warning', () => {
    expect(renderAccepted({ ...base, recorded: { seq: 9, stage: 'conversation' } })).toBe(
      'accepted for session-b | mode=queue | chars=5 | hop 1 | recorded at seq 9\n'
      + 'The message is queued in that session\'s inbox and starts its next turn now (it was idle). Its reply will not return through this call; read it later with sessions_read.')
  })

  it('truncated, woken, not yet recorded: each said once, in order', () => {
    expect(renderAccepted({ ...base, mode: 'steer', woke: true, truncatedFrom: 9 })).toBe(
      'accepted for session-b | mode=steer | chars=5 (truncated from 9) | hop 1 (woke a cold session) | admitted, not yet recorded after 5000 ms\n'
      + 'That session was idle, so the steering message started a new turn. Only the first 5 characters were delivered (maxSendChars).'
      + ' It is not durable until that session\'s next step starts: if its process ends first, the message may be lost.'
      + ' Its reply will not return through this call; read it later with sessions_read.')
  })

  it('not yet recorded, with a store row (home/local-delivery.ts): kept in the store, never "may be lost"', () => {
    const line = renderAccepted({ ...base, stored: true, recorded: { seq: 4, stage: 'inbox' }, running: true })
    expect(line).toBe(
      'accepted for session-b | mode=queue | chars=5 | hop 1 | in its inbox at seq 4, not yet in its conversation\n'
      + 'The message is queued in that session\'s inbox; it becomes its next turn after the current one ends.'
      + ' It is delivered once; if this process ends before that session\'s log on disk holds it, it waits in the cross-session store'
      + ' under DSH_HOME and the next process that holds the session delivers it.'
      + ' Its reply will not return through this call; read it later with sessions_read.')
    expect(line).not.toContain('may be lost')
  })
})
