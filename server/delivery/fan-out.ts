import { and, inArray, isNull, sql } from 'drizzle-orm';
import { events, webhookSubscriptions } from '@/db/schema';
import { rawSqlOf, type Executor } from '@/db/client';
import type { Ctx } from '../context';
import { isAudience } from '../events/catalog';
import { newId } from '../ids';
import { bodyRenderer, claimedAttemptOf, subscriptionFields, type ClaimedAttempt } from './claimed-attempt';
import { receivesDeliveries } from './disabled';

export interface FanOutResult {
  /** Events found (a purged one is not). */
  found: number;
  /** First attempts claimed for the caller to make now: one per enabled matching subscription. */
  claimed: ClaimedAttempt[];
  /** Deliveries recorded as skipped: their subscription is disabled. */
  skipped: number;
}

/**
 * Fans committed events out to the matching subscriptions of their partner and environment: one
 * delivery per (event, subscription), unique, so a retried fan-out creates nothing twice. Empty
 * filters match every catalog type; webhook.test goes only to the subscription it was sent for.
 * Disabled subscriptions get a `skipped` delivery, so a later replay can find what they missed.
 * Subscriptions created after the event are not its audience, however late the fan-out runs.
 *
 * The first attempt of each new delivery is claimed in the same statement and handed back, so the
 * caller (`input.holder`, its heartbeat id) sends it at once: no job per delivery. A caller that dies
 * holding them lets the claims lapse, and the sweeper (leases.ts) gives those attempts to another worker.
 */
export async function fanOutEvents({ ctx, input }: { ctx: Ctx; input: { eventIds: string[]; holder: string } }): Promise<FanOutResult> {
  if (input.eventIds.length === 0) return { found: 0, claimed: [], skipped: 0 };
  // Two round trips, not five: the events and their partners' subscriptions are read at once (two statements on
  // two connections), and the insert reads each event again in its own statement (a purged one gets no delivery;
  // retention cannot drop the event's week under it). A transaction around the reads and the insert added BEGIN and
  // COMMIT, and every round trip is where a live event waits while a replay keeps the machine busy: fan-out took
  // 4 ms p50 alone and 34 ms during a replay at 1,947 events/s, half of a live event's 67 ms from its commit to its
  // attempt; in two round trips, 23 ms (bench replay, 2026-11-28, one run each: the live figures the bench prints
  // stayed within this machine's noise).
  const { db } = ctx;
  const reads = readsFor(db, input.eventIds.length);
  const byId = Object.fromEntries(input.eventIds.map((id, i) => [`id${i}`, id]));
  const [found, subscriptions] = await Promise.all([reads.events.execute(byId), reads.subscriptions.execute(byId)]);
  if (found.length === 0) return { found: 0, claimed: [], skipped: 0 };
  const now = new Date();
  const pairs = found.flatMap((event) =>
    subscriptions
      .filter((s) => s.partnerId === event.partnerId && s.environment === event.environment)
      // As at Stripe and Svix, an endpoint hears of what happens after it exists: a subscription made
      // between an event's commit and its fan-out does not get it live (a `missing` replay finds it).
      .filter((s) => s.createdAt <= event.createdAt)
      .filter((s) => isAudience(event, s))
      .map((subscription) => ({ event, subscription, enabled: receivesDeliveries(subscription) })),
  );
  if (pairs.length === 0) return { found: found.length, claimed: [], skipped: 0 };
  const rows = pairs.map(({ event, subscription, enabled }) => ({
    id: newId(),
    event_id: event.id,
    subscription_id: subscription.id,
    event_type: event.type,
    status: enabled ? 'pending' : 'skipped',
    attempts: enabled ? 1 : 0,
    // The subscription's version now: every attempt of this delivery renders the event in it.
    api_version: subscription.apiVersion,
  }));
  // One parameter for every row: Drizzle's insert builder spent more CPU mapping 500 rows' values
  // than the database spent inserting them (`npm run bench -- delivery --profile`). Written with postgres.js, as
  // the reads above are prepared: Drizzle built this text again for every batch (~2.5 % of the main thread at 50
  // live events/s, perf).
  const sqlOf = rawSqlOf(db);
  const created = await sqlOf<{ id: string; eventId: string; subscriptionId: string; status: string }[]>`
    insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, api_version, claimed_until,
      claimed_by, created_at, updated_at)
    -- Claimed on the database's clock, which the sweeper reads too.
    select id, event_id, subscription_id, event_type, status::webhook_delivery_status, attempts, api_version,
      case when attempts = 1 then now() + make_interval(secs => ${ctx.env.WEBHOOK_CLAIM_SECONDS}) end,
      case when attempts = 1 then ${input.holder}::text end,
      ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as x(id text, event_id text, subscription_id text, event_type text, status text, attempts int, api_version text)
    where event_id in (select id from events where id in ${sqlOf(input.eventIds)})
    on conflict (event_id, subscription_id) do nothing
    returning id, event_id as "eventId", subscription_id as "subscriptionId", status`;
  const pairOf = new Map(pairs.map((p) => [`${p.event.id}:${p.subscription.id}`, p]));
  // Each event is rendered once per version, whatever the number of subscriptions on it.
  const render = bodyRenderer();
  const claimed: ClaimedAttempt[] = [];
  for (const delivery of created) {
    if (delivery.status !== 'pending') continue;
    const { event, subscription: s } = pairOf.get(`${delivery.eventId}:${delivery.subscriptionId}`)!;
    claimed.push(
      claimedAttemptOf(
        {
          id: delivery.id,
          ...subscriptionFields(s),
          attempt: 1,
          trigger: 'scheduled',
          event_type: event.type,
          event_id: event.id,
          api_version: s.apiVersion,
          envelope: event.envelope,
          previous_attributes: event.previousAttributes,
          due_at: event.createdAt,
        },
        render,
      ),
    );
  }
  return { found: found.length, claimed, skipped: created.length - claimed.length };
}

