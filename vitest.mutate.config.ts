import { defineConfig } from 'vitest/config'

/**
 * The unit tests `npm run mutate` (StrykerJS, stryker.config.json) runs
 * against each mutant of the home store, the refusals, the send path and the list's row decisions
 * (docs/mutation.md): the test files that drive those modules, and none
 * that start OS processes (test/unit/home-race.test.ts) or replay ten
 * thousand crash schedules (test/unit/home-schedule.test.ts), so a run
 * fits a 2-core machine.
 */
export default defineConfig({
  test: {
    include: [
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
      'test/unit/lock-patience.test.ts',
      'test/unit/newest-list.test.ts',
      'test/unit/off-loop.test.ts',
      'test/unit/recorded.test.ts',
      'test/unit/refusals.test.ts',
      'test/unit/sessions-list.test.ts',
      'test/unit/shared-index.test.ts',
      'test/unit/sessions-send.test.ts',
      'test/unit/smaller-faults.test.ts',
      'test/unit/store-corpus.test.ts',
      'test/unit/store-retry.test.ts',
      'test/unit/tick-faults.test.ts',
      'test/unit/woken.test.ts',
      'test/unit/write-turns.test.ts',
    ],
    setupFiles: ['test/support/unit-home.ts'],
  },
})
