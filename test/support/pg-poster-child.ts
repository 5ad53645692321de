/**
 * A posting process for the frozen-process test (test/unit/pg-process-death.test.ts):
 * a real OS process of machine `machine-c` on the store's worker thread
 * (`home/pg/pg-sync.ts`, with its connection settings), posting to session
 * `t` without pause. It prints `ready` after its first post.
 *
 * Usage: node --import tsx test/support/pg-poster-child.ts <url> <schema>
 *
 * @module test/support/pg-poster-child
 */
import { selfTag } from '../../src/harness/process-tag.js'
import { PgSync } from '../../src/home/pg/pg-sync.js'

const [url, schema] = process.argv.slice(2)
const sync = new PgSync({ url: url!, schema: schema!, self: { machine: 'machine-c', ...selfTag() }, machineName: 'c' })
sync.call('prepare', [])
sync.call('join', [false])
for (let n = 0; ; n++) {
  await sync.callAsync('post', [{ messageId: `c${n}`, target: 't', sender: 'on-c', hop: 1, mode: 'queue', text: 'x', mayWake: true }])
  if (n === 0) process.stdout.write('ready\n')
}
