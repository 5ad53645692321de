/**
 * What the model should do next when the session controller refused a
 * step, per error code (`@deepseek-ai/dsh-api-session-controller@0.1.2-alpha.2`
 * `RemoteErrorDetailsMap`): the next step of a `rejected` refusal
 * (`src/refusals/catalog.ts`).
 *
 * @module dsh-cross-session/refusals/controller-next
 */

const TELL_USER = 'tell your user.'

/** The next step per controller error code; a code not listed keeps the generic one. */
export const NEXT_BY_CONTROLLER_CODE: Readonly<Record<string, string>> = {
  'session/agent-busy': 'That session refused the message (busy, or owned by subagent routing). '
    + 'Check it with sessions_read and send once more after its current turn; if it is a subagent, message its owner instead.',
  'session/model-unavailable': 'That session\'s model is not served by this host; '
    + 'tell your user to select a model for it. Do not resend until then.',
  'session/steer-unavailable': 'Its current turn no longer accepts steering; send again with mode "queue".',
  'session/queue-item-not-found': 'Its queue changed meanwhile; send again with mode "queue".',
  'session/conflict': `That session belongs to another workspace in this host; ${TELL_USER}`,
  'session/workspace-attach-failed': `That session's workspace is not available; ${TELL_USER}`,
  'workspace/not-found': `That session's workspace is not available; ${TELL_USER}`,
  'agent-preset/not-found': `That session's agent preset is not available in this host; ${TELL_USER}`,
  'agent-preset/invalid': `That session's agent preset is not valid in this host; ${TELL_USER}`,
  'agent-preset/locked': `That session's agent preset is locked; ${TELL_USER}`,
  'agent-preset/conflict': `That session's agent preset conflicts with this host's; ${TELL_USER}`,
  'gateway/cancelled': 'The host cancelled the request; send again if it is still needed.',
  'gateway/bad-request': `The host rejected the request as malformed (a plugin or host fault); ${TELL_USER}`,
  'gateway/internal': 'The host failed internally; try sessions_send once more later, and if it keeps failing, tell your user.',
}

/** The next step for `code`, if it has its own (own keys only: a code named like an Object.prototype member is unknown). */
export function controllerNext(code: string | undefined): string | undefined {
  return code !== undefined && Object.hasOwn(NEXT_BY_CONTROLLER_CODE, code) ? NEXT_BY_CONTROLLER_CODE[code] : undefined
}
