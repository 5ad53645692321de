/**
 * Which sessions a page may decide for (docs/architecture.md §8 "Several
 * machines"): on a store shared by several machines, a machine's page
 * lists and decides the held messages, and sets the inbound choice, of
 * that machine's sessions only, and shows the traffic they sent or were sent. The user of each machine decides at that
 * machine, where the session is (its approval card is on that machine's
 * page); on one machine every session is the page's, and nothing is looked up. On a shared store the question is
 * `home/pg/machines-home.ts` `elsewhere`: another machine published the session, or this machine has none such.
 *
 * @module dsh-cross-session/home/channel-machines
 */

/** Whether a session is another machine's. @throws what its lookup throws (a store fault while the shared store cannot be read). */
export type Elsewhere = (sessionId: string, signal: AbortSignal) => Promise<boolean>

/** Whether `sessionId` is another machine's; `false` on one machine (`elsewhere` absent). */
export async function ofAnotherMachine(elsewhere: Elsewhere | undefined, sessionId: string, signal: AbortSignal): Promise<boolean> {
  return elsewhere === undefined ? false : await elsewhere(sessionId, signal)
}

/**
 * `items` of this machine: those whose session (`sessionOf`), or whose other session (`alsoOf`, when given), is not
 * another machine's; one question per distinct session.
 */
export async function ofThisMachine<T>(elsewhere: Elsewhere | undefined, items: readonly T[], sessionOf: (item: T) => string,
  signal: AbortSignal, alsoOf?: (item: T) => string): Promise<T[]> {
  if (elsewhere === undefined) return [...items]
  const there = new Map<string, boolean>()
  const away = async (id: string): Promise<boolean> => {
    if (!there.has(id)) there.set(id, await elsewhere(id, signal))
    return there.get(id) === true
  }
  const kept: T[] = []
  for (const item of items) {
    if (!await away(sessionOf(item)) || (alsoOf !== undefined && !await away(alsoOf(item)))) kept.push(item)
  }
  return kept
}
