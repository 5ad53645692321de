/**
 * A real second OS process for the cross-process unit tests
 * (test/unit/home-pure.test.ts): alive from the file's `beforeAll` until its
 * `afterAll`, identified as this package identifies processes (pid + start
 * time, src/home/process-tag.ts).
 * @module test/support/other-process
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll } from 'vitest'
import { readStartTime } from '../../src/testing.js'

/** Start the process around the calling test file; the returned tag is filled in by `beforeAll`. */
export function useOtherProcess(): { pid: number, start: number } {
  let child: ChildProcess | undefined
  const tag = { pid: 0, start: 0 }
  beforeAll(async () => {
    const started = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
    child = started
    await new Promise(resolve => started.once('spawn', resolve))
    tag.pid = started.pid!
    tag.start = readStartTime(started.pid!) ?? 0
  })
  afterAll(() => {
    child?.kill('SIGKILL')
  })
  return tag
}
