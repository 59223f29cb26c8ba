import { eq } from 'drizzle-orm';
import { events } from '@/db/schema';
import type { Ctx } from '../context';

export interface FanOutResult {
  eventId: string;
  found: boolean;
  deliveries: number;
}

/**
 * Fans one committed event out to the partner's matching webhook subscriptions. Subscriptions
 * arrive with the webhook delivery engine; until then an event has none to go to, so this only
 * confirms the event exists (a job for a rolled-back event cannot exist: it is enqueued in the
 * same transaction).
 */
export async function fanOutEvent({ ctx, input }: { ctx: Ctx; input: { eventId: string } }): Promise<FanOutResult> {
  const [event] = await ctx.db.select({ id: events.id }).from(events).where(eq(events.id, input.eventId));
  return { eventId: input.eventId, found: Boolean(event), deliveries: 0 };
}
