import { and, eq } from 'drizzle-orm';
import { events } from '@/db/schema';
import { ulidString } from '../common-schemas';
import type { TenantCtx } from '../context';
import { NotFoundError } from '../errors';
import { presentEvent } from './present';
import type { EventResource } from './schemas';

export async function getEvent({ ctx, input }: { ctx: TenantCtx; input: { id: string } }): Promise<EventResource> {
  // Event ids are ULIDs: anything else names no event (and a NUL byte would make Postgres answer an error).
  if (!ulidString.safeParse(input.id).success) throw new NotFoundError('event', input.id);
  const [row] = await ctx.db
    .select({ envelope: events.envelope, previous_attributes: events.previousAttributes })
    .from(events)
    .where(and(eq(events.id, input.id), eq(events.partnerId, ctx.actor.partnerId), eq(events.environment, ctx.actor.environment)));
  if (!row) throw new NotFoundError('event', input.id);
  return presentEvent(row);
}
