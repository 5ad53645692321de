/**
 * Unit-test setup: give every unit test file its own empty `DSH_HOME`, so the
 * plugin's cross-process state (the home store, docs/architecture.md §8:
 * `$DSH_HOME/cross-session/store.sqlite`) is never written into the real
 * `~/.dsh`.
 * @module test/support/unit-home
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

const home = mkdtempSync(join(tmpdir(), 'xs-unit-home-'))
process.env.DSH_HOME = home
afterAll(() => rmSync(home, { recursive: true, force: true }))
