/**
 * The shapes of a message in the home store port (`home/store.ts`): as its
 * sender posts it, as the store keeps it, where the target's log holds it,
 * and what a post answers.
 *
 * @module dsh-cross-session/home/store-shapes
 */

import type { HolderRefusal, NoticeFields } from '../ports.js'
import type { ProcessTag } from '../harness/dsh-home.js'

/** A message as posted by its sender (after every check of a local send). */
export interface NewMessage {
  /** The request id: the delivered `user/message` id; unique. */
  readonly messageId: string
  readonly target: string
  readonly sender: string
  readonly hop: number
  readonly mode: 'queue' | 'steer'
  /** The text the target receives (framed or not). */
  readonly text: string
  /** Whether the sender allowed waking the target (its `allowResume`). */
  readonly mayWake: boolean
}

/** Delivery state of one message. */
export type MessageState = 'pending' | 'claimed' | 'recorded' | 'refused'

/** One stored message. */
export interface StoredMessage extends NewMessage, NoticeFields {
  /** Posting order (per home). */
  readonly order: number
  readonly state: MessageState
  readonly claimer?: ProcessTag
  /** Where the target's log holds it (`recorded`). */
  readonly seq?: number
  /** Whether the target was running a turn when its holder admitted it. */
  readonly running?: boolean
  /** Why it was refused (`refused`). */
  readonly reason?: HolderRefusal
  /** Seq of the `turn/end` of the turn that answered it, once known. */
  readonly answeredSeq?: number
  readonly createdAt: number
}

/** Where the target's log on disk holds a claimed message (for {@link HomeStore.recordAll}). */
export interface LogPlace {
  readonly messageId: string
  readonly seq: number
  /** Whether the target was running a turn when its holder admitted it. */
  readonly running: boolean
}

/** Outcome of {@link HomeStore.post}. */
export type PostOutcome =
  | { readonly ok: true, readonly message: StoredMessage, readonly duplicate: boolean }
  | { readonly ok: false, readonly reason: 'full' }
