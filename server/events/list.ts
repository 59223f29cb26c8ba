import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { events } from '@/db/schema';
import type { TenantCtx } from '../context';
import { presentEvent } from './present';
import type { ListEventsQuery } from './schemas';

export async function listEvents({ ctx, input }: { ctx: TenantCtx; input: ListEventsQuery }) {
  const conditions: SQL[] = [eq(events.partnerId, ctx.actor.partnerId), eq(events.environment, ctx.actor.environment)];
  if (input.type) conditions.push(eq(events.type, input.type));
  if (input.order_id) conditions.push(eq(events.objectId, input.order_id));
  // Converted by Postgres: a JS Date past 9999 serialises as +010000-..., which Postgres refuses.
  if (input.created_gte !== undefined) conditions.push(gte(events.createdAt, sql`to_timestamp(${input.created_gte})`));
  // `created` is whole seconds while created_at may carry milliseconds (emitEvent's default clock):
  // created_lte=T must include an event at T.7, so the bound is the start of the next second.
  if (input.created_lte !== undefined) conditions.push(lt(events.createdAt, sql`to_timestamp(${input.created_lte + 1})`));
  if (input.starting_after) conditions.push(lt(events.id, input.starting_after));
  // The replica when there is one: a page may lag by DATABASE_READ_MAX_LAG_SECONDS; GET /partner/events/{id} reads the primary.
  const rows = await ctx.read
    .select({ envelope: events.envelope, previous_attributes: events.previousAttributes })
    .from(events)
    .where(and(...conditions))
    .orderBy(desc(events.id))
    .limit(input.limit + 1);
  const data = rows.slice(0, input.limit).map(presentEvent);
  return { object: 'list' as const, data, has_more: rows.length > input.limit };
}
