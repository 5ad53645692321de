/**
 * Checks on persisted session logs shared by the multi-process e2e tests:
 * one contiguous history, and the peer messages a log holds.
 * @module test/e2e/support/logs
 */
import { expect } from 'vitest'
import { transcript, type PersistedSession, type SessionEvent } from './harness.ts'

/** The seqs of a log are exactly 0…n-1 (one contiguous history, no fork). */
export function expectContiguous(session: PersistedSession): void {
  expect(session.events.map(event => event.seq)).toEqual(session.events.map((_, index) => index))
}

/** Framed peer messages (by body marker) in a persisted log. */
export function peerMessages(session: PersistedSession, marker: string): Array<{ seq: number, text: string, source: any }> {
  return transcript(session).filter(m => m.role === 'user' && m.text.startsWith('Cross-session message') && m.text.includes(marker))
}

/**
 * The seqs of the peer messages with these body markers, in the order given, after checking that each is in the
 * log exactly once and that they are in that order (one delivery each, first in first out).
 */
export function onceEachInOrder(session: PersistedSession, ...markers: string[]): number[] {
  const seqs = markers.map(marker => {
    const found = peerMessages(session, marker)
    expect(found, marker).toHaveLength(1)
    return found[0]!.seq
  })
  for (let index = 1; index < seqs.length; index++) expect(seqs[index]!).toBeGreaterThan(seqs[index - 1]!)
  return seqs
}

/** The `user/message` id at `seq` (a delivered message's id is its sender's request id). */
export function idAt(session: PersistedSession, seq: number): unknown {
  return session.events.find(event => event.seq === seq && event.type === 'user/message')?.data?.id
}

/** The `turn/end` events of a log, with how each turn ended (rc.8 `reason.kind`). */
export function turnEnds(events: readonly SessionEvent[]): Array<{ seq: number, reason: string }> {
  return events.filter(event => event.type === 'turn/end').map(event => ({ seq: event.seq, reason: String(event.data?.reason?.kind) }))
}
