/**
 * Where a worker thread's entry module is: beside the module that starts it,
 * `.js` in the built package, `.ts` when the package runs from source (the
 * tests, the bench), then loaded through `tsx`; and only the flags it needs
 * (a flag of the process may not be allowed in a worker, Node 22
 * `worker_threads` docs). Pure.
 *
 * @module dsh-cross-session/core/worker-entry
 */

/**
 * @param beside - the starting module's `import.meta.url`.
 * @param name - the entry's file name without extension (`store-worker`).
 * @returns the entry's URL and the `execArgv` to start it with.
 */
export function workerEntry(beside: string, name: string): { readonly url: URL, readonly execArgv: string[] } {
  const fromSource = beside.endsWith('.ts')
  return { url: new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, beside), execArgv: fromSource ? ['--import', 'tsx'] : [] }
}
