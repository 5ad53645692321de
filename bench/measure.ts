/**
 * How the benchmark measures one case: warm median time per call, backend
 * calls per call by method, titles folded per call, peak heap, and output
 * size.
 *
 * Heap: the bench process runs with `--expose-gc` and a large young
 * generation (`--max-semi-space-size=256`, see ./run.ts). Before every timed
 * call a full GC runs; `process.memoryUsage().heapUsed` is read right after
 * the call returns. With a 256 MB semi-space no scavenge runs inside a call
 * that allocates less than that, so this reading is the high-water mark of
 * the call: the live corpus plus everything the call allocated. "peak heap"
 * is the largest such reading over the case; "call alloc" is that minus the
 * heap before the call (an upper bound of what one call needs on top of the
 * corpus). If a GC did run inside a call (observed with a `gc`
 * PerformanceObserver), the row is marked, because its peak is then a lower
 * bound.
 *
 * @module bench/measure
 */

import { loadavg } from 'node:os'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { asJsonValue, renderResult, type ResultValue } from '../src/testing.js'

/** One printed row. */
export interface CaseRow {
  suite: 'memory' | 'real'
  tool: string
  case: string
  /** Sessions in the corpus. */
  corpus?: number
  /** Events on the read surface (or in the log, for the real harness). */
  events?: number
  iterations: number
  /** The first (cold) call, ms. */
  firstMs?: number
  /** Median of the warm calls, ms. */
  medianMs: number
  /** Backend calls per call, by `method`. */
  calls: Record<string, number>
  /** Session titles folded per call. */
  titlesFolded: number
  peakHeapMB: number
  /** Largest heap growth inside one call, MB. */
  callAllocMB?: number
  /** True when a GC ran inside a timed call. */
  gcInCall?: boolean
  /** Output length in code points (and UTF-16 units when they differ). */
  outputChars: number
  outputUnits?: number
  outputHead?: string
  /** For list outputs: rows shown (`N of M considered sessions`); for read outputs, messages shown. */
  shown?: number
  /** For read outputs: code points that are not message text (header, headings, markers, footers). */
  readOverhead?: number
  /** Backend calls of the first (cold) call alone (real harness). */
  firstCalls?: Record<string, number>
  /** Retained heap of a structure after a full GC, MB (the corpus index row). */
  retainedMB?: number
  /**
   * The floor of this call (bench/harness/floors.mjs): what it is, the first call's and the median after the warm
   * ones, ms. A first call's floor is measured in the same process right after the call, or, where `afterMs` is
   * given, as a first run in new worker threads (`firstRunFloor`; `afterMs` is then the in-process figure).
   */
  floor?: { what: string, firstMs?: number, afterMs?: number, medianMs?: number }
  /** 1-minute load average of the case (real harness: when it started; in memory: when it ended). */
  load?: number
}

/**
 * What a `sessions_read` output spends beyond the messages' own text (its
 * header lines, one heading per message, truncation markers, footers), in
 * code points, and how many messages it shows; nothing for other outputs.
 */
function readOverheadOf(value: ResultValue | undefined, output: string): { shown?: number, readOverhead?: number } {
  if (value?.kind !== 'read') return {}
  const text = value.messages.reduce((sum, message) => sum + codePoints(message.text), 0)
  return { shown: value.messages.length, readOverhead: codePoints(output) - text }
}

/** Rows shown by a `sessions_list` output, from its footer. */
export function shownRows(output: string): number | undefined {
  const match = /^(\d+) of \d+ considered sessions$/m.exec(output)
  return match === null ? undefined : Number(match[1])
}

const MB = 1024 * 1024

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Length in code points. */
export function codePoints(text: string): number {
  let count = 0
  for (const _char of text) count++
  return count
}

/** Full GC when exposed. */
export function fullGc(): void {
  (globalThis as { gc?: () => void }).gc?.()
}

/** Heap used now, MB. */
export function heapMB(): number {
  return process.memoryUsage().heapUsed / MB
}

let gcCount = 0
const observer = new PerformanceObserver(list => { gcCount += list.getEntries().length })
observer.observe({ entryTypes: ['gc'] })

/** GC entries reach the observer on a later timer tick, not on setImmediate. */
function settleGcEntries(): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, 2))
}

/** Counters a case reads before and after each call. */
export interface CallCounter {
  /** Calls by method so far (cumulative). */
  snapshot(): Record<string, number>
  /** Titles folded so far (cumulative). */
  titles(): number
}

/**
 * Run `call` once cold and `iterations` times warm; everything but `firstMs`
 * is over the warm calls.
 */
export async function measureCase(
  row: Pick<CaseRow, 'suite' | 'tool' | 'case' | 'corpus' | 'events'>,
  iterations: number,
  call: (index: number) => Promise<ResultValue>,
  counter: CallCounter,
): Promise<CaseRow> {
  const durations: number[] = []
  let firstMs = 0
  let output = ''
  let value: ResultValue | undefined
  let peak = 0
  let alloc = 0
  let gcInCall = false
  const before = counter.snapshot()
  const titlesBefore = { value: counter.titles() }
  let warmStart: Record<string, number> = before
  for (let index = 0; index <= iterations; index++) {
    if (index === 1) {
      warmStart = counter.snapshot()
      titlesBefore.value = counter.titles()
    }
    fullGc()
    await settleGcEntries()
    const base = heapMB()
    const gcBefore = gcCount
    const started = performance.now()
    // The text as the registry renders it from the value (src/tools/definitions.ts).
    value = await call(index)
    output = renderResult(asJsonValue(value))
    const ms = performance.now() - started
    const after = heapMB()
    await settleGcEntries()
    if (gcCount !== gcBefore) gcInCall = true
    peak = Math.max(peak, after)
    alloc = Math.max(alloc, after - base)
    if (index === 0) firstMs = ms
    else durations.push(ms)
  }
  const end = counter.snapshot()
  const calls: Record<string, number> = {}
  for (const [method, count] of Object.entries(end)) {
    const delta = count - (warmStart[method] ?? 0)
    if (delta > 0) calls[method] = delta / iterations
  }
  const units = output.length
  const chars = codePoints(output)
  return {
    ...row,
    iterations,
    firstMs,
    medianMs: median(durations),
    calls,
    titlesFolded: (counter.titles() - titlesBefore.value) / iterations,
    peakHeapMB: peak,
    callAllocMB: alloc,
    gcInCall,
    outputChars: chars,
    ...(units !== chars ? { outputUnits: units } : {}),
    outputHead: output.split('\n').slice(0, 2).join(' / ').slice(0, 160),
    ...(shownRows(output) === undefined ? {} : { shown: shownRows(output) }),
    ...readOverheadOf(value, output),
    load: loadavg()[0],
  }
}
