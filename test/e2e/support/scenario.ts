/**
 * Scenario building blocks for the fake model: route each request to the
 * script of the session it came from, and write scripts as a list of steps.
 *
 * Routing is by a marker in the session's *first* real user message (e.g.
 * `ROLE:A`), which stays in the session's history for its whole life, so a
 * session woken later by a cross-session message still reaches its own
 * script. Within a script, the position is counted from the session's last
 * real user message (the one that triggered this turn, or a steered or
 * delivered peer message): step 0 answers it, step k follows the k-th tool
 * round after it.
 * @module test/e2e/support/scenario
 */
import { isInjected, textOf, type ModelRequest, type Reply, type Scenario, type ScriptedCall, type ToolResult, type WireMessage } from './fake-model.ts'

/** Where a request sits in its session's current turn. */
export interface Turn {
  /** Tool rounds since the last real user message. */
  step: number
  /** Text of that user message. */
  trigger: string
  /** Results of the newest tool round (empty at step 0). */
  results: ToolResult[]
  request: ModelRequest
}

export type ActorScript = (turn: Turn) => Reply | Promise<Reply>

function realUserIndexes(messages: WireMessage[]): number[] {
  return messages.flatMap((m, i) => (m.role === 'user' && !isInjected(textOf(m)) ? [i] : []))
}

/** The {@link Turn} view of a request. */
export function turnOf(request: ModelRequest): Turn {
  const indexes = realUserIndexes(request.messages)
  const last = indexes.at(-1) ?? -1
  const after = request.messages.slice(last + 1)
  return {
    step: after.filter(m => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0).length,
    trigger: last >= 0 ? textOf(request.messages[last]) : '',
    results: request.toolResults,
    request,
  }
}

/** First real user text of a request (the routing key's home). */
export function firstUserText(request: ModelRequest): string {
  const first = realUserIndexes(request.messages)[0]
  return first === undefined ? '' : textOf(request.messages[first])
}

/**
 * Route requests by marker: the first actor whose key occurs in the
 * session's first real user message answers. Unrouted requests get a plain
 * text answer (never an empty one).
 */
export function router(actors: Record<string, ActorScript>): Scenario {
  return request => {
    const first = firstUserText(request)
    for (const [key, script] of Object.entries(actors)) if (first.includes(key)) return script(turnOf(request))
    return { text: `unrouted request ${request.index}` }
  }
}

export type StepSpec = ScriptedCall | ((turn: Turn) => ScriptedCall | Reply | Promise<ScriptedCall | Reply>)

/**
 * A script that makes the given calls one per step, then answers `final`.
 * A step function may return a full {@link Reply} (e.g. with `delayMs`).
 */
export function steps(list: StepSpec[], final: string | ((turn: Turn) => string | Reply | Promise<Reply>)): ActorScript {
  return async turn => {
    const spec = list[turn.step]
    if (spec === undefined) {
      if (typeof final === 'string') return { text: final }
      const out = await final(turn)
      return typeof out === 'string' ? { text: out } : out
    }
    const value = typeof spec === 'function' ? await spec(turn) : spec
    return 'name' in value && 'args' in value ? { calls: [value as ScriptedCall] } : (value as Reply)
  }
}

/** A script that only ever answers with text. */
export function says(text: string | ((turn: Turn) => string)): ActorScript {
  return turn => ({ text: typeof text === 'string' ? text : text(turn) })
}

/**
 * Two actors for "a peer message while the target is mid-turn": `ROLE:A`
 * holds its first model answer (`ALPHA-FIRST-ANSWER`) until {@link release},
 * so it is running a turn, and answers anything later with `ALPHA-SAW-PEER`;
 * `ROLE:B` makes one `sessions_send` of `<MODE>-BODY from Bravo` in `mode`
 * to `target()`, then says `B done`.
 */
export function heldTurnScenario(mode: 'steer' | 'queue', target: () => string): { scenario: Scenario, held: () => boolean, release: () => void } {
  let release!: () => void
  const gate = new Promise<void>(resolve => { release = resolve })
  let held = false
  const scenario = router({
    'ROLE:A': async turn => {
      if (turn.trigger.includes('ROLE:A') && turn.step === 0) {
        held = true
        await gate
        return { text: 'ALPHA-FIRST-ANSWER' }
      }
      return { text: 'ALPHA-SAW-PEER' }
    },
    'ROLE:B': steps([() => ({ name: 'sessions_send', args: { session_id: target(), message: `${mode.toUpperCase()}-BODY from Bravo`, mode } })], 'B done'),
  })
  return { scenario, held: () => held, release }
}

/**
 * A cold sleeper woken by a caller, in one headless run of the caller:
 * `ROLE:A` says `Alpha is done for now`, and answers `reply` (after
 * `replyDelayMs`, default 1500: longer than a headless run needs to exit)
 * to a turn `isPeerMessage` recognises. `ROLE:B` sends `body` (queue) to
 * `target()` and, at its very next step, reads A. Nothing in the script
 * keeps B's run open for A's answer: a headless run ends when its own
 * session is idle and disposes the sessions it woke
 * (`@deepseek-ai/dsh-headless@0.1.0-rc.8` lib/index.js), so A's reply is in
 * the read only because the send waited for A's turn to end
 * (`answerWaitMs`, docs/tools.md "sessions_send"). Titles: `Alpha sleeper`
 * and `Bravo caller`.
 */
export function sleeperScenario(options: { target: () => string, body: string, isPeerMessage: (trigger: string) => boolean, reply: string, replyDelayMs?: number }): { actors: Record<string, ActorScript>, title: (request: ModelRequest) => string } {
  const actors: Record<string, ActorScript> = {
    'ROLE:A': turn => {
      if (!options.isPeerMessage(turn.trigger)) return { text: 'Alpha is done for now' }
      return { text: options.reply, delayMs: options.replyDelayMs ?? 1500 }
    },
    'ROLE:B': steps([
      () => ({ name: 'sessions_send', args: { session_id: options.target(), message: options.body, mode: 'queue' } }),
      () => ({ name: 'sessions_read', args: { session_id: options.target() } }),
    ], 'B done'),
  }
  return { actors, title: request => (request.allUserText.includes('ROLE:A') ? 'Alpha sleeper' : 'Bravo caller') }
}
