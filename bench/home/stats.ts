/**
 * Order statistics of the home bench's samples (ms).
 *
 * @module bench/home/stats
 */

/** Median, 95th percentile (nearest rank) and maximum of a sample. */
export interface Summary {
  n: number
  median: number
  p95: number
  max: number
}

/** Summarise `values`; `NaN` figures for an empty sample. */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b)
  const n = sorted.length
  if (n === 0) return { n, median: Number.NaN, p95: Number.NaN, max: Number.NaN }
  const mid = n >> 1
  const median = n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  return { n, median, p95: sorted[Math.min(n - 1, Math.ceil(n * 0.95) - 1)]!, max: sorted[n - 1]! }
}

/** `median 2.1 ms, p95 4.0 ms, max 9.3 ms`. */
export function describeSummary(summary: Summary, digits = 1): string {
  const ms = (value: number): string => `${value.toFixed(digits)} ms`
  return `median ${ms(summary.median)}, p95 ${ms(summary.p95)}, max ${ms(summary.max)}`
}
