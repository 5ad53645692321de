/**
 * Cost of reading the current settings once per tool call (docs/architecture.md §6: it must
 * stay O(1)). The REAL rc.8 settings service (test/support/memory-settings.ts)
 * with the `cross-session` namespace registered by the plugin's own wiring;
 * each read is what a tool call does: `deps.settings` → `SettingsSource.current`
 * → `scope.get()` and an identity check.
 * @module bench/settings
 */
import type { Context } from '@deepseek-ai/cordis'
import { SettingsSource } from '../src/settings/source.js'
import { attachSettings, type SettingsContext } from '../src/settings/wiring.js'
import { realRoot, settle, type MemorySettings } from '../test/support/memory-settings.js'

export interface SettingsReadCost {
  /** Median ns per read while the section is unchanged. */
  readonlyNs: number
  /** Median ns of the first read after a committed change (one resolveSettings). */
  afterChangeNs: number
  /** Reads per measurement. */
  reads: number
}

function nsPer(reads: number, run: () => void): number {
  const started = process.hrtime.bigint()
  run()
  return Number(process.hrtime.bigint() - started) / reads
}

export async function settingsReadCost(quick: boolean): Promise<SettingsReadCost> {
  const { root } = await realRoot({ settings: { 'cross-session': { maxListResults: 10 } } })
  const source = new SettingsSource({}, () => {})
  let sink = 0
  ;(root as Context).plugin({
    name: 'bench-settings',
    apply: (ctx: Context) => attachSettings(ctx as unknown as SettingsContext, 'host', source, () => {}, () => {}),
  })
  await settle()
  const settings = root.get('settings') as MemorySettings
  const reads = quick ? 200_000 : 2_000_000
  const samples: number[] = []
  for (let i = 0; i < 5; i++) samples.push(nsPer(reads, () => { for (let j = 0; j < reads; j++) sink += source.current.maxListResults }))
  const changes: number[] = []
  for (let i = 0; i < (quick ? 50 : 500); i++) {
    settings.push({ 'cross-session': { maxListResults: 1 + (i % 200) } })
    changes.push(nsPer(1, () => { sink += source.current.maxListResults }))
  }
  if (sink === 0) throw new Error('unreachable')
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  return { readonlyNs: median(samples), afterChangeNs: median(changes), reads }
}
