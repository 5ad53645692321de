/**
 * A holder process for the PostgreSQL store's process-death test
 * (test/unit/pg-process-death.test.ts): a real OS process of machine
 * `machine-b` on the store's worker thread (`home/pg/pg-sync.ts`), judged
 * alive by its pid + start time as the shipped probe judges it. It holds
 * session `s` live, then claims what waits for it and records each claim
 * in batches of five (`recordAll`, one transaction each), without pause,
 * until it is killed. It prints `batch <ids>` before each batch's
 * transaction starts.
 *
 * Usage: node --import tsx test/support/pg-holder-child.ts <url> <schema>
 *
 * @module test/support/pg-holder-child
 */
import { selfTag } from '../../src/harness/process-tag.js'
import { PgSync } from '../../src/home/pg/pg-sync.js'

const [url, schema] = process.argv.slice(2)
const sync = new PgSync({ url: url!, schema: schema!, self: { machine: 'machine-b', ...selfTag() }, machineName: 'b' })
sync.call('prepare', [])
sync.call('join', [false])
const held = sync.call<{ ok: boolean }>('markLive', ['s'])
process.stdout.write(`held ${JSON.stringify(held)}\n`)
let seq = 0
for (;;) {
  const claimed = sync.call<Array<{ messageId: string }>>('claim', ['s'])
  for (let from = 0; from < claimed.length; from += 5) {
    const batch = claimed.slice(from, from + 5)
    process.stdout.write(`batch ${batch.map(message => message.messageId).join(' ')}\n`)
    sync.call('recordAll', [batch.map(message => ({ messageId: message.messageId, seq: ++seq, running: false }))])
  }
}
