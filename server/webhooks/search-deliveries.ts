import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { events, orders, webhookDeliveries, webhookSubscriptions } from '@/db/schema';
import type { Ctx, Environment, OperatorActor } from '../context';
import { idFloor } from '../ids';

export type DeliveryOutcome = 'pending' | 'succeeded' | 'failed' | 'skipped';
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'none';

export interface DeliveryFilter {
  /** One delivery (the console's delivery page). */
  id?: string;
  partnerId?: string;
  environment?: Environment;
  subscriptionId?: string;
  eventType?: string;
  eventId?: string;
  orderId?: string;
  /** The partner's own reference of the order (unique per partner and environment, so it may name several orders). */
  externalId?: string;
  outcome?: DeliveryOutcome;
  /** The class of the latest attempt's response status; `none`: no response (not attempted, or no HTTP answer). */
  statusClass?: StatusClass;
  since?: Date;
  until?: Date;
}

export interface DeliveryRow {
  id: string;
  eventId: string;
  eventType: string;
  subscriptionId: string;
  partnerId: string;
  environment: Environment;
  url: string;
  orderId: string | null;
  outcome: DeliveryOutcome;
  apiVersion: string;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  replayId: string | null;
  createdAt: Date;
}

/**
 * The latest attempt's status, read per candidate row through each week's webhook_attempts delivery index. No
 * attempt is older than its delivery, so the id floor of the delivery's moment (less an hour, for clocks that
 * differ) lets Postgres skip the weeks before it as it runs: without it every candidate probed every week's index
 * (the 5xx filter's p50 ~4 ms above the other filters' at 10,000,000 attempts, bench operator-queries 2026-11-27).
 */
export const latestStatus = sql`(select a.response_status from webhook_attempts a where a.delivery_id = ${webhookDeliveries.id}
  and a.id >= pdp_id_floor(${webhookDeliveries.createdAt} - interval '1 hour')
  order by a.attempt desc, a.started_at desc limit 1)`;

const OUTCOMES: readonly DeliveryOutcome[] = ['pending', 'succeeded', 'failed', 'skipped'];

function outcomeLiteral(outcome: DeliveryOutcome): DeliveryOutcome {
  if (!OUTCOMES.includes(outcome)) throw new Error(`searchDeliveries: unknown outcome ${JSON.stringify(outcome)}`);
  return outcome;
}

function statusClassCondition(cls: StatusClass): SQL {
  if (cls === 'none') return sql`${latestStatus} is null`;
  const low = Number(cls[0]) * 100;
  return sql`${latestStatus} between ${low} and ${low + 99}`;
}

/** The deliveries not succeeded that can have a latest status of `cls`, as the literals of a partial index's predicate. */
function unsettledOf(cls: Exclude<StatusClass, '2xx'>): SQL {
  if (cls === 'none') return sql`${webhookDeliveries.status} <> 'succeeded'`;
  return sql`${webhookDeliveries.status} <> 'succeeded' and ${webhookDeliveries.lastAttemptAt} is not null`;
}

/**
 * Deliveries across every partner, for the console: newest first (ids are ULIDs), `first + 1` rows
 * so the caller learns whether more follow. Each row names its owner, subscription URL and order.
 */
export async function searchDeliveries({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { filter: DeliveryFilter; limit: number; after?: string };
}): Promise<DeliveryRow[]> {
  const f = input.filter;
  // Conditions on the delivery's subscription, on its event, and on the delivery itself.
  const ofSubscription: SQL[] = [];
  const ofEvent: SQL[] = [];
  const conditions: SQL[] = [];
  if (f.id) conditions.push(eq(webhookDeliveries.id, f.id));
  if (f.partnerId) ofSubscription.push(eq(webhookSubscriptions.partnerId, f.partnerId));
  if (f.environment) ofSubscription.push(eq(webhookSubscriptions.environment, f.environment));
  if (f.subscriptionId) conditions.push(eq(webhookDeliveries.subscriptionId, f.subscriptionId));
  if (f.eventType) conditions.push(eq(webhookDeliveries.eventType, f.eventType));
  if (f.eventId) conditions.push(eq(webhookDeliveries.eventId, f.eventId));
  if (f.orderId) ofEvent.push(eq(events.objectId, f.orderId));
  if (f.externalId) {
    // orders_external_id_idx leads with (partner_id, environment): with both given this is one index probe;
    // without them it reads the orders table (external ids are only unique per partner and environment).
    const named = ctx.read
      .select({ id: orders.id })
      .from(orders)
      .where(
        and(
          eq(orders.externalId, f.externalId),
          f.partnerId ? eq(orders.partnerId, f.partnerId) : undefined,
          f.environment ? eq(orders.environment, f.environment) : undefined,
        ),
      );
    ofEvent.push(inArray(events.objectId, named));
  }
  // Outcomes other than succeeded are read newest first from webhook_deliveries_unsettled_idx (deliveries not
  // succeeded). The outcome is written as a literal, from the closed list: a prepared statement's generic plan can
  // prove the partial index's predicate only from a literal, and a second, redundant `<> 'succeeded'` beside it
  // made the planner multiply the two selectivities (27 rows expected of 5,155 at 1,000,000 attempts: all of them
  // joined and sorted by two parallel workers, 100-400 ms).
  if (f.outcome) conditions.push(sql`${webhookDeliveries.status} = ${sql.raw(`'${outcomeLiteral(f.outcome)}'`)}`);
  if (f.statusClass) conditions.push(statusClassCondition(f.statusClass));
  // A delivery is succeeded only by a 2xx answer recorded as its latest attempt (record-outcomes.ts sets the status
  // and records the attempt in one statement; a redelivery makes it pending first). So any other latest status
  // class lies among the deliveries not succeeded, which webhook_deliveries_unsettled_idx holds newest first; a class
  // that needs an answer, among those also attempted (webhook_deliveries_answered_unsettled_idx: a backlog of new
  // deliveries is not walked). record-outcomes.ts sets last_attempt_at in the statement that records the attempt.
  if (!f.outcome && f.statusClass && f.statusClass !== '2xx') conditions.push(unsettledOf(f.statusClass));
  // A delivery's id is made the moment it is created: the id bounds (a second wide of the exact ones) let a
  // time range walk the primary key instead of the whole table; created_at keeps the bounds exact.
  if (f.since)
    conditions.push(gte(webhookDeliveries.createdAt, f.since), gte(webhookDeliveries.id, idFloor(new Date(f.since.getTime() - 1000))));
  if (f.until)
    conditions.push(lt(webhookDeliveries.createdAt, f.until), lt(webhookDeliveries.id, idFloor(new Date(f.until.getTime() + 1000))));
  if (input.after) conditions.push(lt(webhookDeliveries.id, input.after));
  if (readPerSubscription(f)) return selectPerSubscription(ctx, { ofSubscription, ofDelivery: and(...conditions) }, input.limit);
  return selectDeliveries(ctx, and(...ofSubscription, ...ofEvent, ...conditions), input.limit);
}

