/**
 * What the session of a headless run's own task takes from the home store
 * while the run lives: nothing. Pure.
 *
 * rc.8's one-shot runner (`@deepseek-ai/dsh-headless@0.1.0-rc.8`
 * lib/index.js `run`) admits the task, awaits `agent.whenIdle()`, prints the
 * text of the last `assistant/message` of any turn since the task
 * (`summarize`), then asks `ctx.appExit`. A peer message or notice admitted
 * into that session while the run lives starts a turn the runner waits for,
 * and that turn's answer is printed in place of the task's; a turn started
 * after the print is cut off by the exit. rc.8 gives a plugin no say over
 * what is printed. So such messages stay `pending` in the store (delivered at
 * that session's next turn, or where the sender's waking allows once the run
 * has ended), and the terminal is told of each on stderr, apart from the
 * answer (docs/tools.md "A headless run's own task", docs/architecture.md §8).
 *
 * @module dsh-cross-session/home/run-task
 */

/** Where a session held here is live. */
export interface HeldWhere {
  /** This process is an rc.8 one-shot run (`dsh --profile headless`: it provides `headlessStartup`). */
  readonly headlessRun: boolean
  /** This package woke the session here (for a send or an adoption), rather than the run creating it for its task. */
  readonly wokenHere: boolean
}

/** Whether messages waiting in the store for a session held `where` are claimed and admitted now. */
export function takesStored(where: HeldWhere): boolean {
  return !where.headlessRun || where.wokenHere
}

/** What a kept message says of itself (a stored message's fields). */
export interface KeptMessage {
  readonly sender: string
  /** Set on a notice: how the watched turn ended. */
  readonly notice?: string
}

/**
 * The stderr line for one message kept out of a headless run's own session
 * (one line, `dsh-cross-session:` first, so a terminal user or a script can
 * tell it from the answer on stdout).
 */
export function keptLine(sessionId: string, message: KeptMessage): string {
  const what = message.notice === undefined
    ? `a message from session ${message.sender}`
    : `a notice (session ${message.sender}: turn ${message.notice})`
  return `dsh-cross-session: ${what} arrived for ${sessionId} during this run; it waits in the cross-session store `
    + 'for that session\'s next turn (this run prints only its own task\'s answer).\n'
}
