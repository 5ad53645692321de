/**
 * The closed refusal catalog, one entry per code, and the one source of
 * every refusal text: the entry's `cause` and `next` are the general row
 * printed into docs/tools.md#refusals-and-their-order (`test/unit/docs.test.ts`
 * checks it), and its `texts` write what the model reads for that code,
 * with the values involved. Each text is made a {@link Refusal} of its own
 * entry's code here, so a text cannot carry another code.
 *
 * `contract` says whether the tool contract names the code (its five) or
 * this package added it.
 *
 * @module dsh-cross-session/refusals/catalog
 */

import { clipLine, oneLine } from '../core/text.js'
import { controllerNext } from './controller-next.js'
import { displayId, NOTHING_DELIVERED, shownId, type Text } from './refusal.js'

/** One refusal: its code, the cause, and what the model should do next. */
export interface Refusal {
  readonly code: RefusalCode
  /** Why, in one line, with the values involved. */
  readonly cause: string
  /** What to try next (docs/tools.md#refusals-and-their-order, "what the model should do"). */
  readonly next: string
}

const CATALOG = {
  'invalid-arguments': {
    contract: false, cause: 'an argument is wrong, missing or unknown', next: 'fix that argument and call again',
    texts: {
      invalidArguments: (problem: string, tool: string): Text => ({ cause: problem, next: `Fix that argument and call ${tool} again.` }),
    },
  },
  'not-found': {
    contract: true, cause: 'no session with that id (or one outside the caller\'s visibility)',
    next: 're-run `sessions_list` for a valid id',
    texts: {
      notFound: (sessionId: string): Text => ({
        cause: `no session with id ${JSON.stringify(clipLine(sessionId, 120))}`,
        next: 'Re-run sessions_list for a valid id and pass it exactly as printed.',
      }),
    },
  },
  'not-messageable': {
    contract: true, cause: 'target is a subagent session (names its owner)',
    next: 'there is no supported way to message it; message its owner instead',
    texts: {
      notMessageable: (sessionId: string, owner: string | undefined): Text => ({
        cause: owner === undefined
          ? `${shownId(sessionId)} is a subagent session`
          : `${shownId(sessionId)} is a subagent session owned by ${shownId(owner)}`,
        next: 'It is owned by another agent; there is no supported way to message it from here.'
          + (owner === undefined ? '' : ` You may message its owner ${shownId(owner)} instead.`),
      }),
    },
  },
  'resume-disabled': {
    contract: true,
    cause: 'target is cold and `allowResume` is `false`',
    next: 'the session was left untouched; target a live session or ask the user to enable waking',
    texts: {
      resumeDisabled: (sessionId: string): Text => ({
        cause: `${shownId(sessionId)} is cold and waking sessions is disabled (allowResume: false)`,
        next: 'The session was left untouched; either target a live session or ask the user to enable waking.',
      }),
    },
  },
  'empty-body': {
    contract: true, cause: 'the body is empty after trimming', next: 'supply a body',
    texts: {
      emptyBody: (): Text => ({ cause: 'the message is empty after trimming white space', next: 'Supply a body.' }),
    },
  },
  'self-target': {
    contract: false, cause: 'the target is the calling session', next: 'pick a peer id',
    texts: {
      selfTarget: (sessionId: string): Text => ({
        cause: `${shownId(sessionId)} is this session; a session cannot message itself`,
        next: 'Pick a peer id from sessions_list (this session is the row marked "this session").',
      }),
    },
  },
  'rate-limited': {
    contract: false, cause: 'hop limit, per-pair rate, or a duplicate body',
    next: 'stop relaying and report to the user / wait / read the target',
    texts: {
      hopLimit: (hop: number, maxHops: number, chain: string): Text => ({
        cause: `this would be hop ${hop} of a relay chain limited to ${maxHops} hops (chain: ${clipLine(oneLine(chain), 400)})`,
        next: 'Stop relaying: answer from what you have and report to your user instead of messaging another session.',
      }),
      pairRate: (target: string, count: number, perMinute: number, retryInMs: number): Text => ({
        cause: `${count} messages were already sent to ${shownId(target)} in the last minute (limit ${perMinute} per minute)`,
        next: `Wait about ${Math.ceil(retryInMs / 1000)} s, or combine what you have into one message.`,
      }),
      duplicate: (target: string, agoMs: number): Text => ({
        cause: `the same message was already delivered to ${shownId(target)} ${Math.max(1, Math.round(agoMs / 1000))} s ago`,
        next: 'It is not delivered twice. Read the target with sessions_read to see whether it answered.',
      }),
    },
  },
  'nothing-to-withdraw': {
    contract: false,
    cause: '`withdraw: true`, and no message this session sent to that target with that `message` (and `mode`) '
      + 'is known to the cross-session store',
    next: 'nothing to take back: read the target with `sessions_read` to see whether it has it',
    texts: {
      nothingToWithdraw: (targetId: string): Text => ({
        cause: `no message this session sent to ${displayId(targetId)} with this message (and mode) is known to the cross-session store `
          + '(never sent through it, or cleared since)',
        next: 'Nothing to take back; read that session with sessions_read to see whether it has it.',
      }),
    },
  },
  'rejected': {
    contract: true,
    cause: 'no caller, the target takes no messages from peers (`inbound: refuse`), the cross-session store is unavailable, '
      + 'a backend failure (names the failing step), or the controller refused (its code)',
    next: 'as the text says (for `inbound: refuse`: ask the target\'s user; for an unavailable store: try again shortly)',
    texts: {
      noCaller: (): Text => ({
        cause: 'the calling session could not be identified (no agent is bound to this call)',
        next: 'Cross-session tools work only from inside a session; nothing can be done from here.',
      }),
      /** A read-side backend step failed; `failure` is the failure table's text of its kind. */
      backend: (step: string, failure: string, tool: string): Text => ({
        cause: `${step} failed: ${failure}`,
        next: `Try ${tool} again later; if it keeps failing, tell your user.`,
      }),
      /** The home store could not be used: nothing that depends on another process's state is done (docs/architecture.md §8). */
      storeUnavailable: (why: string): Text => ({
        cause: `the cross-session store is unavailable (${clipLine(oneLine(why), 120)})`,
        next: 'No session was woken. Try again shortly; if it keeps failing, tell your user '
          + '(the store is the cross-session store setting\'s: cross-session/store.sqlite under DSH_HOME unless it names a server).',
      }),
      /** A delivery step failed; `reason` is this package's own text or a failure-table row. */
      rejected: (reason: string, step: string): Text => ({
        cause: `${step} failed: ${reason}`,
        next: 'The reason above is the backend\'s own; try again later or tell your user.',
      }),
      /** A controller step refused with `code`: the next step is that code's, when it has one (`./controller-next.ts`). */
      controller: (code: string | undefined, reason: string, step: string): Text => ({
        cause: `${step} failed: ${reason}`,
        next: controllerNext(code) ?? 'The reason above is the backend\'s own; try again later or tell your user.',
      }),
      /** A withdraw could not reach the home store: whether the message can still be withdrawn is unknown. */
      withdrawStoreUnavailable: (why: string): Text => ({
        cause: `the cross-session store is unavailable (${clipLine(oneLine(why), 120)})`,
        next: 'Whether it can still be withdrawn is unknown; try again shortly, or tell your user.',
      }),
      /** The target takes no messages from peers (`inbound: refuse`, its own choice or the host's). */
      inboundRefused: (targetId: string): Text => ({
        cause: `${shownId(targetId)} does not take messages from peer sessions (its user set inbound messages to refuse)`,
        next: 'Do not send it again. Ask its user instead (tell your own user what you wanted to say and to whom).',
      }),
      /** A hold could not be kept (no home store in this process, or the store refused). */
      holdUnavailable: (targetId: string, why: string): Text => ({
        cause: `${shownId(targetId)} holds messages from peers for its user's approval, and this one could not be kept: ${why}`,
        next: `${NOTHING_DELIVERED} Ask its user instead, or try again later.`,
      }),
    },
  },
} as const satisfies Record<string, { readonly contract: boolean, readonly cause: string, readonly next: string, readonly texts: object }>

