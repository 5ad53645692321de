/**
 * The import graph of src/ has no cycle and no import from a lower
 * layer back up; every module says its job in a `@module` docstring and
 * stays near 200 lines. The layer list is the map in docs/architecture.md.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = join(import.meta.dirname, '..', '..', 'src')

/**
 * Layers, lowest first, as folder prefixes (and the few files the src/ root
 * keeps, each beside the folder its entry re-exports): a module may import
 * from its own layer or a lower one. A path matches the longest prefix
 * listed. Layer 1 is ordered inside (1a–1d), so its arrows point one way.
 */
const LAYERS: readonly (readonly string[])[] = [
  // 0 leaves: pure helpers, and facts about the harness and the OS
  ['core/', 'harness/'],
  // 1a every text that enters another session: the frame, notices, owner notices
  ['framing.ts', 'framing/'],
  // 1b the model: sessions, surface, provenance, limits, argument schemas, outcomes
  ['model/'],
  // 1c the settings
  ['settings/'],
  // 1d the ports, and the refusal catalog with sessions_send's order of checks
  ['ports.ts', 'ports/', 'refusals.ts', 'refusals/'],
  // 2 every text the model (and a client) sees
  ['presentation/'],
  // 3 backends: the session query, the controller, the corpus index, the home (several processes)
  ['adapters/', 'index/', 'home/'],
  // 4 the three tools
  ['tools/'],
  // 5 the web face (its own bundle), the Cordis entry and what it mounts
  ['client/', 'plugin.ts', 'activation.ts', 'activate.ts', 'testing.ts'],
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

/** A module's unit: its top folder, or a root file with the folder it re-exports (`framing.ts` and `framing/`). */
function unitOf(file: string): string {
  const top = file.split('/')[0] ?? file
  return top.replace(/\.ts$/, '')
}

/** The folder-level graph: which units import which (a unit's own imports left out). */
const unitGraph = new Map<string, Set<string>>()
for (const [file, targets] of graph) {
  for (const target of targets) {
    if (unitOf(target) === unitOf(file)) continue
    unitGraph.set(unitOf(file), (unitGraph.get(unitOf(file)) ?? new Set()).add(unitOf(target)))
  }
}

describe('the folder-level graph of src/', () => {
  it('points one way: no two folders (or root files) import each other, directly or around a loop', () => {
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
      if (from === to) return true
      if (seen.has(from)) return false
      seen.add(from)
      return [...unitGraph.get(from) ?? []].some(next => reaches(next, to, seen))
    }
    const back = [...unitGraph].flatMap(([from, tos]) => [...tos].filter(to => reaches(to, from)).map(to => `${from} → ${to}`))
    expect(back).toEqual([])
  })

  it('one folder per layer: a unit of src/ lies in exactly one layer', () => {
    const layersOf = new Map<string, Set<number>>()
    for (const file of files) layersOf.set(unitOf(file), (layersOf.get(unitOf(file)) ?? new Set()).add(layerOf(file)))
    expect([...layersOf].filter(([, layers]) => layers.size > 1).map(([unit]) => unit)).toEqual([])
  })
})

describe('modules', () => {
  it.each(files.filter(file => file.endsWith('.ts')))('%s has a @module docstring and at most 200 lines', file => {
    const text = readFileSync(join(SRC, file), 'utf8')
    expect(text).toMatch(/@module /)
    expect(text.split('\n').length - 1).toBeLessThanOrEqual(200)
  })
})

const ROOT = join(SRC, '..')

/** Whether `dir` (relative to ROOT) holds a folder named `name`. */
function hasFolder(dir: string, name: string): boolean {
  const path = join(ROOT, dir, name)
  return existsSync(path) && statSync(path).isDirectory()
}

/**
 * The repository paths a module's comments name: `src/…`, `docs/…`, or a
 * path under one of src/'s folders or the module's own (`home/store.ts`,
 * `send/deliver.ts`). A package's file (`lib/index.js`) and a bare file
 * name are citations of published code, not of this repository.
 */
function commentPaths(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8')
  const comments = [...text.matchAll(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g)].map(match => match[0]).join('\n')
  const paths = [...comments.matchAll(/(?<![\w@/.-])([a-z][\w-]*\/[\w./-]*\w\/?)(?![\w*-])/g)].map(match => match[1] ?? '')
  return paths.flatMap(path => {
    const head = path.split('/')[0] ?? ''
    if (head === 'src' || head === 'docs') return [path]
    // Without src/ or docs/ only a file counts (`settings/updated` is an event name).
    if (!/\.(ts|js|jsx|md)$/.test(path)) return []
    if (hasFolder('src', head)) return [`src/${path}`]
    if (hasFolder(join('src', dirname(file)), head)) return [join('src', dirname(file), path)]
    return []
  })
}

describe('comments', () => {
  it('every src/… or docs/… path a comment names exists', () => {
    const missing = files.flatMap(file => commentPaths(file)
      .filter(path => !existsSync(join(ROOT, path)) && !existsSync(join(ROOT, path.replace(/\.js$/, '.ts'))))
      .map(path => `${file}: ${path}`))
    expect(missing).toEqual([])
  })
})