/**
 * The fan-out's two reads for a batch of `count` events, built once per database handle and count: Drizzle built
 * both again for every fetched batch, and at 50 live events/s (one event a batch) building them was ~8 % of the
 * service's main thread (perf, `npm run bench -- replay`'s live stream alone). The events are named one parameter
 * each, as inArray names them, not as one array: Postgres prunes the weekly partitions by a list of parameters at
 * execution, and cannot by an array parameter in a generic plan. A batch of more than MAX_PREPARED_BATCH events is
 * built each time.
 */
function readsFor(db: Executor, count: number) {
  let byCount = preparedReads.get(db);
  if (!byCount) preparedReads.set(db, (byCount = new Map()));
  let reads = byCount.get(count);
  if (!reads) {
    reads = buildReads(db, count);
    if (count <= MAX_PREPARED_BATCH) byCount.set(count, reads);
  }
  return reads;
}

const MAX_PREPARED_BATCH = 500;
const preparedReads = new WeakMap<Executor, Map<number, ReturnType<typeof buildReads>>>();

function buildReads(db: Executor, count: number) {
  const ids = () =>
    inArray(
      events.id,
      Array.from({ length: count }, (_, i) => sql.placeholder(`id${i}`)),
    );
  return {
    events: db.select().from(events).where(ids()).prepare(`fan_out_events_${count}`),
    subscriptions: db
      .select()
      .from(webhookSubscriptions)
      .where(
        and(
          isNull(webhookSubscriptions.deletedAt),
          inArray(
            sql`(${webhookSubscriptions.partnerId}, ${webhookSubscriptions.environment})`,
            db.selectDistinct({ partnerId: events.partnerId, environment: events.environment }).from(events).where(ids()),
          ),
        ),
      )
      .prepare(`fan_out_subscriptions_${count}`),
  };
}
