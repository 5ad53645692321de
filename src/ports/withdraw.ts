/**
 * The withdraw half of the home store port (docs/tools.md#withdrawing-a-message,
 * docs/architecture.md §8, "Withdraw"): one transition that takes a waiting
 * message back, or says where it is. Shapes: `src/model/withdraw.ts`; the
 * transition in SQLite: `src/home/store-withdraw.ts`.
 *
 * @module dsh-cross-session/ports/withdraw
 */

import type { WithdrawOutcome, WithdrawWhich } from '../model/withdraw.js'

/** The withdraw transition of the home store port. */
export interface WithdrawStore {
  /**
   * Withdraw `sender`'s message `which` (the newest match), in one
   * transaction: `pending` or `held` (and not yet expired) → withdrawn; its
   * notice request, if any, is dropped (`withdrawn`). Anything else is left
   * as it is and reported. Only the message's sender can withdraw it.
   */
  withdraw(sender: string, which: WithdrawWhich): WithdrawOutcome
}
