import { sql } from 'drizzle-orm';
import { anyOf } from '@/db/lists';
import type { Ctx } from '../context';
import type { ReplayRow } from './present';

/**
 * A replay's deliveries now: those it last re-sent (a later replay or a redelivery of the same event takes
 * a delivery over, and it leaves these counts).
 */
export interface ReplayDeliveries {
  /** Succeeded. */
  delivered: number;
  /** Failed after every retry. */
  failed: number;
  /** Not sent: the subscription was disabled or deleted before their attempt. */
  skipped: number;
  /** On their way: in flight, due, or waiting for a scheduled retry. */
  pending: number;
  /** Of those, waiting for a retry scheduled later (not claimed, next attempt in the future). */
  retrying: number;
  /** When the first of those is due. */
  nextRetryAt: Date | null;
}

export const NO_DELIVERIES: ReplayDeliveries = { delivered: 0, failed: 0, skipped: 0, pending: 0, retrying: 0, nextRetryAt: null };

export type ReplayPhase = 'sending' | 'delivering' | 'retrying' | 'settled';

/**
 * Where a replay is, in one place. Its `status` says what its page jobs did (`completed`: every page was
 * enqueued, not delivered; `cancelled`, `failed`: they stopped); the phase adds what its deliveries did:
 * - `sending`: pages are still to be enqueued (`queued`, `running`);
 * - `delivering`: no page is left, and a delivery of it is in flight or due;
 * - `retrying`: no page is left, and each delivery still on its way waits for a retry scheduled later (a
 *   failing receiver's, minutes to hours away by the retry schedule): not settled, but nothing moves before then;
 * - `settled`: no page is left and none of its deliveries is pending: each succeeded, failed after every
 *   retry, or was skipped (its subscription disabled meanwhile). A cancelled or failed replay settles too,
 *   once what it had sent ends.
 * The partner API shows `settled` and `events_pending`; the console reads the list again while a replay is
 * sending or delivering, and when the next retry is due while it is retrying.
 */
export function replayPhase(status: ReplayRow['status'], deliveries: Pick<ReplayDeliveries, 'pending' | 'retrying'>): ReplayPhase {
  if (status === 'queued' || status === 'running') return 'sending';
  if (deliveries.pending === 0) return 'settled';
  return deliveries.retrying === deliveries.pending ? 'retrying' : 'delivering';
}

/**
 * The deliveries of these replays by outcome: one statement over the replay index (replay id, status), and a
 * second over the pending ones only (their claim and next attempt), for the replays that have any.
 */
export async function replayDeliveries(ctx: Ctx, replayIds: string[]): Promise<Map<string, ReplayDeliveries>> {
  const found = new Map<string, ReplayDeliveries>();
  if (replayIds.length === 0) return found;
  const byStatus = await ctx.db.execute<{ replay_id: string; status: 'pending' | 'succeeded' | 'failed' | 'skipped'; n: number }>(sql`
    select replay_id, status, count(*)::int as n from webhook_deliveries
    where replay_id = ${anyOf(replayIds)}
    group by replay_id, status`);
  for (const row of byStatus) {
    const d = found.get(row.replay_id) ?? { ...NO_DELIVERIES };
    if (row.status === 'succeeded') d.delivered = row.n;
    else if (row.status === 'failed') d.failed = row.n;
    else if (row.status === 'skipped') d.skipped = row.n;
    else d.pending = row.n;
    found.set(row.replay_id, d);
  }
  const waiting = [...found].filter(([, d]) => d.pending > 0).map(([id]) => id);
  if (waiting.length > 0) {
    const retries = await ctx.db.execute<{ replay_id: string; n: number; next: string }>(sql`
      select replay_id, count(*)::int as n, min(next_attempt_at) as next from webhook_deliveries
      where replay_id = ${anyOf(waiting)} and status = 'pending' and claimed_until is null and next_attempt_at > now()
      group by replay_id`);
    for (const row of retries) {
      const d = found.get(row.replay_id)!;
      // A moment after the counts: never more waiting for a retry than were pending.
      d.retrying = Math.min(row.n, d.pending);
      d.nextRetryAt = new Date(row.next);
    }
  }
  return found;
}
