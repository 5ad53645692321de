/**
 * The floors of the big-corpus calls (docs/performance.md "Each call against
 * its floor"), measured inside the same harness process as the package's
 * calls, on the same files, one thread at a time, right after each call (a
 * first call's also as a first run, below):
 * what the call must read at least to answer exactly, and nothing else (no
 * parsing, no ordering, no output; decoding only where the answer is inside
 * compressed frames).
 *
 * - **warm `sessions_list {query}`**: a bare `stat` of every candidate log
 *   (`statSync(path, { bigint: true })`, one thread). Any log can have been
 *   appended to since the last call, and an append moves nothing but the
 *   log's own `stat`, so an exact title filter checks each candidate.
 * - **a new process's first `sessions_list {}`**: the set of logs now (a
 *   `readdir` of the root and of each project directory, names only), each
 *   `corpus_logs` row's key and the header fields a list filters and orders
 *   by (the columns `src/home/corpus-row-scan.ts` scans, rows as arrays read
 *   in chunks, nothing decoded or kept: which listed logs have a row, and
 *   how many pass the filters; reading the header frames from the logs
 *   instead costs far more), the shown rows whole (26: the 25 shown and the
 *   next), and the revision of each shown row (25 `stat`s, for its title).
 * - **the first `sessions_list {query}` of a process that already listed**
 *   (the bench's order): the same `stat` of every candidate log.
 * - **the first query on an unindexed home** (no rows yet): the set of logs,
 *   every log read whole (`readFileSync`), and what of it must be decoded:
 *   the header frame, and the frames from the end until one holds a
 *   `session/title` event (a title is the last such event; the title fold,
 *   `index/jsonl-files.ts` `readTitle`, decodes the same). The bytes alone
 *   answer nothing: the header's fields and the title are inside compressed
 *   frames.
 *
 * A first call's floor runs as a first run ({@link firstRunFloor}): the
 * call ran code this process had not run before and grew a young
 * generation it had not needed, and a floor timed afterwards in the same
 * process pays neither. Measured on the bench home of 10,000 sessions
 * (4 December, 2-core EPYC): the first list's floor took 30–35 ms as a
 * first run and 14–21 ms as the third run of one process; the stat of
 * every candidate 103–136 ms and 59–75 ms.
 *
 * Plain JavaScript: the harness's loader imports it as is.
 *
 * @module bench/harness/floors
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { ALL_ROWS_CHUNK as CHUNK, COLUMNS } from '../../lib/home/corpus-row-read.js'
import { SCAN_COLUMNS } from '../../lib/home/corpus-row-scan.js'
import { createFrameDecoder, scanFrames } from '../../lib/harness/zstd.js'
import { TITLE_TYPE } from '../../lib/index/plan.js'

// The columns a new process's first list scans, and the rows per statement (src/home/corpus-row-scan.ts); `rowid`
// is the last of them.
const ROWID = SCAN_COLUMNS.split(',').length - 1
/** Rows a `sessions_list {}` shows by default (docs/tools.md). */
const SHOWN = 25

/** Every session directory's log path under the root (untimed: the floors' input). */
function logPaths(root, fileName) {
  const paths = []
  for (const project of readdirSync(root)) {
    for (const dir of readdirSync(join(root, project))) paths.push(`${root}/${project}/${dir}/${fileName}`)
  }
  return paths
}

/**
 * The floors of one JSONL root.
 * @param layout - `{ root, fileName }` (the backend's `locate()`, as `index/jsonl-layout.ts` reads it).
 * @param storeFile - the home store (`$DSH_HOME/cross-session/store.sqlite`).
 * @returns timers, each returning ms; `paths` is the number of logs.
 */
