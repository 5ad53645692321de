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
import { isAlive, openHomeStore, selfTag, type HomeStore } from '../../src/testing.js'

const index = Number(process.argv[2])
const ids = Array.from({ length: 20 }, (_, n) => `raced-${n}`)

function message(messageId: string, target: string) {
  return { messageId, target, sender: `racer-${index}`, hop: 1, mode: 'queue' as const, text: messageId, mayWake: true }
}

/** Many transitions on three sessions: post, take, claim, record, let go. @returns the ids this racer recorded. */
function churn(store: HomeStore): { recorded: string[], errors: string[] } {
  const recorded: string[] = []
  const errors: string[] = []
  let seed = index * 7919 + 1
  const random = (n: number): number => (seed = (seed * 48271) % 2147483647) % n
  for (let step = 0; step < 150; step++) {
    const session = `churn-${random(3)}`
    try {
      switch (random(5)) {
        case 0: store.post(message(`churn-${index}-${step}`, session)); break
        case 1: if (store.acquire(session).ok) store.markLive(session); break
        case 2: for (const claimed of store.claim(session)) if (store.record(claimed.messageId, step, false)) recorded.push(claimed.messageId); break
        case 3: store.release(session, 'released'); break
        default: store.claim(session); store.unclaimAll()
      }
    } catch (error: unknown) {
      errors.push(String(error))
    }
  }
  store.leave('exited')
  return { recorded, errors }
}

function run(what: string, store: HomeStore): unknown {
  if (what === 'acquire') return { won: store.acquire('session-raced').ok }
  if (what === 'post') return { stored: [...ids].sort(() => Math.random() - 0.5).filter(id => { const posted = store.post(message(id, 'session-raced')); return posted.ok && !posted.duplicate }) }
  return churn(store)
}

const lines = createInterface({ input: process.stdin })
lines.on('line', line => {
  const [what, home] = line.split(' ') as [string, string]
  process.stdout.write(`${JSON.stringify(run(what, openHomeStore(home, selfTag(), isAlive)))}\n`)
})
lines.once('close', () => process.exit(0))
process.stdout.write('ready\n')
