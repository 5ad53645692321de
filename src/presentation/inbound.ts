/**
 * What the model reads when the target's user governs peer messages
 * (docs/tools.md#inbound-messages): the `rejected` refusal of a target whose
 * inbound choice is `refuse`, and the accepted-as-held line of one whose
 * choice is `hold`.
 *
 * @module dsh-cross-session/presentation/inbound
 */

import { duration } from '../framing.js'
import { REFUSAL_CATALOG } from '../refusals.js'
import { displayId } from './common.js'

/** The target takes no messages from peers (`inbound: refuse`, its own choice or the host's). */
export const inboundRefused = REFUSAL_CATALOG.rejected.texts.inboundRefused

/** The value of a `sessions_send` result held for the target's user; {@link renderHeld} writes its text. */
export interface HeldValue {
  readonly kind: 'held'
  readonly targetId: string
  readonly mode: 'queue' | 'steer'
  readonly hop: number
  readonly chars: number
  readonly truncatedFrom?: number
  /** How long it waits for a decision, ms. */
  readonly expiresInMs: number
  /** The same message was already held (a retried call). */
  readonly duplicate: boolean
  /** `notify` was asked: whether a notice will come (the home store watches it), as for a delivered send. */
  readonly notice?: 'watched' | 'unavailable'
}

/** `accepted for … | held for its user's approval`: accepted, but nothing reached the target yet. */
export function renderHeld(view: HeldValue): string {
  const chars = view.truncatedFrom === undefined ? `chars=${view.chars}` : `chars=${view.chars} (truncated from ${view.truncatedFrom})`
  const cut = view.truncatedFrom === undefined ? '' : ` Only the first ${view.chars} characters were kept (maxSendChars).`
  return `accepted for ${displayId(view.targetId)} | mode=${view.mode} | ${chars} | hop ${view.hop} | `
    + `held for its user's approval${view.duplicate ? ' (already held)' : ''}\n`
    + `That session's user approves messages from peers: this one is kept in the cross-session store until it is delivered or refused `
    + `in the web UI, or until it expires in ${duration(view.expiresInMs)}. `
    + `Nothing has reached that session or its model yet.${cut} Do not send it again; if they deliver it, `
    + `its reply will not return through this call (read it later with sessions_read).`
    + (view.notice === undefined ? '' : view.notice === 'watched'
      ? '\nNotice: one notice comes to this session when its user refuses it or it expires, or, once delivered, '
      + 'when the turn that takes it ends; no need to wait or poll.'
      : '\nNotice: not available in this dsh process (no cross-session store); read its answer later with sessions_read.')
}

/** A hold could not be kept (no home store in this process, or the store refused). */
export const holdUnavailable = REFUSAL_CATALOG.rejected.texts.holdUnavailable