/** Every refusal code this package returns. */
export type RefusalCode = keyof typeof CATALOG

/** An entry's texts, each returning a {@link Refusal} of the entry's code. */
type Coded<T> = { readonly [K in keyof T]: T[K] extends (...args: infer A) => Text ? (...args: A) => Refusal : never }

/** One catalog entry: the docs row, and the texts the model reads. */
type Entry<C extends RefusalCode> = Omit<(typeof CATALOG)[C], 'texts'> & { readonly texts: Coded<(typeof CATALOG)[C]['texts']> }

type Texts<R> = Readonly<Record<string, (...args: never[]) => R>>

function coded(code: RefusalCode, texts: Texts<Text>): Texts<Refusal> {
  return Object.fromEntries(Object.entries(texts).map(([name, text]) => [name, (...args: never[]) => ({ code, ...text(...args) })]))
}

/** The closed refusal catalog (docs/tools.md#refusals-and-their-order). */
export const REFUSAL_CATALOG = Object.fromEntries(Object.entries(CATALOG).map(([code, entry]) =>
  [code, { ...entry, texts: coded(code as RefusalCode, entry.texts) }])) as { readonly [C in RefusalCode]: Entry<C> }

/** The codes, in catalog order. */
export const REFUSAL_CODES = Object.keys(REFUSAL_CATALOG) as RefusalCode[]

/** docs/tools.md's refusal table, printed from {@link REFUSAL_CATALOG} (the docs test compares them). */
export function refusalTableMarkdown(): string {
  const rows = REFUSAL_CODES.map(code => {
    const row = REFUSAL_CATALOG[code]
    return `| \`${code}\` | ${row.contract ? 'contract' : 'added'} | ${row.cause} | ${row.next} |`
  })
  return ['| code | from | cause | what the model should do |', '|---|---|---|---|', ...rows].join('\n')
}
