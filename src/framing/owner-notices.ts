/**
 * Notices this package steers into a session it woke (a `plugin` source,
 * form `notice`: the model reads them as context, never as its user):
 * inbox messages restored after the process that held the session stopped
 * (`src/home/owner-delivery.ts`), and peer messages a crash left unanswered
 * (`src/home/reoffer.ts`). docs/architecture.md §8.
 *
 * @module dsh-cross-session/framing/owner-notices
 */

/** One peer message a crash cut off: its sender and its seq in the target's log, when known. */
interface CutOffMessage {
  readonly sender: string
  readonly seq: number | undefined
}

/** The two owner notices: a summary (the row's one line) and the text the model reads. */
export const ownerNotices = {
  restoredInbox: {
    summary: 'Peer messages restored from the inbox',
    text: '[dsh-cross-session notice] This session was opened again after the dsh process that held it stopped. '
      + 'Peer messages that were waiting in its inbox are delivered with this turn; answer them as usual.',
  },
  cutOff: (messages: readonly CutOffMessage[]): { summary: string, text: string } => ({
    summary: `${messages.length} peer message${messages.length === 1 ? '' : 's'} left unanswered`,
    text: '[dsh-cross-session notice] The dsh process running this session ended while it was answering, '
      + 'so these peer messages above got no answer: '
      + messages.map(message => `from session ${message.sender}${message.seq === undefined ? '' : ` (seq ${message.seq})`}`).join('; ')
      + '. Answer them now (with sessions_send to the sender if it asked for a reply).',
  }),
} as const
