import { defineConfig } from 'vitest/config'

/**
 * Two projects, one command (`npm test`):
 * - unit: pure functions and the tools over in-memory fakes of the ports;
 * - e2e: the built plugin mounted in the real published harness
 *   (@deepseek-ai/dsh@0.1.0-rc.8, installed in e2e/) against a scripted
 *   local model on 127.0.0.1. Each file boots real harness processes, so
 *   files run one at a time with generous per-test timeouts.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Each file gets its own DSH_HOME (the cross-session store of
          // docs/architecture.md §8 never lands in ~/.dsh).
          setupFiles: ['test/support/unit-home.ts'],
          // One throwaway PostgreSQL server on 127.0.0.1 for the PostgreSQL store's tests (test/support/pg-global.ts).
          globalSetup: ['test/support/pg-global.ts'],
          // A clean-up removes homes of thousands of logs: on a machine whose two cores other jobs share it can take
          // longer than the default 10 s.
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // The same throwaway PostgreSQL server, for the machines on one shared store (test/e2e/machines.test.ts).
          globalSetup: ['test/support/pg-global.ts'],
          testTimeout: 240_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
