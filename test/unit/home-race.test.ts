/**
 * Atomicity under real contention (issue 8 §2, §3): several OS processes
 * race for one wake lease, and for the same mailbox messages. Exactly one
 * process takes the lease; every message is claimed by exactly one process.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ensureLayout, layoutOf, newMessageId, postMessage } from '../../src/testing.js'

const RACERS = 6
const RACER = join(import.meta.dirname, '..', 'support', 'home-racer.ts')

/** Start the racers together; collect each one's answer while all are still alive, then end them. */
async function race(what: 'lease' | 'claim', home: string): Promise<Array<{ won: number | string[] }>> {
  // Far enough ahead that every racer has loaded (tsx) before the start.
  const startAt = Date.now() + 4000
  const children = Array.from({ length: RACERS }, () => spawn(process.execPath, ['--import', 'tsx', RACER, what, home, String(startAt)], { stdio: ['pipe', 'pipe', 'inherit'] }))
  try {
    return await Promise.all(children.map(child => new Promise<{ won: number | string[] }>((resolve, reject) => {
      let out = ''
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.endsWith('\n')) resolve(JSON.parse(out) as { won: number | string[] })
      })
      child.on('error', reject)
      child.on('exit', code => reject(new Error(`racer exited early (${code})`)))
    })))
  } finally {
    for (const child of children) child.stdin!.end()
  }
}

describe('races between processes', () => {
  it(`${RACERS} processes race for one wake lease: exactly one wins`, async () => {
    const home = mkdtempSync(join(tmpdir(), 'xs-race-'))
    ensureLayout(layoutOf(home))
    const results = await race('lease', home)
    expect(results.reduce((sum, result) => sum + (result.won as number), 0)).toBe(1)
  }, 60_000)

  it(`${RACERS} processes race to claim 20 messages: each is claimed exactly once`, async () => {
    const home = mkdtempSync(join(tmpdir(), 'xs-race-'))
    const layout = layoutOf(home)
    ensureLayout(layout)
    const ids = Array.from({ length: 20 }, () => newMessageId())
    for (const messageId of ids) postMessage(layout.mailbox, { v: 1, messageId, sessionId: 'session-raced', requestId: `r-${messageId}`, fromSessionId: 's', hop: 1, mode: 'queue', text: 'x', createdAt: 1 })
    const results = await race('claim', home)
    const claimed = results.flatMap(result => result.won as string[])
    expect(claimed.sort()).toEqual([...ids].sort())
  }, 60_000)
})
