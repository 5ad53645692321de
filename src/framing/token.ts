/**
 * The per-text boundary token of frames and notices: letters and digits
 * only, drawn again until the peer text it encloses does not contain it
 * (docs/tools.md#the-frame).
 *
 * @module dsh-cross-session/framing/token
 */

import { customAlphabet } from 'nanoid'

// Letters and digits only: a token can never contain a marker's dashes or spaces.
const TOKEN_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const TOKEN_LENGTH = 12
const newToken = customAlphabet(TOKEN_ALPHABET, TOKEN_LENGTH)

/** A token source; tests inject a fixed one. */
export type TokenSource = () => string

function isToken(token: string): boolean {
  return token.length >= 8 && /^[0-9A-Za-z]+$/.test(token)
}

/**
 * A token that `enclosed` does not contain: `source`'s first draw when it
 * is a valid token and absent from `enclosed`, else fresh nanoid draws
 * ("provably not in the body": p ≈ 0 per draw).
 */
export function tokenFor(enclosed: string, source: TokenSource = newToken): string {
  let token = source()
  while (enclosed.includes(token) || !isToken(token)) token = newToken()
  return token
}
