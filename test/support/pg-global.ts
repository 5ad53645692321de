/**
 * Vitest global setup of the unit project: one throwaway PostgreSQL server
 * (`test/support/pg-cluster.ts`) for every test file of the PostgreSQL
 * store, started before the files run and stopped after. Its URL reaches
 * the files as `inject('pgUrl')`; where no server can be had, `pgMissing`
 * says why, and `test/support/pg-target.ts` skips those tests (or fails
 * them under CI, as the browser e2e does).
 *
 * @module test/support/pg-global
 */
import type { TestProject } from 'vitest/node'
import { pgBin, startCluster } from './pg-cluster.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string
    pgMissing: string
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const bin = pgBin()
  if ('missing' in bin) {
    project.provide('pgUrl', '')
    project.provide('pgMissing', bin.missing)
    return () => undefined
  }
  let cluster: Awaited<ReturnType<typeof startCluster>>
  try {
    cluster = await startCluster(bin.dir)
  } catch (error: unknown) {
    project.provide('pgUrl', '')
    project.provide('pgMissing', `a PostgreSQL server in ${bin.dir} did not start: ${String(error).split('\n').slice(0, 3).join(' ')}`)
    return () => undefined
  }
  project.provide('pgUrl', cluster.url)
  project.provide('pgMissing', '')
  return () => cluster.stop()
}
