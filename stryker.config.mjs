/**
 * `npm run mutate`: StrykerJS over the home store and its orchestration
 * (src/home/), the refusals (src/refusals.ts and src/refusals/), the send path
 * (src/tools/sessions-send.ts, src/tools/send/) and the list's row decisions
 * (src/tools/sessions-list.ts, src/tools/list-rows.ts, src/tools/list-source.ts,
 * src/model/list-filter.ts), a new process's first list (src/index/newest.ts) and
 * when the corpus index writes its rows (src/adapters/row-writes.ts, src/index/write-turns.ts), killing mutants with the
 * unit tests named in vitest.mutate.config.ts. Not run in CI; the last
 * report and how to read it: docs/mutation.md. A smaller run:
 * `npm run mutate -- --mutate src/home/guard.ts`.
 *
 * @module stryker.config
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false, pool: 'forks' },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/home/**/*.ts',
    'src/refusals.ts',
    'src/refusals/**/*.ts',
    'src/tools/sessions-send.ts',
    'src/tools/send/**/*.ts',
    'src/tools/sessions-list.ts',
    'src/tools/list-rows.ts',
    'src/tools/list-source.ts',
    'src/adapters/row-writes.ts',
    'src/index/newest.ts',
    'src/index/write-turns.ts',
    'src/model/list-filter.ts',
  ],
  // The sandbox copy needs the sources, the tests and bench/ (the tests' rc.8 log writer); e2e/ and tools/ are
  // ~500 MB of installed harness and Node.
  ignorePatterns: ['/e2e', '/tools', '/lib', '/demo', '/.tmp', '/reports'],
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.tmp/stryker',
  cleanTempDir: true,
}
