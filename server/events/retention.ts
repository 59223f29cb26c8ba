import { lt } from 'drizzle-orm';
import { events } from '@/db/schema';
import type { Ctx } from '../context';

/** Deletes events older than EVENT_RETENTION_DAYS. */
export async function purgeOldEvents({ ctx }: { ctx: Ctx }): Promise<number> {
  const cutoff = new Date(Date.now() - ctx.env.EVENT_RETENTION_DAYS * 86_400_000);
  const deleted = await ctx.db.delete(events).where(lt(events.createdAt, cutoff)).returning({ id: events.id });
  return deleted.length;
}
