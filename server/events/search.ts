import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { events, type EventEnvelope } from '@/db/schema';
import type { Ctx, Environment, OperatorActor } from '../context';

export interface EventFilter {
  id?: string;
  type?: string;
  orderId?: string;
  partnerId?: string;
  environment?: Environment;
  since?: Date;
  until?: Date;
}

export interface EventRow {
  id: string;
  type: string;
  partnerId: string;
  environment: Environment;
  objectId: string;
  envelope: EventEnvelope;
  createdAt: Date;
}

const columns = {
  id: events.id,
  type: events.type,
  partnerId: events.partnerId,
  environment: events.environment,
  objectId: events.objectId,
  envelope: events.envelope,
  createdAt: events.createdAt,
};

/** Events across every partner, for the console: newest first, `limit` rows after the cursor. */
export async function searchEvents({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { filter: EventFilter; limit: number; after?: string };
}): Promise<EventRow[]> {
  const f = input.filter;
  const conditions: SQL[] = [];
  if (f.id) conditions.push(eq(events.id, f.id));
  if (f.type) conditions.push(eq(events.type, f.type));
  if (f.orderId) conditions.push(eq(events.objectId, f.orderId));
  if (f.partnerId) conditions.push(eq(events.partnerId, f.partnerId));
  if (f.environment) conditions.push(eq(events.environment, f.environment));
  if (f.since) conditions.push(gte(events.createdAt, f.since));
  if (f.until) conditions.push(lt(events.createdAt, f.until));
  if (input.after) conditions.push(lt(events.id, input.after));
  return ctx.read
    .select(columns)
    .from(events)
    .where(and(...conditions))
    .orderBy(desc(events.id))
    .limit(input.limit);
}

/** An event without its envelope: what a timeline shows of it. */
export type EventSummary = Omit<EventRow, 'envelope'>;

/**
 * A page of the events of each of several objects (a page of orders asks once): per object, newest first, `limit`
 * rows after the `after` event id. No envelope: an order's timeline read every envelope of the order, and one order
 * of 3,001 moves held 207 MB of them (a 15-20 s query in test/api/order-growth.test.ts). An object's events are few
 * since the history cap (at most 100 for an order), and events_object_idx finds them; a page reads only its rows.
 */
export async function eventPagesOfObjects({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { objectIds: readonly string[]; limit: number; after?: string };
}): Promise<Map<string, EventSummary[]>> {
  const byObject = new Map<string, EventSummary[]>();
  if (input.objectIds.length === 0) return byObject;
  const ids = sql.join(
    input.objectIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await ctx.read.execute<{
    id: string;
    type: string;
    partner_id: string;
    environment: Environment;
    object_id: string;
    created_at: string;
  }>(sql`
    select e.id, e.type, e.partner_id, e.environment, e.object_id, e.created_at
    from unnest(array[${ids}]::text[]) as o(id)
    cross join lateral (
      select id, type, partner_id, environment, object_id, created_at from events
      where object_id = o.id ${input.after ? sql`and id < ${input.after}` : sql``}
      order by id desc limit ${input.limit}
    ) e
    order by e.id desc`);
  for (const r of rows) {
    const row: EventSummary = {
      id: r.id,
      type: r.type,
      partnerId: r.partner_id,
      environment: r.environment,
      objectId: r.object_id,
      createdAt: new Date(r.created_at),
    };
    byObject.set(row.objectId, [...(byObject.get(row.objectId) ?? []), row]);
  }
  return byObject;
}

/** The envelopes of several events at once (a page asks once, and only when it shows them). */
export async function envelopesOf({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { eventIds: readonly string[] };
}): Promise<Map<string, EventEnvelope>> {
  if (input.eventIds.length === 0) return new Map();
  const rows = await ctx.read
    .select({ id: events.id, envelope: events.envelope })
    .from(events)
    .where(inArray(events.id, [...input.eventIds]));
  return new Map(rows.map((r) => [r.id, r.envelope]));
}
