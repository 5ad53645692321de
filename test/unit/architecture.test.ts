/**
 * The import graph of src/ has no cycle and no import from a lower
 * layer back up; every module says its job in a `@module` docstring and
 * stays near 200 lines. The layer list is the map in docs/architecture.md.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = join(import.meta.dirname, '..', '..', 'src')

/**
 * Layers, lowest first, as folder prefixes (and the few files the src/ root
 * keeps): a module may import from its own layer or a lower one. A path
 * matches the longest prefix listed.
 */
const LAYERS: readonly (readonly string[])[] = [
  // 0 leaves: pure helpers, and facts about the harness and the OS
  ['core/', 'harness/'],
  // 1 the model: ports, settings, argument schemas, sessions, surface, frames, refusals, provenance, limits
  ['model/', 'settings/', 'ports.ts', 'framing.ts', 'framing/', 'refusals.ts'],
  // 2 every text the model (and a client) sees
  ['presentation/'],
  // 3 backends: the session query, the controller, the corpus index, the home (several processes)
  ['adapters/', 'index/', 'home/'],
  // 4 the three tools
  ['tools/'],
  // 5 the web face (its own bundle) and the Cordis entry
  ['client/', 'plugin.ts', 'testing.ts'],
]

function layerOf(path: string): number {
  let best = -1
  let bestLength = -1
  LAYERS.forEach((prefixes, layer) => {
    for (const prefix of prefixes) {
      const matches = prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix
      if (matches && prefix.length > bestLength) {
        best = layer
        bestLength = prefix.length
      }
    }
  })
  return best
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|js|jsx)$/.test(entry.name) ? [relative(SRC, path)] : []
  })
}

const files = sourceFiles(SRC)
const known = new Set(files)

function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8')
  const targets: string[] = []
  for (const match of text.matchAll(/(?:from|import)\s+'(\.[^']+)'/g)) {
    const target = normalize(join(dirname(file), match[1] ?? ''))
    targets.push(known.has(target) ? target : target.replace(/\.js$/, '.ts'))
  }
  return targets
}

const graph = new Map(files.map(file => [file, importsOf(file)]))

describe('the import graph of src/', () => {
  it('every module has a layer', () => {
    expect(files.filter(file => layerOf(file) < 0)).toEqual([])
  })

  it('every relative import names a file that exists', () => {
    const missing = [...graph].flatMap(([file, targets]) => targets.filter(target => !known.has(target)).map(target => `${file} → ${target}`))
    expect(missing).toEqual([])
  })

  it('no module imports from a higher layer', () => {
    const upward = [...graph].flatMap(([file, targets]) => targets
      .filter(target => layerOf(target) > layerOf(file))
      .map(target => `${file} (layer ${layerOf(file)}) → ${target} (layer ${layerOf(target)})`))
    expect(upward).toEqual([])
  })

  it('has no cycle', () => {
    const state = new Map<string, 'open' | 'done'>()
    const cycles: string[] = []
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '))
        return
      }
      state.set(file, 'open')
      for (const target of graph.get(file) ?? []) visit(target, [...path, file])
      state.set(file, 'done')
    }
    for (const file of files) visit(file, [])
    expect(cycles).toEqual([])
  })
})

describe('modules', () => {
  it.each(files.filter(file => file.endsWith('.ts')))('%s has a @module docstring and at most 200 lines', file => {
    const text = readFileSync(join(SRC, file), 'utf8')
    expect(text).toMatch(/@module /)
    expect(text.split('\n').length - 1).toBeLessThanOrEqual(200)
  })
})