/**
 * Whether a partner's page is read per subscription (selectPerSubscription): unless a filter that an index serves
 * better narrows it, one delivery, an event's, a subscription's, an order's (events_object_idx) or those not
 * succeeded (webhook_deliveries_unsettled_idx); a condition on the event cannot go inside the per-subscription read.
 */
function readPerSubscription(f: DeliveryFilter): boolean {
  const unsettled = (f.outcome !== undefined && f.outcome !== 'succeeded') || (f.statusClass !== undefined && f.statusClass !== '2xx');
  return Boolean(f.partnerId) && !f.id && !f.eventId && !f.subscriptionId && !f.orderId && !f.externalId && !unsettled;
}

/**
 * A partner's deliveries, newest first, read per subscription of the partner's (a few; WEBHOOK_MAX_SUBSCRIPTIONS per
 * environment) through webhook_deliveries_subscription_idx, each its newest `limit`, then the newest `limit` of those.
 * Walking every delivery newest first and keeping the partner's read whatever other partners wrote since theirs: a
 * small partner's page took p50 69 ms at 1,000,000 attempts beside 115,770 newer deliveries of another partner's (the
 * bench's delivery and operator-queries scenarios in one run, 2026-11-27), and 196 ms on Debian's PostgreSQL 15,
 * against 5 ms this way (the big partner's, 19 subscriptions: 269 and 20 ms).
 */
async function selectPerSubscription(
  ctx: Ctx,
  where: { ofSubscription: SQL[]; ofDelivery: SQL | undefined },
  limit: number,
): Promise<DeliveryRow[]> {
  const newest = ctx.read
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.subscriptionId, webhookSubscriptions.id), where.ofDelivery))
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit)
    .as('d');
  const rows = await ctx.read
    .select(columnsOf(newest))
    .from(webhookSubscriptions)
    .crossJoinLateral(newest)
    .innerJoin(events, eq(events.id, newest.eventId))
    .where(and(...where.ofSubscription))
    .orderBy(desc(newest.id))
    .limit(limit);
  return rows.map(presentRow);
}

/** The deliveries of several events at once (an events page asks once): newest first per event. */
export async function deliveriesOfEvents({ ctx, input }: { ctx: Ctx<OperatorActor>; input: { eventIds: readonly string[] } }) {
  if (input.eventIds.length === 0) return new Map<string, DeliveryRow[]>();
  const rows = await selectDeliveries(ctx, inArray(webhookDeliveries.eventId, [...input.eventIds]));
  const byEvent = new Map<string, DeliveryRow[]>();
  for (const row of rows) byEvent.set(row.eventId, [...(byEvent.get(row.eventId) ?? []), row]);
  return byEvent;
}

/** A row's columns, from the deliveries table or a subquery of it (selectPerSubscription's), its subscription and its event. */
function columnsOf<D extends Record<keyof typeof webhookDeliveries.$inferSelect, AnyPgColumn>>(d: D) {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    subscriptionId: d.subscriptionId,
    partnerId: webhookSubscriptions.partnerId,
    environment: webhookSubscriptions.environment,
    url: webhookSubscriptions.url,
    objectId: events.objectId,
    outcome: d.status,
    apiVersion: d.apiVersion,
    attemptCount: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    lastAttemptAt: d.lastAttemptAt,
    replayId: d.replayId,
    createdAt: d.createdAt,
  };
}

function presentRow({ objectId, ...row }: { objectId: string; eventType: string } & Omit<DeliveryRow, 'orderId'>): DeliveryRow {
  return { ...row, orderId: row.eventType.startsWith('order.') ? objectId : null };
}

async function selectDeliveries(ctx: Ctx, where: SQL | undefined, limit?: number): Promise<DeliveryRow[]> {
  const query = ctx.read
    .select(columnsOf(webhookDeliveries))
    .from(webhookDeliveries)
    .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.id, webhookDeliveries.subscriptionId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(where)
    .orderBy(desc(webhookDeliveries.id));
  const rows = limit === undefined ? await query : await query.limit(limit);
  return rows.map(presentRow);
}