export async function corpusFloors(layout, storeFile) {
  const { root, fileName } = layout
  const rowsKey = `${root}\0${fileName}`
  const paths = logPaths(root, fileName)
  const { DatabaseSync } = await import('node:sqlite')
  // Opened before a floor's clock starts (the package's store connection is open before its calls).
  let db
  const open = () => {
    if (db === undefined && existsSync(storeFile)) db = new DatabaseSync(storeFile, { readOnly: true })
  }
  // The cheapest read of every row found: chunks in rowid order, each chunk dropped before the next (one
  // `statement.all()` of every row keeps them all alive, and at 100,000 rows the collections copying them cost
  // 3–5 times the reads).
  const rows = () => {
    if (db === undefined) return 0
    const statement = db.prepare(`SELECT ${SCAN_COLUMNS} FROM corpus_logs WHERE root = ? AND rowid > ? ORDER BY rowid LIMIT ${CHUNK}`)
    statement.setReturnArrays?.(true)
    let count = 0
    for (let after = 0; ;) {
      const chunk = statement.all(rowsKey, after)
      count += chunk.length
      if (chunk.length < CHUNK) return count
      const last = chunk[chunk.length - 1]
      after = Array.isArray(last) ? last[ROWID] : last.rowid
    }
  }
  // The rows shown, whole, by key (which ones is the product's answer: any 26 cost the same).
  const shownRows = () => {
    if (db === undefined) return
    const statement = db.prepare(`SELECT ${COLUMNS} FROM corpus_logs WHERE path = ?`)
    for (const path of paths.slice(0, SHOWN + 1)) statement.get(path)
  }
  const listing = () => {
    let count = 0
    for (const project of readdirSync(root)) count += readdirSync(join(root, project)).length
    return count
  }
  const statAll = list => {
    for (const path of list) statSync(path, { bigint: true, throwIfNoEntry: false })
  }
  const timed = work => () => {
    open()
    globalThis.gc?.()
    const started = performance.now()
    work()
    return performance.now() - started
  }
  return {
    paths: paths.length,
    queryWarm: timed(() => statAll(paths)),
    listFirst: timed(() => {
      listing()
      rows()
      shownRows()
      statAll(paths.slice(0, SHOWN))
    }),
    unindexedQuery: timed(() => {
      listing()
      const compressed = fileName.endsWith('.zstd')
      let decoder = createFrameDecoder()
      try {
        for (const path of paths) {
          let bytes
          try {
            bytes = readFileSync(path)
          } catch {
            continue // A directory without a log: nothing to read.
          }
          try {
            if (compressed) decodeWhatAnAnswerNeeds(bytes, decoder)
          } catch {
            // A corrupt log (no answer shows it either); its context is not reused.
            decoder.close()
            decoder = createFrameDecoder()
          }
        }
      } finally {
        decoder.close()
      }
    }),
    close: () => db?.close(),
  }
}

/**
 * The least of one compressed log an exact answer decodes: its header frame
 * (the fields a list filters and shows), and its frames from the end until one
 * holds a `session/title` event (the title is the last one; a frame cannot be
 * decoded from its middle, and nothing says which frame holds it without
 * decoding). (A plain-text log, `session.jsonl`, needs no decoding.)
 * @param bytes - the whole log.
 * @param decoder - one zstd context, reused (the fastest decoder Node offers: `createFrameDecoder`).
 */
function decodeWhatAnAnswerNeeds(bytes, decoder) {
  const frames = scanFrames(bytes)
  if (frames.length === 0) return
  decoder.decode(bytes.subarray(frames[0].start, frames[0].end))
  for (let index = frames.length - 1; index >= 1; index--) {
    const frame = frames[index]
    if (decoder.decode(bytes.subarray(frame.start, frame.end)).lastIndexOf(TITLE_TYPE) >= 0) return
  }
}

/**
 * A worker thread's whole program: this module's floors of the root, one of them timed once (its first run in a new
 * V8 isolate: nothing compiled, the young generation at its start size), its ms posted back.
 */
const FIRST_RUN_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
import(workerData.module).then(async ({ corpusFloors }) => {
  const floors = await corpusFloors(workerData.layout, workerData.storeFile)
  try {
    parentPort.postMessage(floors[workerData.name]())
  } finally {
    floors.close()
  }
})`

/**
 * The floor `name` as a first run: timed once in each of `runs` new worker threads, one after another (one thread
 * works at a time, as the call's own thread did), on the same files and store; their median, ms. A worker is a new
 * isolate of this process: the state a first call starts from, less what the process has already compiled (so it
 * is no more generous than a new process).
 * @throws when a worker fails (the bench reports the case as failed).
 */
export async function firstRunFloor(name, layout, storeFile, runs) {
  const times = []
  for (let run = 0; run < runs; run++) {
    times.push(await new Promise((resolve, reject) => {
      const worker = new Worker(FIRST_RUN_SOURCE, { eval: true, execArgv: [], workerData: { module: import.meta.url, layout, storeFile, name } })
      worker.once('message', ms => {
        resolve(ms)
        void worker.terminate()
      })
      worker.once('error', reject)
      worker.once('exit', code => reject(new Error(`the floor's worker exited (${code}) before it answered`)))
    }))
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

/** What each floor is, as printed beside it. */
export const FLOOR_WHAT = {
  queryWarm: 'stat of every candidate log',
  listFirst: 'readdir of root + projects, every corpus_logs row\'s key and filter columns (in chunks), 26 rows whole, 25 stats',
  unindexedQuery: 'readdir of root + projects, every log read whole, its header frame and its frames from the end to a title decoded',
}
