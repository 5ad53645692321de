/**
 * A racer process for test/unit/home-race.test.ts: says `ready`, then for
 * each command line on stdin (`<acquire|post|churn> <home>`) opens the home
 * store as a `dsh` process does (its own pid and start time, `isAlive`),
 * runs its part of that race and prints what it won as one JSON line. It
 * stays alive until stdin closes, so what it holds is held by a living
 * process.
 *
 * Usage: node --import tsx test/support/home-racer.ts <racer index>
 * @module test/support/home-racer
 */
import { createInterface } from 'node:readline'
import { isAlive, openHomeStore, retryStore, selfTag, type HomeStore } from '../../src/testing.js'

/** A transition meeting another racer's lock past the short wait throws SQLITE_BUSY; it is tried again as the shipped callers do (`home/store-retry.ts`). */
const retry = <T>(step: () => T): Promise<T> => retryStore(step, new AbortController().signal, 60_000)

const index = Number(process.argv[2])
const ids = Array.from({ length: 20 }, (_, n) => `raced-${n}`)

function message(messageId: string, target: string) {
  return { messageId, target, sender: `racer-${index}`, hop: 1, mode: 'queue' as const, text: messageId, mayWake: true }
}

/** Many transitions on three sessions: post, take, claim, record, let go. @returns the ids this racer recorded. */
async function churn(store: HomeStore): Promise<{ recorded: string[], errors: string[] }> {
  const recorded: string[] = []
  const errors: string[] = []
  let seed = index * 7919 + 1
  const random = (n: number): number => (seed = (seed * 48271) % 2147483647) % n
  for (let step = 0; step < 150; step++) {
    const session = `churn-${random(3)}`
    try {
      switch (random(5)) {
        case 0: await retry(() => store.post(message(`churn-${index}-${step}`, session))); break
        case 1: if ((await retry(() => store.acquire(session))).ok) await retry(() => store.markLive(session)); break
        case 2: for (const claimed of await retry(() => store.claim(session))) if (await retry(() => store.record(claimed.messageId, step, false))) recorded.push(claimed.messageId); break
        case 3: await retry(() => store.release(session, 'released')); break
        default: await retry(() => store.claim(session)); await retry(() => store.unclaimAll())
      }
    } catch (error: unknown) {
      errors.push(String(error))
    }
  }
  await retry(() => store.leave('exited'))
  return { recorded, errors }
}

async function run(what: string, store: HomeStore): Promise<unknown> {
  if (what === 'acquire') return { won: (await retry(() => store.acquire('session-raced'))).ok }
  if (what === 'post') {
    const stored: string[] = []
    for (const id of [...ids].sort(() => Math.random() - 0.5)) {
      const posted = await retry(() => store.post(message(id, 'session-raced')))
      if (posted.ok && !posted.duplicate) stored.push(id)
    }
    return { stored }
  }
  return await churn(store)
}

const lines = createInterface({ input: process.stdin })
lines.on('line', line => {
  const [what, home] = line.split(' ') as [string, string]
  void retry(() => openHomeStore(home, selfTag(), isAlive)).then(store => run(what, store)).then(result => process.stdout.write(`${JSON.stringify(result)}\n`))
})
lines.once('close', () => process.exit(0))
process.stdout.write('ready\n')
