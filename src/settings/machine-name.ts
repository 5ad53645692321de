/**
 * The rule of the `machine` setting (docs/architecture.md §8 "Several
 * machines"): the name this `DSH_HOME` shows beside its sessions on other
 * machines; empty means the host name. Pure and free of Node APIs: the
 * resolver, the web card and `home/pg/machine-id.ts` (which falls back to
 * the host name) all judge a name here.
 *
 * @module dsh-cross-session/settings/machine-name
 */

/** Longest machine name, in characters (code points). */
export const MAX_MACHINE_NAME = 64

/** A control character (C0, DEL, C1): never part of a name shown on one line. */
const CONTROL = /\p{Cc}/gu

/**
 * What is wrong with a `machine` value, judged as given (callers trim
 * first). @returns `undefined` when it may be used (empty included), else a
 * sentence naming the setting and what is wrong, without the value. Refused:
 * more than {@link MAX_MACHINE_NAME} characters, or any control character.
 */
export function machineNameProblem(name: string): string | undefined {
  const length = [...name].length
  if (length > MAX_MACHINE_NAME) return `machine must be at most ${MAX_MACHINE_NAME} characters; this one has ${length}`
  // `replace`, not `test`: the pattern is global, and `test` would carry its `lastIndex` to the next call.
  if (name.replace(CONTROL, '') !== name) return 'machine must have no control characters'
  return undefined
}

/**
 * A name that is not the setting (the host name) made to fit the rule:
 * control characters dropped, trimmed, cut to {@link MAX_MACHINE_NAME}
 * characters. Never refuses; may return `''`.
 */
export function fittedMachineName(text: string): string {
  return [...text.replace(CONTROL, '').trim()].slice(0, MAX_MACHINE_NAME).join('')
}
