/**
 * Step 1 of `sessions_send`: the arguments, validated, and the identities
 * derived from them (the call identity for retries, the request id).
 *
 * Source: docs/tools.md#sessions_send (arguments; `requestId` from the tool
 * call id and an argument digest, so a repeated call id with other
 * arguments is a new call).
 *
 * @module dsh-cross-session/tools/send/arguments
 */

import { callIdentity } from '../../model/limits.js'
import type { Caller } from '../../ports.js'
import { argumentProblems } from '../../presentation/arguments.js'
import { SessionsSendArgs } from '../../model/schemas.js'
import { sessionIdProblem, validateArguments } from '../arguments.js'
import type { SendFacts } from '../../refusals.js'
import { isSubagent } from '../../model/sessions.js'

/** Re-exported where the send step builds it (the channel builds the same id, src/home/channel-views.ts). */
export { requestIdFor } from '../../model/limits.js'

/**
 * Problems step 1 adds to schema validation: malformed ids, forbidden
 * characters, and `notify: true` from a subagent (a notice is addressed to
 * its sender, and no process holds a subagent: it would wait unread until
 * it expires, docs/tools.md#notices).
 */
function extraArgumentProblem(args: SessionsSendArgs, caller: Caller | undefined): string | undefined {
  const idProblem = sessionIdProblem(args.session_id)
  if (idProblem !== undefined) return idProblem
  const forbidden = findForbiddenChar(args.message)
  if (forbidden !== undefined) return argumentProblems.forbiddenChar(forbidden)
  if (args.notify === true && caller !== undefined && isSubagent(caller.header)) return argumentProblems.subagentNotify()
  return undefined
}

/** Result of {@link findForbiddenChar}: where and what. */
interface ForbiddenChar {
  /** 1-based code point position. */
  readonly position: number
  /** `U+XXXX` name of the character. */
  readonly codePoint: string
  readonly kind: 'control character' | 'unpaired surrogate'
}

/**
 * First character that must not be delivered in a message body: a control
 * character other than tab, newline and carriage return, or an unpaired
 * surrogate. `undefined` when the text is clean.
 */
export function findForbiddenChar(text: string): ForbiddenChar | undefined {
  let position = 0
  for (let i = 0; i < text.length; i++) {
    position++
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = text.charCodeAt(i + 1)
      if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++
        continue
      }
      return { position, codePoint: codePointName(unit), kind: 'unpaired surrogate' }
    }
    if ((unit < 0x20 && unit !== 0x09 && unit !== 0x0a && unit !== 0x0d) || (unit >= 0x7f && unit <= 0x9f)) {
      return { position, codePoint: codePointName(unit), kind: 'control character' }
    }
  }
  return undefined
}

function codePointName(unit: number): string {
  return `U+${unit.toString(16).toUpperCase().padStart(4, '0')}`
}

/** One send's validated input. */
interface SendInput {
  /** The arguments, when they parsed (they may still have a problem: see `facts.argumentProblem`). */
  readonly args: SessionsSendArgs | undefined
  /** The facts known before any backend call (steps 1–4). */
  readonly facts: SendFacts
  /** {@link callIdentity} of this call ('' when the arguments did not parse). */
  readonly identity: string
}

/**
 * Validate the raw arguments and start the facts.
 * @param allowResume - the `allowResume` setting (step 7 needs it).
 */
export function readSendInput(rawArgs: unknown, caller: Caller | undefined, callId: string, allowResume: boolean): SendInput {
  const parsed = validateArguments(SessionsSendArgs, rawArgs)
  const args = parsed.ok ? parsed.value : undefined
  return {
    args,
    facts: {
      argumentProblem: parsed.ok ? extraArgumentProblem(parsed.value, caller) : parsed.problem,
      callerId: caller?.sessionId,
      targetId: args?.session_id ?? '',
      body: args?.message ?? '',
      allowResume,
    },
    identity: args === undefined ? '' : callIdentity(callId, args),
  }
}
