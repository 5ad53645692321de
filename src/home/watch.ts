/**
 * Cheap waiting on a directory (issue 8 §6): `fs.watch` wakes a waiter as
 * soon as an entry changes, and a bounded fallback poll covers file systems
 * where watching is missing or lossy. Every watcher and timer is unref'd, so
 * a wait never keeps a headless `dsh` process alive.
 *
 * @module dsh-cross-session/home/watch
 */

import { watch, type FSWatcher } from 'node:fs'

/**
 * Call `onChange` when `dir` changes, and at least every `pollMs`.
 * @returns a stop function (idempotent).
 */
export function watchDirectory(dir: string, pollMs: number, onChange: () => void): () => void {
  let watcher: FSWatcher | undefined
  try {
    watcher = watch(dir, { persistent: false }, () => onChange())
    watcher.on('error', () => {
      watcher?.close()
      watcher = undefined
    })
    watcher.unref?.()
  } catch {
    watcher = undefined // no watching here: the poll alone serves
  }
  const timer = setInterval(onChange, pollMs)
  timer.unref()
  return () => {
    clearInterval(timer)
    watcher?.close()
    watcher = undefined
  }
}

/**
 * Check `check()` now, on every change of `dir`, and every `pollMs`, until
 * it returns a value, `timeoutMs` passes, or `signal` fires.
 * @returns the value, or `undefined` at the bound.
 */
export function waitInDirectory<T>(dir: string, check: () => T | undefined, options: { timeoutMs: number, pollMs: number, signal: AbortSignal }): Promise<T | undefined> {
  return new Promise(resolve => {
    let done = false
    let stop: () => void = () => {}
    const finish = (value: T | undefined): void => {
      if (done) return
      done = true
      stop()
      clearTimeout(deadline)
      options.signal.removeEventListener('abort', onAbort)
      resolve(value)
    }
    const probe = (): void => {
      if (done) return
      let value: T | undefined
      try {
        value = check()
      } catch {
        value = undefined
      }
      if (value !== undefined) finish(value)
    }
    const onAbort = (): void => finish(undefined)
    const deadline = setTimeout(() => finish(undefined), Math.max(0, options.timeoutMs))
    deadline.unref()
    options.signal.addEventListener('abort', onAbort, { once: true })
    if (options.signal.aborted) return finish(undefined)
    stop = watchDirectory(dir, options.pollMs, probe)
    probe()
  })
}
