import { defineConfig } from 'vitest/config'

/**
 * The unit tests `npm run mutate` (StrykerJS, stryker.config.json) runs
 * against each mutant of the home store, the refusals, the send path and the list's row decisions
 * (docs/mutation.md): the test files that drive those modules, and none
 * that start OS processes (test/unit/home-race.test.ts, test/unit/pg-process-death.test.ts) or replay ten
 * thousand crash schedules (test/unit/home-schedule.test.ts), so a run
 * fits a 2-core machine. The crash schedules on PostgreSQL run 2 seeds of each kind here (`PG_SCHEDULE_SEEDS`,
 * about 35 s: each simulated process starts a worker thread).
 */
export default defineConfig({
  test: {
    include: [
      'test/unit/directory-publisher.test.ts',
      'test/unit/drain-once.test.ts',
      'test/unit/failures.test.ts',
      'test/unit/home-log.test.ts',
      'test/unit/home-notices.test.ts',
      'test/unit/home-orchestration.test.ts',
      'test/unit/home-pure.test.ts',
      'test/unit/home-store.test.ts',
      'test/unit/hostile.test.ts',
      'test/unit/inbound.test.ts',
      'test/unit/limits.test.ts',
      'test/unit/list-recheck.test.ts',
      'test/unit/machines-query.test.ts',
      'test/unit/lock-patience.test.ts',
      'test/unit/newest-list.test.ts',
      'test/unit/off-loop.test.ts',
      'test/unit/pg-directory.test.ts',
      'test/unit/pg-faults.test.ts',
      'test/unit/pg-pure.test.ts',
      'test/unit/pg-reads.test.ts',
      'test/unit/pg-remote-read.test.ts',
      'test/unit/pg-runtime.test.ts',
      'test/unit/pg-schedule.test.ts',
      'test/unit/pg-store.test.ts',
      'test/unit/pg-sync.test.ts',
      'test/unit/recorded.test.ts',
      'test/unit/refusals.test.ts',
      'test/unit/sessions-list.test.ts',
      'test/unit/shared-index.test.ts',
      'test/unit/sessions-send.test.ts',
      'test/unit/smaller-faults.test.ts',
      'test/unit/store-contract.test.ts',
      'test/unit/store-contract-approvals.test.ts',
      'test/unit/store-contract-notices.test.ts',
      'test/unit/store-corpus.test.ts',
      'test/unit/store-retry.test.ts',
      'test/unit/store-users.test.ts',
      'test/unit/tick-faults.test.ts',
      'test/unit/woken.test.ts',
      'test/unit/write-turns.test.ts',
    ],
    env: { PG_SCHEDULE_SEEDS: '2' },
    setupFiles: ['test/support/unit-home.ts'],
    // The PostgreSQL store's tests run against one throwaway server (test/support/pg-global.ts).
    globalSetup: ['test/support/pg-global.ts'],
  },
})
