import { and, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
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
  return ctx.db
    .select(columns)
    .from(events)
    .where(and(...conditions))
    .orderBy(desc(events.id))
    .limit(input.limit);
}

/** The events of several objects (orders) at once, newest first per object. */
export async function eventsOfObjects({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { objectIds: readonly string[] };
}): Promise<Map<string, EventRow[]>> {
  const byObject = new Map<string, EventRow[]>();
  if (input.objectIds.length === 0) return byObject;
  const rows = await ctx.db
    .select(columns)
    .from(events)
    .where(inArray(events.objectId, [...input.objectIds]))
    .orderBy(desc(events.id));
  for (const row of rows) byObject.set(row.objectId, [...(byObject.get(row.objectId) ?? []), row]);
  return byObject;
}
