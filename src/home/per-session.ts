/**
 * Work per session, one at a time: a queue that runs each job after the
 * previous one for the same session (claims and admissions keep posting
 * order), and a coalescing runner that runs a job once more if it was asked
 * for while running (one flush at a time; what arrives meanwhile goes with
 * the next).
 *
 * @module dsh-cross-session/home/per-session
 */

/** One queue and one coalescing runner per session id. */
export class PerSession {
  private readonly chains = new Map<string, Promise<void>>()
  private readonly running = new Set<string>()
  private readonly again = new Set<string>()
  private readonly report: (sessionId: string, error: unknown) => void

  /** @param report - where a job's failure goes (it never rejects the queue). */
  constructor(report: (sessionId: string, error: unknown) => void) {
    this.report = report
  }

  /** Run `job` after every job queued before it for `sessionId`; resolves once it ran. */
  queue(sessionId: string, job: () => void | Promise<void>): Promise<void> {
    const previous = this.chains.get(sessionId) ?? Promise.resolve()
    const next = previous.then(job).catch((error: unknown) => this.report(sessionId, error))
    this.chains.set(sessionId, next)
    void next.finally(() => {
      if (this.chains.get(sessionId) === next) this.chains.delete(sessionId)
    })
    return next
  }

  /** Run `job` for `sessionId` now, or once more right after the run under way. */
  coalesce(sessionId: string, job: () => Promise<void>): void {
    if (this.running.has(sessionId)) {
      this.again.add(sessionId)
      return
    }
    this.running.add(sessionId)
    void (async () => {
      try {
        do {
          this.again.delete(sessionId)
          await job()
        } while (this.again.has(sessionId))
      } catch (error: unknown) {
        this.report(sessionId, error)
      } finally {
        this.running.delete(sessionId)
      }
    })()
  }
}
