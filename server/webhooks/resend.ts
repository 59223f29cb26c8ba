import { sql } from 'drizzle-orm';
import type { Ctx } from '../context';
import { oldestRetainedId } from '../history/window';
import { newId } from '../ids';
import { enqueueMany } from '../outbox/enqueue';
import { DELIVER } from '../outbox/queues';

/**
 * Sends events to one subscription again, with their original ids: each gets its delivery (created for
 * an event never sent to it, reopened otherwise) and a deliver job for its next attempt, recorded with
 * `trigger`. A delivery still pending (in flight, or waiting for a retry) is left to that: it is not sent
 * twice at once. Decided: a reopened delivery renders the event in the subscription's version now
 * (`apiVersion`), not the one of its first attempt: a partner who moved a subscription to a newer version
 * and backfills it wants the shape its receiver now reads. Its own retries keep that version. Returns the
 * events sent. An event past the retention window is never reopened (server/history/window.ts): retention drops a
 * week once none of its deliveries is pending, and this keeps one from becoming pending after it looked.
 */
export async function resendEvents(
  tx: Ctx,
  input: {
    subscriptionId: string;
    events: { id: string; type: string }[];
    /** The subscription's version now: what the reopened deliveries render their events in. */
    apiVersion: string;
    trigger: 'manual' | 'replay';
    /** Who asked (requesterOf), recorded on each attempt. */
    requestedBy: string;
    replayId?: string;
  },
): Promise<string[]> {
  if (input.events.length === 0) return [];
  const rows = input.events.map((e) => ({ id: newId(), event_id: e.id, event_type: e.type }));
  const reopened = await tx.db.execute<{ id: string; event_id: string; attempts: number }>(sql`
    insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, api_version, replay_id, created_at,
      updated_at)
    select x.id, x.event_id, ${input.subscriptionId}, x.event_type, 'pending', 0, ${input.apiVersion}, ${input.replayId ?? null}, now(), now()
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id text, event_id text, event_type text)
    where x.event_id >= ${oldestRetainedId(tx.env)}
    on conflict (event_id, subscription_id) do update
      set status = 'pending', api_version = excluded.api_version, replay_id = excluded.replay_id, claimed_until = null,
        next_attempt_at = null, updated_at = now()
      where webhook_deliveries.status <> 'pending'
    returning id, event_id, attempts`);
  await enqueueMany(
    tx,
    DELIVER,
    reopened.map((d) => ({
      data: {
        delivery_id: d.id,
        event_id: d.event_id,
        subscription_id: input.subscriptionId,
        attempt: d.attempts + 1,
        trigger: input.trigger,
        requested_by: input.requestedBy,
      },
      // Live deliveries' retries are fetched first; a backfill waits behind them.
      ...(input.trigger === 'replay' ? { priority: -1 } : {}),
    })),
  );
  return reopened.map((d) => d.event_id);
}
