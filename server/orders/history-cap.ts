import { ConflictError } from '../errors';
import { TERMINAL, type OrderStatus } from './state-machine';

// Issue 21: one sandbox order flipped courier_assigned <-> created 3,000 times held 3,001 history entries; each
// event embedded them all (207 MB of envelopes, the largest 137 KB) and the console's timeline of that order took
// 12-14 s. A real order never comes near 100: the happy path is 6 entries, the longest scenario 8, and each courier
// reassignment costs 2, so 100 allows 47 reassignments. 100 entries are about 4.8 KB of JSON in an envelope.
export const STATUS_HISTORY_CAP = 100;

/**
 * Whether an order whose status_history holds `entries` may move to `to`. A move that ends the order (delivered,
 * returned, cancelled) always may: every open status has one, so the cap never strands an order (the partner's
 * cancel, the sandbox timeout and an operator can always finish it), and after it nothing moves. Any other move
 * may only while it leaves the last entry free for that one, so a history holds at most STATUS_HISTORY_CAP
 * entries. Effects: applyMove refuses with `order_history_full` when false; a scenario step stops quietly.
 */
export function roomForMove(entries: number, to: OrderStatus): boolean {
  return TERMINAL.has(to) || entries < STATUS_HISTORY_CAP - 1;
}

export class OrderHistoryFullError extends ConflictError {
  constructor(entries: number) {
    super(
      'order_history_full',
      `This order's status history holds ${entries} entries: an order keeps at most ${STATUS_HISTORY_CAP}, the last ` +
        'reserved for ending it. Only delivering, returning or cancelling it is accepted now.',
      { limit: STATUS_HISTORY_CAP },
    );
  }
}
