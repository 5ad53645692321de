/**
 * Every key of the `cross-session` namespace: the shape of the resolved
 * settings, their defaults, and the rule each is judged by (`SETTING_RULES`).
 * One table: the resolver (src/settings/resolve.ts), the schemastery
 * `Config` (src/settings/config.ts) and the card's rows (src/settings/table.ts)
 * are built from it. Keys, defaults and ranges as documented:
 * docs/tools.md#settings. `recordWaitMs` bounds the wait of "Accepted means
 * recorded" and `answerWaitMs` the wait for a woken session's answer
 * (docs/tools.md#sessions_send).
 *
 * @module dsh-cross-session/settings/keys
 */

import type { SendMode } from '../model/schemas.js'
import type { Visibility } from '../model/sessions.js'
import { MAX_MACHINE_NAME, machineNameProblem } from './machine-name.js'
import { MAX_STORE_CHARS, storePlace } from './store-url.js'

/** Who a session may see (`src/model/sessions.ts`). */
export type { Visibility }

/** Resolved settings; every field is present and in range. */
export interface Settings {
  /** `false` registers no tool at all. */
  readonly enabled: boolean
  /** Mode of a `sessions_send` that gives none. */
  readonly defaultSendMode: SendMode
  /** Whether a send may wake (resume) a cold session. */
  readonly allowResume: boolean
  /** Whether delivered messages carry the cross-session frame (docs/tools.md#the-frame). */
  readonly frameMessages: boolean
  /** Default of `sessions_read`'s `include_injected`. */
  readonly includeInjectedByDefault: boolean
  /** Cap on `sessions_list` rows (1–200). */
  readonly maxListResults: number
  /** Cap on `sessions_read` messages (1–100). */
  readonly maxReadMessages: number
  /** Cap on characters (code points) per read message (100–20000). */
  readonly maxMessageChars: number
  /** Cap on characters (code points) of a sent body (100–40000). */
  readonly maxSendChars: number
  /** `workspace`: only sessions with the caller's `cwd` exist for the tools. */
  readonly visibility: Visibility
  /** Sends per minute per sender→target pair (1–120). */
  readonly maxSendsPerMinute: number
  /** Longest causal relay chain, in hops (1–32). */
  readonly maxHops: number
  /** How long a send waits for its message to reach the target's log, ms (0–30000). */
  readonly recordWaitMs: number
  /** How long a send from a headless run that woke its target waits for that turn to end (its exit would cut it off), ms (0–600000). */
  readonly answerWaitMs: number
  /** Default of `sessions_send`'s `notify` (docs/tools.md#notices). */
  readonly notifyByDefault: boolean
  /** How long a notice waits for the watched turn to end and then for its sender, ms (60000–604800000). */
  readonly noticeTtlMs: number
  /** Whether a notice may resume this session in `dsh web` once its headless run exited (docs/tools.md#notices). */
  readonly noticeWakesEndedRun: boolean
  /** What a peer message does (docs/tools.md#inbound-messages): `accept`, `hold` for its user, `refuse`; a session's own choice wins. */
  readonly inbound: InboundMode
  /** How long a held message waits for its user's decision before it expires, ms (60000–86400000). */
  readonly holdExpiryMs: number
  /**
   * Where the home store lives: `sqlite` or empty (this `DSH_HOME`'s SQLite file) or a `postgres://` URL
   * (src/settings/store-url.ts); trimmed, and kept as given even when malformed (docs/architecture.md §6, "Text").
   */
  readonly store: string
  /** The name other machines see (src/settings/machine-name.ts; at most 64 characters); empty: this host's name. */
  readonly machine: string
}

/** What a peer message to a session does: docs/tools.md#inbound-messages. */
export type InboundMode = 'accept' | 'hold' | 'refuse'

/** Defaults (the `default` column of docs/tools.md#settings). */
export const DEFAULT_SETTINGS: Settings = Object.freeze({
  enabled: true,
  defaultSendMode: 'queue',
  allowResume: true,
  frameMessages: true,
  includeInjectedByDefault: false,
  maxListResults: 25,
  maxReadMessages: 12,
  maxMessageChars: 1200,
  maxSendChars: 4000,
  visibility: 'all',
  maxSendsPerMinute: 6,
  maxHops: 4,
  recordWaitMs: 5000,
  answerWaitMs: 120_000,
  notifyByDefault: false,
  noticeTtlMs: 12 * 60 * 60_000,
  noticeWakesEndedRun: false,
  inbound: 'accept',
  holdExpiryMs: 600_000,
  store: 'sqlite',
  machine: '',
})

/**
 * How one setting is judged: its type and, for numbers, the range it is clamped into. A text is trimmed and
 * judged by `problem` (`undefined`: taken; else a sentence naming the key and what is wrong, never a password);
 * a refused text is replaced by the default, or kept as given where falling back to the default would be
 * worse than refusing later (`whenRefused: 'keep'`: the `store`, docs/architecture.md §6, "Text").
 * `maxChars` (code points) is the longest text `problem` takes, for the schema, the docs and the card.
 */
export type SettingRule =
  | { readonly kind: 'boolean' }
  | { readonly kind: 'integer', readonly min: number, readonly max: number }
  | { readonly kind: 'enum', readonly values: readonly string[] }
  | {
    readonly kind: 'text'
    readonly maxChars: number
    readonly problem: (text: string) => string | undefined
    readonly whenRefused: 'keep' | 'default'
  }

/** What is wrong with a `store` value (storePlace's refusal), or `undefined`. */
function storeProblem(text: string): string | undefined {
  const place = storePlace(text)
  return 'error' in place ? place.error : undefined
}

/** Type and range of every setting (docs/tools.md#settings); src/settings/config.ts builds the schemastery `Config` from it. */
export const SETTING_RULES: { readonly [K in keyof Settings]: SettingRule } = {
  enabled: { kind: 'boolean' },
  defaultSendMode: { kind: 'enum', values: ['queue', 'steer'] },
  allowResume: { kind: 'boolean' },
  frameMessages: { kind: 'boolean' },
  includeInjectedByDefault: { kind: 'boolean' },
  maxListResults: { kind: 'integer', min: 1, max: 200 },
  maxReadMessages: { kind: 'integer', min: 1, max: 100 },
  maxMessageChars: { kind: 'integer', min: 100, max: 20000 },
  maxSendChars: { kind: 'integer', min: 100, max: 40000 },
  visibility: { kind: 'enum', values: ['all', 'workspace'] },
  maxSendsPerMinute: { kind: 'integer', min: 1, max: 120 },
  maxHops: { kind: 'integer', min: 1, max: 32 },
  recordWaitMs: { kind: 'integer', min: 0, max: 30000 },
  answerWaitMs: { kind: 'integer', min: 0, max: 600_000 },
  notifyByDefault: { kind: 'boolean' },
  noticeTtlMs: { kind: 'integer', min: 60_000, max: 7 * 24 * 60 * 60_000 },
  noticeWakesEndedRun: { kind: 'boolean' },
  inbound: { kind: 'enum', values: ['accept', 'hold', 'refuse'] },
  holdExpiryMs: { kind: 'integer', min: 60_000, max: 86_400_000 },
  store: { kind: 'text', maxChars: MAX_STORE_CHARS, problem: storeProblem, whenRefused: 'keep' },
  machine: { kind: 'text', maxChars: MAX_MACHINE_NAME, problem: machineNameProblem, whenRefused: 'default' },
}

/** Setting keys, in table order. */
export const SETTING_KEYS = Object.keys(SETTING_RULES) as Array<keyof Settings>
