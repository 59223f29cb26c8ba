import { sql, type SQL } from 'drizzle-orm';
import type { webhookSubscriptions } from '@/db/schema';
import type { Ctx } from '../context';
import { bodyRenderer, claimedAttemptOf, subscriptionFields, type ClaimedAttempt } from '../delivery/claimed-attempt';
import { oldestRetainedId } from '../history/window';
import { newId } from '../ids';
import { enqueueMany } from '../outbox/enqueue';
import { DELIVER } from '../outbox/queues';

interface ResendInput {
  subscriptionId: string;
  events: { id: string; type: string }[];
  /** The subscription's version now: what the reopened deliveries render their events in. */
  apiVersion: string;
  trigger: 'manual' | 'replay';
  /** Who asked (requesterOf), recorded on each attempt. */
  requestedBy: string;
  replayId?: string;
}

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
export async function resendEvents(tx: Ctx, input: ResendInput): Promise<string[]> {
  if (input.events.length === 0) return [];
  const reopened = await tx.db.execute<{ id: string; event_id: string; attempts: number }>(sql`
    ${upsertDeliveries(tx, input, undefined)} returning id, event_id, attempts`);
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

/**
 * As resendEvents, but each delivery's next attempt is claimed in `holder`'s name in the same statement
 * and handed back with its body, as fan-out hands over first attempts (server/delivery/fan-out.ts): no
 * deliver job, no second statement to claim it. The caller (a replay's page, in a worker) gives them to
 * its delivery engine once the transaction commits; a caller that dies holding them lets the claims
 * lapse, and the sweeper (server/delivery/leases.ts) returns them to the queue.
 */
export async function resendClaimed(
  tx: Ctx,
  input: ResendInput & { subscription: typeof webhookSubscriptions.$inferSelect; holder: string },
): Promise<ClaimedAttempt[]> {
  if (input.events.length === 0) return [];
  const rows = await tx.db.execute<{
    id: string;
    event_id: string;
    attempts: number;
    envelope: string;
    previous_attributes: string | null;
  }>(sql`
    with claimed as (${upsertDeliveries(tx, input, input.holder)} returning id, event_id, attempts)
    select c.id, c.event_id, c.attempts, e.envelope, e.previous_attributes
    from claimed c join events e on e.id = c.event_id`);
  const s = input.subscription;
  const typeOf = new Map(input.events.map((e) => [e.id, e.type]));
  const render = bodyRenderer();
  const now = new Date();
  return rows.map((row) =>
    claimedAttemptOf(
      {
        id: row.id,
        ...subscriptionFields(s),
        attempt: row.attempts,
        trigger: input.trigger,
        requested_by: input.requestedBy,
        event_type: typeOf.get(row.event_id)!,
        event_id: row.event_id,
        api_version: input.apiVersion,
        envelope: row.envelope,
        previous_attributes: row.previous_attributes,
        due_at: now,
      },
      render,
    ),
  );
}

/**
 * The one statement that creates or reopens the deliveries (the rule resendEvents states), up to its
 * `returning`. With a holder, each delivery's next attempt is claimed: counted, and leased on the
 * database's clock, which the sweeper reads too.
 */
function upsertDeliveries(tx: Ctx, input: ResendInput, holder: string | undefined): SQL {
  const rows = input.events.map((e) => ({ id: newId(), event_id: e.id, event_type: e.type }));
  const lease = holder === undefined ? sql`null::timestamptz` : sql`now() + make_interval(secs => ${tx.env.WEBHOOK_CLAIM_SECONDS})`;
  return sql`
    insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, api_version, replay_id, claimed_until,
      claimed_by, created_at, updated_at)
    select x.id, x.event_id, ${input.subscriptionId}, x.event_type, 'pending', ${holder === undefined ? 0 : 1}, ${input.apiVersion},
      ${input.replayId ?? null}, ${lease}, ${holder ?? null}, now(), now()
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id text, event_id text, event_type text)
    where x.event_id >= ${oldestRetainedId(tx.env)}
    on conflict (event_id, subscription_id) do update
      set status = 'pending', api_version = excluded.api_version, replay_id = excluded.replay_id,
        attempts = webhook_deliveries.attempts + excluded.attempts, claimed_until = excluded.claimed_until,
        claimed_by = excluded.claimed_by, next_attempt_at = null, updated_at = now()
      where webhook_deliveries.status <> 'pending'`;
}
